//! `engram history ID [-p]`: the commits that touched a record's file, newest
//! first, following renames. `engram history --key KEY [scope]`: the values a
//! key held, oldest first, from the records themselves (no git needed); a
//! KEY that names no record is read this way without `--key`.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::HistoryArgs;
use crate::cli::context::Context;
use crate::cli::output::one_line;
use crate::clock::{Timestamp, format_time};
use crate::error::Error;
use crate::memory::keyed;
use crate::storage::git::Repo;
use crate::storage::index::IndexedDoc;
use crate::storage::naming::RecordRef;

pub fn run(ctx: &Context, args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.open_synced()?;
    let scope = args.scope.to_scope();
    if args.key {
        keyed::check_key(&args.id)?;
        let values = keyed::history(&store, &args.id, &scope)?;
        if values.is_empty() {
            return Err(Error::Missing(format!(
                "key '{}' was never set in {}",
                args.id,
                scope.describe()
            ))
            .into());
        }
        return key_history(ctx, &args.id, &values);
    }
    let rel = match store.resolve(&args.id) {
        Ok(doc) => doc.path,
        Err(Error::NotFound(e)) => {
            // A KEY that names no record is read as a key when it was set.
            if keyed::check_key(&args.id).is_ok() {
                let values = keyed::history(&store, &args.id, &scope)?;
                if !values.is_empty() {
                    return key_history(ctx, &args.id, &values);
                }
            }
            // A deleted record is no longer indexed: its path (or wikilink)
            // still has a history, if it stays inside the vault.
            RecordRef::parse(&args.id)?
                .relative_path()
                .ok_or(Error::NotFound(e))?
        }
        Err(e) => return Err(e.into()),
    };
    let root = store.vault().root();
    let Some(repo) = Repo::discover(root) else {
        anyhow::bail!(
            "{} is not in a git repository, so there is no history; run `git init` there \
             (or `engram init --git`) and commit with `--commit` or `git: {{auto_commit: true}}`",
            root.display()
        );
    };
    let versions = repo.history(&rel, args.patch)?;
    if ctx.out.json {
        ctx.out.json(&json!({ "path": rel, "versions": versions }));
        return Ok(ExitCode::SUCCESS);
    }
    if versions.is_empty() && !ctx.out.quiet {
        eprintln!("engram: {rel} has no commits yet");
    }
    let mut text = String::new();
    for v in &versions {
        text.push_str(&format!(
            "{}  {}  {}\n",
            &v.commit[..v.commit.len().min(10)],
            v.date,
            v.subject
        ));
        if let Some(patch) = v.patch.as_deref().filter(|p| !p.is_empty()) {
            text.push_str(patch);
            text.push_str("\n\n");
        }
    }
    ctx.out.print(&text);
    Ok(ExitCode::SUCCESS)
}

/// The values `key` held in the scope, oldest first: when each was set, until
/// when it held, and how it ended.
fn key_history(ctx: &Context, key: &str, values: &[IndexedDoc]) -> anyhow::Result<ExitCode> {
    let time = |t: Option<Timestamp>| t.map(|t| format_time(&t));
    if ctx.out.json {
        let list: Vec<_> = values
            .iter()
            .map(|d| {
                json!({
                    "value": d.content,
                    "id": d.id,
                    "path": d.path,
                    "status": d.status,
                    "set": d.created_text(),
                    "until": time(d.valid_to.or(d.expires.filter(|_| d.status == "active"))),
                    "expires": time(d.expires),
                    "reason": d.reason,
                })
            })
            .collect();
        ctx.out.json(&json!({ "key": key, "values": list }));
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::new();
    for d in values {
        let until = match (d.status.as_str(), d.valid_to, d.expires) {
            ("active", _, Some(e)) => format!("current, expires {}", format_time(&e)),
            ("active", _, None) => "current".to_string(),
            (status, Some(to), _) => format!("{status} {}", format_time(&to)),
            (status, None, _) => status.to_string(),
        };
        text.push_str(&format!(
            "{}  {}  ({until})  {}\n",
            d.created_text(),
            one_line(&d.content, 80),
            d.path
        ));
    }
    ctx.out.print(&text);
    Ok(ExitCode::SUCCESS)
}

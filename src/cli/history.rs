//! `engram history ID [-p]`: the commits that touched a record's file, newest
//! first, following renames.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::HistoryArgs;
use crate::cli::context::Context;
use crate::error::Error;
use crate::storage::git::Repo;

pub fn run(ctx: &Context, args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.open_synced()?;
    let rel = match store.resolve(&args.id) {
        Ok(doc) => doc.path,
        // A deleted record is no longer indexed: its path still has a history.
        Err(Error::NotFound(_)) if args.id.ends_with(".md") => deleted_path(&args.id)?,
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

/// A vault-relative path typed for a file that no longer exists; refused if it
/// could leave the vault.
fn deleted_path(input: &str) -> Result<String, Error> {
    let rel = input.trim().trim_start_matches("./");
    let safe = !rel.starts_with('/')
        && std::path::Path::new(rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if safe {
        Ok(rel.to_string())
    } else {
        Err(Error::NotFound(input.to_string()))
    }
}

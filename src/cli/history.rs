//! `engram history ID [-p]`: the commits that touched a record's file, newest
//! first, following renames.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::HistoryArgs;
use crate::cli::context::Context;
use crate::error::Error;
use crate::storage::git::Repo;
use crate::storage::naming::RecordRef;

pub fn run(ctx: &Context, args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.open_synced()?;
    let rel = match store.resolve(&args.id) {
        Ok(doc) => doc.path,
        // A deleted record is no longer indexed: its path (or wikilink) still
        // has a history, if it stays inside the vault.
        Err(Error::NotFound(e)) => RecordRef::parse(&args.id)?
            .relative_path()
            .ok_or(Error::NotFound(e))?,
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

//! `engram sync`: pick up files added, edited, renamed or deleted outside engram.

use std::process::ExitCode;

use crate::cli::context::Context;
use crate::storage::store::Store;

pub fn run(ctx: &Context) -> anyhow::Result<ExitCode> {
    let vault = ctx.open_vault()?;
    let mut store = Store::open(vault, None)?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &ctx.out.progress())?;
    if ctx.out.json {
        ctx.out.json(&serde_json::to_value(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    ctx.out.sync_warnings(&report);
    if !ctx.out.quiet {
        ctx.out.line(&format!(
            "{} added, {} updated, {} removed, {} renamed, {} broken, {} unchanged, {} embedded",
            report.added.len(),
            report.updated.len(),
            report.removed.len(),
            report.renamed.len(),
            report.broken.len(),
            report.unchanged,
            report.embedded
        ));
        ctx.out.sync_paths(&report);
    }
    Ok(ExitCode::SUCCESS)
}

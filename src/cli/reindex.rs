//! `engram reindex`: rebuild the index and vectors from the files.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::context::Context;
use crate::storage::store::Store;

pub fn run(ctx: &Context) -> anyhow::Result<ExitCode> {
    let vault = ctx.open_vault()?;
    let lock = vault.lock()?;
    let mut store = Store::open_empty(vault, &lock)?;
    let report = store.sync_locked(&lock, &ctx.out.progress())?;
    ctx.out.sync_warnings(&report);
    let (files, broken) = store.file_counts();
    let records = store.index().num_docs();
    if ctx.out.json {
        ctx.out.json(&json!({
            "records": records,
            "broken": broken,
            "embedded": report.embedded,
            "files": files,
        }));
    } else if !ctx.out.quiet {
        ctx.out.line(&format!(
            "reindexed {records} records ({broken} broken files skipped, {} embedded)",
            report.embedded
        ));
    }
    Ok(ExitCode::SUCCESS)
}

//! `engram restore ID [--reason TEXT]`: bring an ended record back.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::RestoreArgs;
use crate::cli::context::Context;
use crate::clock::Timestamp;
use crate::memory::restore;
use crate::storage::record::Status;
use crate::storage::store::NoProgress;

pub fn run(ctx: &Context, args: RestoreArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let doc = store.resolve(&args.id)?;
    if doc.is_current_at(now) {
        // Nothing to bring back: no rewrite, so no new `updated` time and no commit.
        drop(lock);
        if ctx.out.json {
            ctx.out.json(&json!({ "mutations": [] }));
        } else if !ctx.out.quiet {
            ctx.out
                .line(&format!("already active {} {}", doc.id, doc.path));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let reason = args
        .reason
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .unwrap_or(restore::DEFAULT_REASON);
    let restored = restore::restore(&mut store, &lock, &doc, reason, now)?;
    drop(lock);
    let mutation = &restored.mutation;
    let mut all = vec![mutation.clone()];
    all.extend(restored.ended.iter().cloned());
    ctx.record_mutations(&store, "restore", &all, doc.session.as_deref());
    if ctx.out.json {
        ctx.out
            .json(&json!({ "mutations": [mutation], "ended": restored.ended }));
    } else if !ctx.out.quiet {
        ctx.out.line(&format!(
            "restored {} {} (was {})",
            mutation.id, mutation.path, restored.ended_as
        ));
        if let (Status::Superseded, Some(by)) = (restored.ended_as, &restored.ended_by) {
            ctx.out.line(&format!("it was superseded by {by}"));
        }
        for m in &restored.ended {
            ctx.out.line(&format!(
                "superseded {} {} ({}: another value of the same attribute)",
                m.id, m.path, m.content
            ));
        }
    }
    Ok(ExitCode::SUCCESS)
}

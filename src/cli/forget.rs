//! `engram forget ID [--hard]`: invalidate a record, or delete its file.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::ForgetArgs;
use crate::cli::context::Context;
use crate::clock::Timestamp;
use crate::memory::forget;
use crate::storage::store::NoProgress;

pub fn run(ctx: &Context, args: ForgetArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let doc = store.resolve(&args.id)?;
    if !args.hard && doc.status == "invalidated" {
        // Nothing to change: no rewrite, so no new `updated` time and no commit.
        drop(lock);
        if ctx.out.json {
            ctx.out.json(&json!({ "mutations": [] }));
        } else if !ctx.out.quiet {
            ctx.out
                .line(&format!("already invalidated {} {}", doc.id, doc.path));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mutations = forget::forget(&mut store, &lock, &args.id, args.hard, now)?;
    drop(lock);
    ctx.record_mutations(&store, "forget", &mutations, doc.session.as_deref());
    if ctx.out.json {
        ctx.out.json(&json!({ "mutations": mutations }));
    } else if !ctx.out.quiet {
        let what = if args.hard { "deleted" } else { "invalidated" };
        for (i, m) in mutations.iter().enumerate() {
            let copy = if i == 0 { "" } else { " (a copy)" };
            ctx.out.line(&format!("{what} {} {}{copy}", m.id, m.path));
        }
    }
    Ok(ExitCode::SUCCESS)
}

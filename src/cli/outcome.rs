//! `engram outcome ID success|failure [--note TEXT]`: count how a procedure's
//! run went (see `crate::memory::outcome`).

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::{OutcomeArgs, RunResult};
use crate::cli::context::Context;
use crate::clock::Timestamp;
use crate::memory::outcome;
use crate::storage::store::NoProgress;

pub fn run(ctx: &Context, args: OutcomeArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store_for_write()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let success = args.result == RunResult::Success;
    let done = outcome::record(
        &mut store,
        &lock,
        &args.id,
        success,
        args.note.as_deref(),
        now,
    )?;
    drop(lock);
    let mut all = vec![done.mutation.clone()];
    all.extend(done.note.iter().cloned());
    ctx.record_mutations(&store, "outcome", &all, None);
    if ctx.out.json {
        ctx.out.json(&json!({
            "id": done.mutation.id,
            "path": done.mutation.path,
            "successes": done.successes,
            "failures": done.failures,
            "last_outcome": if success { "success" } else { "failure" },
            "mutations": all,
        }));
    } else if !ctx.out.quiet {
        ctx.out.line(&format!(
            "{} {}: {}",
            if success { "success" } else { "failure" },
            done.mutation.path,
            outcome::runs_in_words(done.successes, done.failures)
        ));
        if let Some(note) = &done.note {
            ctx.out.line(&format!("note kept in {}", note.path));
        }
    }
    Ok(ExitCode::SUCCESS)
}

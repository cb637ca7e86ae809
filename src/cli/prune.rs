//! `engram prune`: noise goes, nothing is lost; prints the plan it carries out.

use std::process::ExitCode;

use crate::cli::args::PruneArgs;
use crate::cli::context::Context;
use crate::cli::plan::{print_plan, record_actions};
use crate::clock::Timestamp;
use crate::memory::maintain::prune;
use crate::memory::scope::Covers;
use crate::storage::store::NoProgress;

pub fn run(ctx: &Context, args: PruneArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let model = crate::models::llm::ChatModel::from_config(&store.vault().config().llm, 60.0);
    let options = prune::Options {
        // Every scope of the user or agent named, each on its own.
        scope: Covers::of_flags(args.user.as_deref(), args.agent.as_deref()),
        dry_run: args.dry_run,
        hard: args.hard,
    };
    let (actions, warnings) = prune::prune(&mut store, &lock, &options, now, model.as_ref())?;
    drop(lock);
    for w in &warnings {
        ctx.out.warn(w);
    }
    if !args.dry_run {
        record_actions(ctx, &store, "prune", &actions, None);
    }
    print_plan(ctx, "prune", &actions, args.dry_run);
    Ok(ExitCode::SUCCESS)
}

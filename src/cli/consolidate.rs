//! `engram consolidate`: episodes become facts; prints the plan it carries out.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::ConsolidateArgs;
use crate::cli::context::Context;
use crate::cli::plan::{print_plan, record_actions};
use crate::clock::Timestamp;
use crate::memory::maintain::consolidate;
use crate::memory::scope::Covers;
use crate::storage::store::NoProgress;

pub fn run(ctx: &Context, args: ConsolidateArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    // Every scope of the user or agent named, each on its own.
    let scope = Covers::of_flags(args.user.as_deref(), args.agent.as_deref());
    let min = store.vault().config().consolidate.min_episodes;
    let forced = args.force || args.session.is_some();
    if !forced {
        let pending = consolidate::pending_by_scope(&store, &scope, now)?;
        let most = pending.iter().map(|(_, n)| *n).max().unwrap_or(0);
        if most < min {
            let what = if pending.len() > 1 {
                format!("at most {most} unconsolidated episodes in a scope")
            } else {
                format!("{most} unconsolidated episodes")
            };
            if ctx.out.json {
                ctx.out.json(&json!({ "actions": [], "dry_run": args.dry_run, "skipped": format!("{what}, fewer than {min}") }));
            } else if !ctx.out.quiet {
                ctx.out.line(&format!(
                    "consolidate: {what}, fewer than {min}; --force runs anyway"
                ));
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    let model = crate::models::llm::ChatModel::from_config(&store.vault().config().llm, 60.0);
    let options = consolidate::Options {
        scope,
        session: args.session.clone(),
        keep: args.keep.unwrap_or(consolidate::DEFAULT_KEEP),
        dry_run: args.dry_run,
        min_pending: if forced { 0 } else { min },
    };
    let (actions, warnings) = consolidate::consolidate(
        &mut store,
        &lock,
        &options,
        now,
        model.as_ref(),
        &ctx.out.progress(),
    )?;
    drop(lock);
    for w in &warnings {
        ctx.out.warn(w);
    }
    if !args.dry_run {
        record_actions(
            ctx,
            &store,
            "consolidate",
            &actions,
            args.session.as_deref(),
        );
    }
    print_plan(ctx, "consolidate", &actions, args.dry_run);
    Ok(ExitCode::SUCCESS)
}

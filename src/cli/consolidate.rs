//! `engram consolidate` and `engram prune`: print the plan they carry out.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::{ConsolidateArgs, PruneArgs};
use crate::cli::context::Context;
use crate::clock::Timestamp;
use crate::memory::maintain::consolidate;
use crate::memory::maintain::plan::Action;
use crate::memory::maintain::prune;
use crate::memory::scope::Scope;
use crate::storage::store::{NoProgress, Store};

fn print_plan(ctx: &Context, what: &str, actions: &[Action], dry_run: bool) {
    if ctx.out.json {
        ctx.out
            .json(&json!({ "actions": actions, "dry_run": dry_run }));
        return;
    }
    if ctx.out.quiet && !dry_run {
        return;
    }
    let prefix = if dry_run { "would " } else { "" };
    let mut text = String::new();
    if actions.is_empty() {
        text.push_str(&format!("{what}: nothing to do\n"));
    }
    for a in actions {
        let content = a
            .content
            .as_deref()
            .map(|c| format!(" {c:?}"))
            .unwrap_or_default();
        text.push_str(&format!(
            "{prefix}{}{content} [{}]\n       because: {}\n",
            a.action,
            a.ids.join(", "),
            a.reason
        ));
    }
    ctx.out.print(&text);
}

pub fn run_consolidate(
    ctx: &Context,
    args: ConsolidateArgs,
    now: Timestamp,
) -> anyhow::Result<ExitCode> {
    let mut store = Store::open(ctx.open_vault()?, None)?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let scope = Scope {
        user: args.user.clone(),
        agent: args.agent.clone(),
    };
    let pending = consolidate::pending_count(&store, &scope, now)?;
    let min = store.vault().config().consolidate.min_episodes;
    if !args.force && args.session.is_none() && pending < min {
        if ctx.out.json {
            ctx.out.json(&json!({ "actions": [], "dry_run": args.dry_run, "skipped": format!("{pending} unconsolidated episodes, fewer than {min}") }));
        } else if !ctx.out.quiet {
            ctx.out.line(&format!("consolidate: {pending} unconsolidated episodes, fewer than {min}; --force runs anyway"));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let model = crate::models::llm::ChatModel::from_config(&store.vault().config().llm, 60.0);
    let options = consolidate::Options {
        scope,
        session: args.session.clone(),
        dry_run: args.dry_run,
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

pub fn run_prune(ctx: &Context, args: PruneArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let mut store = Store::open(ctx.open_vault()?, None)?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let model = crate::models::llm::ChatModel::from_config(&store.vault().config().llm, 60.0);
    let options = prune::Options {
        scope: Scope {
            user: args.user.clone(),
            agent: args.agent.clone(),
        },
        dry_run: args.dry_run,
        hard: args.hard,
    };
    let before: std::collections::HashMap<String, String> = store
        .ids_by_path()
        .map(|(p, id)| (id.to_string(), p.to_string()))
        .collect();
    let (actions, warnings) = prune::prune(&mut store, &lock, &options, now, model.as_ref())?;
    drop(lock);
    for w in &warnings {
        ctx.out.warn(w);
    }
    if !args.dry_run {
        record_actions_with(ctx, &store, "prune", &actions, None, &before);
    }
    print_plan(ctx, "prune", &actions, args.dry_run);
    Ok(ExitCode::SUCCESS)
}

/// Reports the files a plan touched, for git auto-commit.
fn record_actions(
    ctx: &Context,
    store: &Store,
    op: &str,
    actions: &[Action],
    session: Option<&str>,
) {
    let paths: std::collections::HashMap<String, String> = store
        .ids_by_path()
        .map(|(p, id)| (id.to_string(), p.to_string()))
        .collect();
    record_actions_with(ctx, store, op, actions, session, &paths);
}

fn record_actions_with(
    ctx: &Context,
    store: &Store,
    op: &str,
    actions: &[Action],
    session: Option<&str>,
    known: &std::collections::HashMap<String, String>,
) {
    let mutations = action_mutations(store, actions, known);
    ctx.record_mutations(store, op, &mutations, session);
}

/// The files a plan touched, as mutations (for git auto-commit): each id's path
/// now, or before the plan (`known`) for a file it deleted.
pub fn action_mutations(
    store: &Store,
    actions: &[Action],
    known: &std::collections::HashMap<String, String>,
) -> Vec<crate::storage::writer::Mutation> {
    let now_paths: std::collections::HashMap<String, String> = store
        .ids_by_path()
        .map(|(p, id)| (id.to_string(), p.to_string()))
        .collect();
    actions
        .iter()
        .flat_map(|a| {
            a.ids.iter().filter_map(|id| {
                let path = now_paths.get(id).or_else(|| known.get(id))?;
                Some(crate::storage::writer::Mutation {
                    op: a.action,
                    id: id.clone(),
                    kind: String::new(),
                    content: a.content.clone().unwrap_or_default(),
                    path: path.clone(),
                    previous: None,
                    reason: None,
                })
            })
        })
        .collect()
}

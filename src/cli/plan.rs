//! How consolidate and prune (and the maintenance a capture runs) show their
//! plan, and report the files it touched for git auto-commit.

use std::collections::HashMap;

use serde_json::json;

use crate::cli::context::Context;
use crate::memory::maintain::plan::Action;
use crate::storage::store::Store;
use crate::storage::writer::Mutation;

/// Prints a plan: JSON `{"actions": [...]}`, or one action per line with why.
pub fn print_plan(ctx: &Context, what: &str, actions: &[Action], dry_run: bool) {
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

/// Reports the files a plan touched, for git auto-commit.
pub fn record_actions(
    ctx: &Context,
    store: &Store,
    op: &str,
    actions: &[Action],
    session: Option<&str>,
) {
    let paths: HashMap<String, String> = store
        .ids_by_path()
        .map(|(p, id)| (id.to_string(), p.to_string()))
        .collect();
    record_actions_with(ctx, store, op, actions, session, &paths);
}

/// [`record_actions`] with the paths ids had before the plan ran (for files it
/// deleted).
pub fn record_actions_with(
    ctx: &Context,
    store: &Store,
    op: &str,
    actions: &[Action],
    session: Option<&str>,
    known: &HashMap<String, String>,
) {
    let mutations = action_mutations(store, actions, known);
    ctx.record_mutations(store, op, &mutations, session);
}

/// The files a plan touched, as mutations (for git auto-commit): each id's path
/// now, or before the plan (`known`) for a file it deleted.
pub fn action_mutations(
    store: &Store,
    actions: &[Action],
    known: &HashMap<String, String>,
) -> Vec<Mutation> {
    let now_paths: HashMap<String, String> = store
        .ids_by_path()
        .map(|(p, id)| (id.to_string(), p.to_string()))
        .collect();
    actions
        .iter()
        .flat_map(|a| {
            a.ids.iter().filter_map(|id| {
                let path = now_paths.get(id).or_else(|| known.get(id))?;
                Some(Mutation {
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

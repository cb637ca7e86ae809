//! How consolidate and prune (and the maintenance a capture runs) show their
//! plan, and report the files it touched for git auto-commit.

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
        // A long list (every episode a consolidation read) is cut; JSON has all.
        let ids = match a.ids.len() {
            n if n > 8 => format!("{}, … ({n} in all)", a.ids[..8].join(", ")),
            _ => a.ids.join(", "),
        };
        text.push_str(&format!(
            "{prefix}{}{content} [{ids}]\n       because: {}\n",
            a.action, a.reason
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
    ctx.record_mutations(store, op, &action_mutations(actions), session);
}

/// The files a plan touched (every path its actions name, written, rewritten
/// or deleted), as mutations for git auto-commit.
pub fn action_mutations(actions: &[Action]) -> Vec<Mutation> {
    actions
        .iter()
        .flat_map(|a| {
            a.paths.iter().map(|path| Mutation {
                op: a.action,
                id: String::new(),
                kind: String::new(),
                content: a.content.clone().unwrap_or_default(),
                path: path.clone(),
                previous: None,
                reason: None,
            })
        })
        .collect()
}

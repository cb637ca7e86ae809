//! Maintenance after a capture: consolidate and prune run by themselves when
//! their thresholds are met (SPEC: capture runs them). The guard costs a count
//! of pending episodes and facts, nothing more.

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::capture::route;
use crate::memory::maintain::consolidate;
use crate::memory::maintain::plan::{self, Action};
use crate::memory::maintain::prune;
use crate::memory::scope::{Covers, Scope};
use crate::models::llm::ChatModel;
use crate::storage::index::Validity;
use crate::storage::record::Kind;
use crate::storage::store::{NoProgress, Store};
use crate::storage::vault::VaultLock;
use crate::storage::writer::Mutation;

/// Runs consolidate and prune for the capture's scope (only that scope) when
/// they are due, and returns what they did with their warnings; each action
/// names the files it wrote, for the capture's git commit.
#[allow(clippy::too_many_arguments)]
pub fn after_capture(
    store: &mut Store,
    lock: &VaultLock,
    evicted: &[Mutation],
    scope: &Scope,
    session: &str,
    turn: u64,
    now: Timestamp,
    model: Option<&ChatModel>,
) -> Result<(Vec<Action>, Vec<String>)> {
    let mut done = Vec::new();
    let mut warned = Vec::new();
    let evicted_lasting = evicted.iter().any(|m| {
        store
            .resolve(&m.id)
            .ok()
            .and_then(|d| d.durability)
            .is_some_and(|d| route::is_lasting(&d))
    });
    // A session's turns are counted per scope: so is the mark.
    let mark = format!("consolidate:{}:{session}", plan::scope_mark(scope));
    let last = plan::last_mark(store, &mark);
    if consolidate::is_due(store, scope, now, turn, last, evicted_lasting)? {
        let options = consolidate::Options {
            scope: Covers::Exact(scope.clone()),
            session: None,
            keep: consolidate::DEFAULT_KEEP,
            dry_run: false,
            min_pending: 0,
        };
        let (actions, warnings) =
            consolidate::consolidate(store, lock, &options, now, model, &NoProgress)?;
        plan::set_mark(store, &mark, turn)?;
        done.extend(actions);
        warned.extend(warnings);
    }
    let facts = store
        .index()
        .count(&scope.filter(vec![Kind::Semantic], Validity::CurrentAt(now)))?;
    // Prune once the scope holds `auto_facts` facts, then again each time it has
    // gained half as many more: not on every capture of a large vault.
    let threshold = store.vault().config().prune.auto_facts;
    let key = format!("prune:{}", plan::scope_mark(scope));
    let last = plan::last_mark(store, &key) as usize;
    if facts >= threshold && (last == 0 || facts >= last + (threshold / 2).max(1)) {
        let options = prune::Options {
            scope: Covers::Exact(scope.clone()),
            dry_run: false,
            hard: false,
        };
        let (actions, warnings) = prune::prune(store, lock, &options, now, model)?;
        plan::set_mark(store, &key, facts as u64)?;
        done.extend(actions);
        warned.extend(warnings);
    }
    Ok((done, warned))
}

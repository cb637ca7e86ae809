//! Maintenance after a capture: consolidate and prune run by themselves when
//! their thresholds are met (SPEC: capture runs them). The guard costs a count
//! of pending episodes and facts, nothing more.

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::capture::route;
use crate::memory::maintain::consolidate;
use crate::memory::maintain::plan::{self, Action};
use crate::memory::maintain::prune;
use crate::memory::scope::Scope;
use crate::models::llm::ChatModel;
use crate::storage::index::Validity;
use crate::storage::record::Kind;
use crate::storage::store::{NoProgress, Store};
use crate::storage::vault::VaultLock;
use crate::storage::writer::Mutation;

/// Runs consolidate and prune for the capture's scope when they are due, and
/// returns what they did with their warnings.
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
    let last = plan::last_mark(store, &format!("consolidate:{session}"));
    if consolidate::is_due(store, scope, now, turn, last, evicted_lasting)? {
        let options = consolidate::Options {
            scope: scope.clone(),
            session: None,
            dry_run: false,
        };
        let (actions, warnings) =
            consolidate::consolidate(store, lock, &options, now, model, &NoProgress)?;
        plan::set_mark(store, &format!("consolidate:{session}"), turn)?;
        done.extend(actions);
        warned.extend(warnings);
    }
    let facts = store
        .index()
        .count(&scope.filter(vec![Kind::Semantic], Validity::CurrentAt(now)))?;
    // Prune once the scope holds `auto_facts` facts, then again each time it has
    // gained half as many more: not on every capture of a large vault.
    let threshold = store.vault().config().prune.auto_facts;
    let key = format!(
        "prune:{}:{}",
        scope.user.as_deref().unwrap_or(""),
        scope.agent.as_deref().unwrap_or("")
    );
    let last = plan::last_mark(store, &key) as usize;
    if facts >= threshold && (last == 0 || facts >= last + (threshold / 2).max(1)) {
        let options = prune::Options {
            scope: scope.clone(),
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

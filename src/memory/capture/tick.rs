//! Tick: after each capture, the session's turn advances and working memory
//! evicts (archives) what no longer fits (see [`crate::memory::working`]).

use crate::clock::Timestamp;
use crate::config::WorkingConfig;
use crate::error::Result;
use crate::memory::scope::Scope;
use crate::memory::working;
use crate::storage::index::{Filter, Validity};
use crate::storage::record::Kind;
use crate::storage::store::Store;
use crate::storage::writer::{self, Mutation};

/// The session's latest turn (0 for a new session).
pub fn current_turn(store: &Store, scope: &Scope, session: &str) -> Result<u64> {
    let filter = Filter {
        session: Some(session.to_string()),
        ..scope.filter(vec![Kind::Working], Validity::Any)
    };
    Ok(store
        .index()
        .fetch_newest(&filter, 64)?
        .iter()
        .filter_map(|d| d.turn)
        .max()
        .unwrap_or(0))
}

/// After a capture: evicts what no longer fits the session's working memory.
pub fn tick(
    store: &mut Store,
    scope: &Scope,
    session: &str,
    turn: u64,
    now: Timestamp,
    config: &WorkingConfig,
) -> Result<Vec<Mutation>> {
    let filter = Filter {
        session: Some(session.to_string()),
        ..scope.filter(vec![Kind::Working], Validity::CurrentAt(now))
    };
    let entries = store.index().fetch_newest(&filter, 10_000)?;
    let mut changes = Vec::new();
    let mut evicted = Vec::new();
    for i in working::evictions(config, &entries, turn) {
        let doc = &entries[i];
        let reason = format!(
            "working memory over capacity {}: lowest salience {:.3}",
            config.capacity,
            working::salience(config, doc, turn)
        );
        writer::rewrite(store, doc, false, &mut changes, |rec| {
            rec.archive(format!("evicted: {reason}"), now)
        })?;
        evicted.push(Mutation::of_doc("EVICT", doc, reason));
    }
    store.apply(changes, false)?;
    Ok(evicted)
}

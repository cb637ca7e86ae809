//! The vocabulary of maintenance: the steps consolidate and prune plan
//! (`{"actions": [...]}`), the scopes they run in, and the marks where their
//! automatic runs after a capture left off (`.engram/maintenance.json`,
//! derived state).

use std::collections::HashMap;

use serde::Serialize;

use crate::error::Result;
use crate::memory::scope::{Covers, Scope};
use crate::storage::index::{self, IndexedDoc};
use crate::storage::store::Store;
use crate::storage::vault;

/// One step of a plan (consolidate or prune).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Action {
    pub action: &'static str,
    pub ids: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    pub reason: String,
    /// Every file the step wrote, rewrote or deleted (vault-relative), for the
    /// git commit that follows the command. Not part of the printed plan.
    #[serde(skip)]
    pub paths: Vec<String>,
}

impl Action {
    /// A step on one record, which it rewrote (or deleted) in place.
    pub fn of_doc(action: &'static str, doc: &IndexedDoc, reason: String) -> Action {
        Action {
            action,
            ids: vec![doc.id.clone()],
            content: Some(doc.content.clone()),
            reason,
            paths: vec![doc.path.clone()],
        }
    }
}

/// Runs `run` in each scope a maintenance run covers ([`scopes`]), one after
/// the other, and gathers the plans and warnings.
pub fn per_scope(
    store: &mut Store,
    given: &Covers,
    mut run: impl FnMut(&mut Store, &Scope) -> Result<(Vec<Action>, Vec<String>)>,
) -> Result<(Vec<Action>, Vec<String>)> {
    let mut actions = Vec::new();
    let mut warnings = Vec::new();
    for scope in scopes(store, given)? {
        let (a, w) = run(store, &scope)?;
        actions.extend(a);
        warnings.extend(w);
    }
    Ok((actions, warnings))
}

/// The scopes a maintenance run works in, one at a time: an exact one as
/// given, else those some record of the vault belongs to that it covers, from
/// the index's scope terms (no file is read).
pub fn scopes(store: &Store, given: &Covers) -> Result<Vec<Scope>> {
    if let Covers::Exact(scope) = given {
        return Ok(vec![scope.clone()]);
    }
    Ok(store
        .index()
        .scopes()?
        .into_iter()
        .map(|(user, agent)| Scope { user, agent })
        .filter(|s| given.covers(s))
        .collect())
}

/// The key of a scope in the marks: the index's exact scope key.
pub fn scope_mark(scope: &Scope) -> String {
    index::scope_key(scope.user.as_deref(), scope.agent.as_deref())
}

fn marks_path(store: &Store) -> std::path::PathBuf {
    store.vault().engram_dir().join("maintenance.json")
}

/// Where the last automatic run left off, by key (the session's turn for
/// consolidate, the scope's fact count for prune). Derived state: 0 when unknown.
pub fn last_mark(store: &Store, key: &str) -> u64 {
    std::fs::read(marks_path(store))
        .ok()
        .and_then(|b| serde_json::from_slice::<HashMap<String, u64>>(&b).ok())
        .and_then(|m| m.get(key).copied())
        .unwrap_or(0)
}

/// Remembers where an automatic run left off.
pub fn set_mark(store: &Store, key: &str, value: u64) -> Result<()> {
    let path = marks_path(store);
    let mut turns: HashMap<String, u64> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    turns.insert(key.to_string(), value);
    vault::write_atomic(&path, &serde_json::to_vec(&turns).expect("turns serialise"))
}

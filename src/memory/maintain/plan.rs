//! The vocabulary of maintenance: the steps consolidate and prune plan
//! (`{"actions": [...]}`), and the marks where their automatic runs after a
//! capture left off (`.engram/maintenance.json`, derived state).

use std::collections::HashMap;

use serde::Serialize;

use crate::error::Result;
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

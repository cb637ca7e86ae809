//! Forget: invalidate a statement (its files stay, with `status: invalidated`,
//! `invalidated_by: engram forget` and a reason), or with `hard` delete them.
//! The copies of the statement in other tiers of the same scope go with it
//! (see [`crate::memory::truth`]). Keys a person added survive; a file changed
//! on disk since it was read is left alone.

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::scope::Scope;
use crate::memory::truth::{self, Ending, Statement};
use crate::storage::store::Store;
use crate::storage::vault::VaultLock;
use crate::storage::writer::Mutation;

/// Forgets the record `needle` names and every active copy of its statement;
/// the first mutation is the record named.
pub fn forget(
    store: &mut Store,
    _lock: &VaultLock,
    needle: &str,
    hard: bool,
    now: Timestamp,
) -> Result<Vec<Mutation>> {
    let doc = store.resolve(needle)?;
    let scope = Scope::of(doc.user.as_deref(), doc.agent.as_deref());
    let mut docs = vec![doc.clone()];
    // A procedure and a keyed fact have no copies: the same text elsewhere
    // is another statement (another key's value, say).
    if doc.kind != "procedural" && doc.key.is_none() {
        docs.extend(truth::copies(store, &scope, &Statement::of_doc(&doc), now)?);
    }
    let (ending, reason) = if hard {
        (Ending::Deleted, "forget --hard: file deleted".to_string())
    } else {
        (
            Ending::Invalidated {
                by: "engram forget".into(),
            },
            format!("forgotten on request (engram forget {})", doc.id),
        )
    };
    let mut changes = Vec::new();
    let mut mutations = truth::retire(store, &docs, &ending, &reason, now, false, &mut changes)?;
    store.apply(changes, false)?;
    // To the caller a forgotten statement is deleted (mem0's DELETE), hard or not.
    for m in &mut mutations {
        m.op = "DELETE";
    }
    Ok(mutations)
}

//! Forget: invalidate one record (its file stays, with `status: invalidated` and
//! `valid_to`), or with `hard` delete its file. Keys a person added survive; a
//! file changed on disk since it was read is left alone.

use crate::clock::Timestamp;
use crate::error::Result;
use crate::storage::store::Store;
use crate::storage::vault::VaultLock;
use crate::storage::writer::{self, Mutation};

/// Forgets the record `needle` names (id, id prefix or path).
pub fn forget(
    store: &mut Store,
    _lock: &VaultLock,
    needle: &str,
    hard: bool,
    now: Timestamp,
) -> Result<Mutation> {
    let doc = store.resolve(needle)?;
    let mut changes = Vec::new();
    let (record, reason) = if hard {
        let record = writer::delete(store, &doc, &mut changes)?;
        (record, "forget --hard: file deleted")
    } else {
        let record = writer::rewrite(store, &doc, false, &mut changes, |r| {
            r.invalidate("engram forget".into(), "forgotten on request".into(), now)
        })?
        .expect("a rewrite outside a dry run returns the record");
        (record, "forget: invalidated")
    };
    store.apply(changes, false)?;
    Ok(Mutation {
        op: "DELETE",
        id: record.id.clone(),
        kind: record.kind.to_string(),
        content: record.content().to_string(),
        path: doc.path,
        previous: None,
        reason: Some(reason.into()),
    })
}

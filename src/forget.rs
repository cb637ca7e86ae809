//! Forget: invalidate one record (its file stays, with `status: invalidated` and
//! `valid_to`), or with `hard` delete its file. Keys a person added survive; a
//! file changed on disk since it was read is left alone.

use crate::capture::Mutation;
use crate::clock::Timestamp;
use crate::error::Result;
use crate::record::Status;
use crate::store::{Change, Store};
use crate::vault::VaultLock;

/// Forgets the record `needle` names (id, id prefix or path).
pub fn forget(
    store: &mut Store,
    _lock: &VaultLock,
    needle: &str,
    hard: bool,
    now: Timestamp,
) -> Result<Mutation> {
    let doc = store.resolve(needle)?;
    let loaded = store.vault().read(&doc.path)?;
    let mut record = loaded.record;
    let change = if hard {
        store.vault().delete(&loaded.rel, &loaded.stamp)?;
        Change::Remove {
            rel: loaded.rel.clone(),
        }
    } else {
        record.end(Status::Invalidated, now);
        let stamp = store
            .vault()
            .rewrite(&loaded.rel, &record.render(), &loaded.stamp)?;
        Change::Upsert {
            rel: loaded.rel.clone(),
            record: Box::new(record.clone()),
            stamp,
        }
    };
    store.apply(vec![change], false)?;
    Ok(Mutation {
        op: "DELETE",
        id: record.id.clone(),
        kind: record.kind.to_string(),
        content: record.content().to_string(),
        path: loaded.rel,
        previous: None,
        reason: Some(if hard {
            "forget --hard: file deleted".into()
        } else {
            "forget: invalidated".into()
        }),
    })
}

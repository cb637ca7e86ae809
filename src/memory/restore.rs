//! Restore: bring an ended record (superseded, invalidated, archived) back to
//! active, with a reason. Its file is rewritten through the record writer, so
//! keys a person added survive and a file changed on disk since it was read is
//! left alone. Setting `status: active` by hand does the same for the index.
//!
//! Restoring does not touch the record that superseded this one: if both now
//! state one single-valued attribute, [`Restored`] says so much (what ended the
//! record, what it supersedes, its attribute) and capture's reconciliation
//! decides.

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::keyed::{self, KeyScope};
use crate::memory::scope::Scope;
use crate::memory::truth::{self, Ending, Statement};
use crate::storage::index::{IndexedDoc, Validity};
use crate::storage::naming;
use crate::storage::record::Status;
use crate::storage::store::Store;
use crate::storage::vault::VaultLock;
use crate::storage::writer::{self, Mutation};

/// The reason a restore gives when the caller gives none.
pub const DEFAULT_REASON: &str = "restored by engram restore";

/// What a restore did.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    /// op `RESTORE`, with the reason.
    pub mutation: Mutation,
    /// The status the record had.
    pub ended_as: Status,
    /// What had ended it: the record that superseded it, or what invalidated it.
    pub ended_by: Option<String>,
    /// The record this one supersedes, as its file says.
    pub supersedes: Option<String>,
    /// The attribute it states, if any.
    pub attribute: Option<String>,
    /// Records that stated another value of the restored record's attribute,
    /// now superseded by it (one truth per statement).
    pub ended: Vec<Mutation>,
}

/// Makes the record `doc` current again: active, with no end, no link to what
/// ended it and no expiry in the past; `reason` says why. The caller holds the
/// lock and has checked that the record is not current already.
pub fn restore(
    store: &mut Store,
    _lock: &VaultLock,
    doc: &IndexedDoc,
    reason: &str,
    now: Timestamp,
) -> Result<Restored> {
    let mut changes = Vec::new();
    // The restored value is current again: the other values of its attribute
    // in the scope end, superseded by it (found before the index sees it).
    // A keyed fact's rivals are the other values of its key in its exact scope.
    let rivals = match &doc.key {
        Some(key) => {
            keyed::values_at(store, key, &KeyScope::of_doc(doc), Validity::CurrentAt(now))?
                .into_iter()
                .filter(|d| d.id != doc.id)
                .collect()
        }
        None => {
            let scope = Scope::of(doc.user.as_deref(), doc.agent.as_deref());
            truth::rivals(store, &scope, &Statement::of_doc(doc), now)?
        }
    };
    let mut before = (Status::Active, None);
    let record = writer::rewrite(store, doc, false, &mut changes, |r| {
        before = (
            r.status,
            r.superseded_by.clone().or_else(|| r.invalidated_by.clone()),
        );
        r.restore(reason.to_string(), now);
        // A lapsed expiry would hide the record again at once.
        if r.is_expired_at(now) {
            r.expires = None;
        }
    })?
    .expect("a rewrite outside a dry run returns the record");
    let ended = truth::retire(
        store,
        &rivals,
        &Ending::Superseded {
            by: naming::wikilink(&doc.path),
        },
        &format!("restore: '{}' is the current value again", doc.content),
        now,
        false,
        &mut changes,
    )?;
    store.apply(changes, false)?;
    let (ended_as, ended_by) = before;
    Ok(Restored {
        mutation: Mutation {
            op: "RESTORE",
            id: record.id.clone(),
            kind: record.kind.to_string(),
            content: record.content().to_string(),
            path: doc.path.clone(),
            previous: None,
            reason: Some(reason.to_string()),
        },
        ended_as,
        ended_by,
        supersedes: record.supersedes.clone(),
        attribute: record.attribute.clone(),
        ended,
    })
}

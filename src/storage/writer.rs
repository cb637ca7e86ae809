//! The record writer: the one way engram creates and changes record files.
//!
//! Capture, consolidate, prune, forget, restore and the working-memory tick all write
//! through here, so every write follows the same rules: a new record gets a
//! file of its own (never over an existing one); a rewrite reads the file
//! first and lands only if the file still holds what was read, so a record
//! edited by hand meanwhile is never clobbered; lifecycle transitions
//! (supersede, end, reinforce) are methods of [`Record`] applied inside a
//! rewrite. Each write pushes the [`Change`] that brings the index up to date;
//! the caller applies the batch with [`Store::apply`]. In a dry run nothing is
//! written and no change is pushed.

use serde::Serialize;

use crate::error::Result;
use crate::storage::index::IndexedDoc;
use crate::storage::naming;
use crate::storage::record::Record;
use crate::storage::store::{Change, Store};

/// One change a command made (or, in a dry run, would make) to one record file.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Mutation {
    pub op: &'static str,
    pub id: String,
    pub kind: String,
    pub content: String,
    pub path: String,
    /// For an UPDATE: the superseded record (`id`, `content`, `path`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Mutation {
    /// A mutation of an indexed record that keeps its file where it is.
    pub fn of_doc(op: &'static str, doc: &IndexedDoc, reason: String) -> Mutation {
        Mutation {
            op,
            id: doc.id.clone(),
            kind: doc.kind.clone(),
            content: doc.content.clone(),
            path: doc.path.clone(),
            previous: None,
            reason: Some(reason),
        }
    }
}

/// Where a new record's file goes: from its kind, id, text (or key), subject,
/// session and creation time (a taken name gets a suffix when written).
pub fn planned_path(record: &Record) -> String {
    naming::record_path(
        record.kind,
        &record.id,
        // A keyed fact is named by its key (its body is a bare value).
        record.key.as_deref().unwrap_or(record.content()),
        record.subject.as_deref(),
        record.session.as_deref(),
        record.created,
    )
}

/// Writes a new record to a file of its own (the path comes from its kind,
/// subject, session and text; a taken name gets a suffix).
pub fn write_new(
    store: &Store,
    record: Record,
    dry_run: bool,
    changes: &mut Vec<Change>,
    reason: Option<String>,
) -> Result<Mutation> {
    let planned = planned_path(&record);
    let path = if dry_run {
        planned
    } else {
        let (rel, stamp) = store.vault().write_new(&planned, &record.render())?;
        changes.push(Change::Upsert {
            rel: rel.clone(),
            record: Box::new(record.clone()),
            stamp,
        });
        rel
    };
    Ok(Mutation {
        op: "ADD",
        id: record.id.clone(),
        kind: record.kind.to_string(),
        content: record.content().to_string(),
        path,
        previous: None,
        reason,
    })
}

/// Rewrites an existing record's file (only if it still holds what was read)
/// and returns the record as written (`None` in a dry run).
pub fn rewrite(
    store: &Store,
    doc: &IndexedDoc,
    dry_run: bool,
    changes: &mut Vec<Change>,
    change: impl FnOnce(&mut Record),
) -> Result<Option<Record>> {
    if dry_run {
        return Ok(None);
    }
    let loaded = store.vault().read(&doc.path)?;
    let mut record = loaded.record;
    change(&mut record);
    let stamp = store
        .vault()
        .rewrite(&loaded.rel, &record.render(), &loaded.stamp)?;
    changes.push(Change::Upsert {
        rel: loaded.rel,
        record: Box::new(record.clone()),
        stamp,
    });
    Ok(Some(record))
}

/// Deletes a record's file (only if it still holds what was read) and returns
/// the record it held.
pub fn delete(store: &Store, doc: &IndexedDoc, changes: &mut Vec<Change>) -> Result<Record> {
    let loaded = store.vault().read(&doc.path)?;
    store.vault().delete(&loaded.rel, &loaded.stamp)?;
    changes.push(Change::Remove { rel: loaded.rel });
    Ok(loaded.record)
}

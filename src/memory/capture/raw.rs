//! The raw path (`capture --raw`, mem0's `infer=false`): one record per input
//! or per JSONL line, stored as given, written by several threads at once.

use std::collections::HashMap;

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::capture::input::{CaptureDefaults, CaptureItem, build_record};
use crate::memory::scope::Scope;
use crate::storage::index::{Filter, Validity};
use crate::storage::naming;
use crate::storage::record::Record;
use crate::storage::store::{Change, Progress, Store};
use crate::storage::vault::{FileStamp, VaultLock};
use crate::storage::writer::{self, Mutation};

/// Stores items as given, one record each. The caller holds the lock and has
/// synced the store. In a dry run nothing is written.
pub fn capture_raw(
    store: &mut Store,
    _lock: &VaultLock,
    items: &[CaptureItem],
    defaults: &CaptureDefaults,
    now: Timestamp,
    dry_run: bool,
    progress: &dyn Progress,
) -> Result<(Vec<Mutation>, Vec<String>)> {
    let mut generator = ulid::Generator::new();
    let mut turns = Turns::default();
    let mut planned: Vec<(Record, String)> = Vec::with_capacity(items.len());
    for item in items {
        let mut record = build_record(item, defaults, naming::new_id(&mut generator, now), now);
        // A message of a session takes the session's next turn: a transcript
        // is read back in this order, whatever the clock says.
        if let (Some(_), Some(session)) = (&record.role, &record.session) {
            record.turn = Some(turns.next(store, session, &record)?);
        }
        let rel = writer::planned_path(&record);
        planned.push((record, rel));
    }
    let mutation = |record: &Record, rel: String| Mutation {
        op: "ADD",
        id: record.id.clone(),
        kind: record.kind.to_string(),
        content: record.content().to_string(),
        path: rel,
        previous: None,
        reason: Some("raw capture: stored as given".into()),
    };
    if dry_run {
        let mutations = planned
            .iter()
            .map(|(r, rel)| mutation(r, rel.clone()))
            .collect();
        return Ok((mutations, Vec::new()));
    }
    progress.start(planned.len() as u64, "capturing");
    let written = write_all(store, &planned, progress);
    progress.finish();
    // Index every file that was written, even if a later one failed: the files
    // are the truth and must not be orphaned.
    let mut mutations = Vec::with_capacity(planned.len());
    let mut changes = Vec::with_capacity(planned.len());
    let mut first_error = None;
    for ((record, _), outcome) in planned.into_iter().zip(written) {
        match outcome {
            Ok((rel, stamp)) => {
                mutations.push(mutation(&record, rel.clone()));
                changes.push(Change::Upsert {
                    rel,
                    record: Box::new(record),
                    stamp,
                });
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let warnings = store.apply_after_write(changes);
    match first_error {
        Some(e) => Err(e),
        None => Ok((mutations, warnings)),
    }
}

/// The next turn of each session messages are captured into: one past the
/// highest turn the session's records of the same scope have.
#[derive(Default)]
struct Turns(HashMap<(Option<String>, Option<String>, String), u64>);

impl Turns {
    fn next(&mut self, store: &Store, session: &str, record: &Record) -> Result<u64> {
        let key = (
            record.user.clone(),
            record.agent.clone(),
            session.to_string(),
        );
        let last = match self.0.get(&key) {
            Some(t) => *t,
            None => {
                let filter = Filter {
                    session: Some(session.to_string()),
                    ..Scope::of(record.user.as_deref(), record.agent.as_deref())
                        .filter(Vec::new(), Validity::Any)
                };
                store.index().max_turn(&filter)?.unwrap_or(0)
            }
        };
        self.0.insert(key, last + 1);
        Ok(last + 1)
    }
}

/// Writes the planned files, several at a time: each write is fsynced before its
/// rename, and overlapping those waits is what makes bulk capture fast.
fn write_all(
    store: &Store,
    planned: &[(Record, String)],
    progress: &dyn Progress,
) -> Vec<Result<(String, FileStamp)>> {
    const WRITERS: usize = 8;
    let vault = store.vault();
    if planned.len() < 2 * WRITERS {
        return planned
            .iter()
            .map(|(record, rel)| {
                progress.advance(1);
                vault.write_new(rel, &record.render())
            })
            .collect();
    }
    let chunk = planned.len().div_ceil(WRITERS);
    let results: Vec<Vec<Result<(String, FileStamp)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = planned
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(record, rel)| vault.write_new(rel, &record.render()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let part = h.join().expect("a writer thread panicked");
                progress.advance(part.len() as u64);
                part
            })
            .collect()
    });
    results.into_iter().flatten().collect()
}

//! Outcomes: how a procedure's runs went (`engram outcome ID success|failure`).
//!
//! A procedural record counts its runs in its own frontmatter (`successes`,
//! `failures`, `last_outcome`), rewritten through the record writer so keys a
//! person added survive and a hand edit is never clobbered. A note about a
//! run is kept as an episode whose `sources` link the procedure. Recall ranks
//! procedures by [`success_rate`], and the context block shows it in words
//! ([`runs_in_words`]).

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::storage::index::IndexedDoc;
use crate::storage::naming;
use crate::storage::record::{Kind, Record};
use crate::storage::store::Store;
use crate::storage::vault::VaultLock;
use crate::storage::writer::{self, Mutation};

/// What an outcome did: the procedure's mutation (op `OUTCOME`), its counts
/// after it, and the episode that keeps the note.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub mutation: Mutation,
    pub successes: u64,
    pub failures: u64,
    pub note: Option<Mutation>,
}

/// Counts one run of the procedure `needle` names. The caller holds the lock
/// and has synced the store.
pub fn record(
    store: &mut Store,
    _lock: &VaultLock,
    needle: &str,
    success: bool,
    note: Option<&str>,
    now: Timestamp,
) -> Result<Recorded> {
    let doc = store.resolve(needle)?;
    if doc.kind != Kind::Procedural.as_str() {
        return Err(Error::Input(format!(
            "{} is a {} record; outcome counts the runs of a procedure (a procedural record, \
             written with `engram capture --raw --kind procedural`)",
            doc.path, doc.kind
        )));
    }
    if !doc.is_current_at(now) {
        return Err(Error::Input(format!(
            "{} is {}; `engram restore {}` brings it back before its runs are counted",
            doc.path, doc.status, doc.id
        )));
    }
    let word = if success { "success" } else { "failure" };
    let mut changes = Vec::new();
    let written = writer::rewrite(store, &doc, false, &mut changes, |r| {
        r.count_run(success, now)
    })?
    .expect("a rewrite outside a dry run returns the record");
    let (successes, failures) = (
        written.successes.unwrap_or(0),
        written.failures.unwrap_or(0),
    );
    let note = match note.map(str::trim).filter(|n| !n.is_empty()) {
        None => None,
        Some(text) => {
            let mut generator = ulid::Generator::new();
            let mut episode = Record::new(
                naming::new_id(&mut generator, now),
                Kind::Episodic,
                now,
                text,
            );
            episode.user = doc.user.clone();
            episode.agent = doc.agent.clone();
            episode.session = doc.session.clone();
            episode.category = Some("event".into());
            episode.importance = Some(if success { 0.5 } else { 0.7 });
            episode.sources = vec![naming::wikilink(&doc.path)];
            episode.tags = vec!["outcome".into(), word.into()];
            let reason = format!("a note on a {word} of {}", naming::wikilink(&doc.path));
            Some(writer::write_new(
                store,
                episode,
                false,
                &mut changes,
                Some(reason),
            )?)
        }
    };
    store.apply(changes, false)?;
    let mut mutation = Mutation::of_doc(
        "OUTCOME",
        &doc,
        format!("{word}: {}", runs_in_words(successes, failures)),
    );
    mutation.content = written.content().to_string();
    Ok(Recorded {
        mutation,
        successes,
        failures,
        note,
    })
}

/// A procedure's success rate with one success and one failure assumed
/// (Laplace): 0.5 with no runs, and no single run decides it.
pub fn success_rate(successes: u64, failures: u64) -> f64 {
    (successes as f64 + 1.0) / ((successes + failures) as f64 + 2.0)
}

/// "3 of 4 runs succeeded"; "1 run, it failed"; "no runs counted yet".
pub fn runs_in_words(successes: u64, failures: u64) -> String {
    match successes + failures {
        0 => "no runs counted yet".into(),
        1 if successes == 1 => "1 of 1 run succeeded".into(),
        1 => "0 of 1 run succeeded".into(),
        n => format!("{successes} of {n} runs succeeded"),
    }
}

/// Whether a procedure has mostly failed: more failures than successes over
/// at least two runs.
pub fn mostly_failed(doc: &IndexedDoc) -> bool {
    doc.successes + doc.failures >= 2 && doc.failures > doc.successes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_starts_even_and_follows_the_runs() {
        assert_eq!(success_rate(0, 0), 0.5);
        assert!(success_rate(3, 0) > success_rate(1, 0));
        assert!(success_rate(3, 1) > success_rate(1, 3));
        assert!(success_rate(0, 4) < 0.25);
        assert_eq!(runs_in_words(3, 1), "3 of 4 runs succeeded");
        assert_eq!(runs_in_words(0, 1), "0 of 1 run succeeded");
        assert_eq!(runs_in_words(0, 0), "no runs counted yet");
    }
}

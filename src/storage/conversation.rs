//! Conversations in the index: what recall reads around a record.
//!
//! A session (the records captured with one `session`) is also read as one
//! document, the text of all its records: [`session_scores`] ranks sessions by
//! BM25 over the same analyzed terms as records, from the postings of the
//! query's terms, with no second index to keep in step. [`turn_order`] lists
//! the records of some sessions in the order they were said, for the context
//! of a turn. [`named_entities`] tells which people or subjects a query names:
//! the speakers the index keeps (see [`crate::storage::record::speaker_of`])
//! and the subjects.

use std::collections::HashMap;

use tantivy::postings::Postings;
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, TERMINATED, Term};

use crate::error::Result;
use crate::storage::index::{TextIndex, ordinal_names};

/// BM25's term-frequency saturation and length normalisation, as tantivy's.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// BM25 of every session that holds a term of `text`, each session taken as
/// one document made of its live records' content. Records with no session
/// belong to none.
pub fn session_scores(index: &TextIndex, text: &str) -> Result<HashMap<String, f32>> {
    let terms = index.analyze(text);
    if terms.is_empty() {
        return Ok(HashMap::new());
    }
    let content = index.fields().content;
    let searcher = index.searcher();
    // Per session (by name, across segments): its length in tokens and the
    // frequency of each query term in it.
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut length: Vec<f32> = Vec::new();
    let mut freq: Vec<Vec<f32>> = Vec::new();
    for segment in searcher.segment_readers() {
        let Some(sessions) = segment.fast_fields().str("session")? else {
            continue;
        };
        let norms = segment.get_fieldnorms_reader(content)?;
        let alive = segment.alive_bitset();
        // Ordinal in this segment's column → index into the vectors above.
        let mut slot: Vec<usize> = Vec::with_capacity(sessions.num_terms());
        let mut stream = sessions
            .dictionary()
            .stream()
            .map_err(tantivy::TantivyError::from)?;
        while stream.advance() {
            let name = String::from_utf8_lossy(stream.key()).into_owned();
            let next = names.len();
            let s = *names.entry(name).or_insert(next);
            if s == next {
                length.push(0.0);
                freq.push(vec![0.0; terms.len()]);
            }
            slot.push(s);
        }
        for doc in 0..segment.max_doc() {
            if alive.is_some_and(|a| a.is_deleted(doc)) {
                continue;
            }
            if let Some(ord) = sessions.term_ords(doc).next() {
                length[slot[ord as usize]] += norms.fieldnorm(doc) as f32;
            }
        }
        for (t, term) in terms.iter().enumerate() {
            let term = Term::from_field_text(content, term);
            for_each_live_posting(segment, &term, |doc, tf| {
                if let Some(ord) = sessions.term_ords(doc).next() {
                    freq[slot[ord as usize]][t] += tf as f32;
                }
            })?;
        }
    }
    let n = length.iter().filter(|l| **l > 0.0).count() as f32;
    if n == 0.0 {
        return Ok(HashMap::new());
    }
    let average = length.iter().sum::<f32>() / n;
    let idf: Vec<f32> = (0..terms.len())
        .map(|t| {
            let df = freq.iter().filter(|f| f[t] > 0.0).count() as f32;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let mut scores = HashMap::new();
    for (name, s) in names {
        let norm = K1 * (1.0 - B + B * length[s] / average.max(1.0));
        let score: f32 = freq[s]
            .iter()
            .zip(&idf)
            .filter(|(f, _)| **f > 0.0)
            .map(|(f, idf)| idf * f * (K1 + 1.0) / (f + norm))
            .sum();
        if score > 0.0 {
            scores.insert(name, score);
        }
    }
    Ok(scores)
}

/// The sessions of some records, each as its live records in the order they
/// were said (by `created`, then id, which sorts by time within a second).
#[derive(Debug, Default)]
pub struct TurnOrder {
    pub sessions: Vec<Vec<DocAddress>>,
    /// Where each record is: its session in `sessions`, then its turn.
    pub position: HashMap<DocAddress, (usize, usize)>,
}

impl TurnOrder {
    /// The record `offset` turns away from `addr` in its session.
    pub fn near(&self, addr: DocAddress, offset: isize) -> Option<DocAddress> {
        let (s, i) = self.position.get(&addr)?;
        self.sessions[*s]
            .get(i.checked_add_signed(offset)?)
            .copied()
    }
}

/// A session with more records than this is not put in order: reading it
/// costs a column lookup per record, on every recall.
pub const MAX_ORDERED_SESSION: usize = 5_000;

/// The [`TurnOrder`] of the sessions of the records `around`: every live
/// record of those sessions, whatever a query filters, since the turn before
/// a turn is the one that was said before it. Each session's records come
/// from the postings of its term; strings are read from the columns in
/// batches, each block of a dictionary decoded once, and ids only to order
/// records of one second that sit in different segments.
pub fn turn_order(index: &TextIndex, around: &[DocAddress]) -> Result<TurnOrder> {
    let searcher = index.searcher();
    let mut names: Vec<String> = index
        .column_strings(around, "session")?
        .into_iter()
        .flatten()
        .collect();
    names.sort();
    names.dedup();
    let field = index.fields().session;
    // (created, segment, id ordinal, document) of each record, per session.
    let mut turns: Vec<Vec<Turn>> = vec![Vec::new(); names.len()];
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let ord = ord as u32;
        let fast = segment.fast_fields();
        let (created, ids) = (fast.i64("created")?, fast.str("id")?);
        for (s, name) in names.iter().enumerate() {
            let term = Term::from_field_text(field, name);
            for_each_live_posting(segment, &term, |doc, _| {
                let when = created.first(doc).unwrap_or(0);
                let id = ids
                    .as_ref()
                    .and_then(|c| c.term_ords(doc).next())
                    .unwrap_or(0);
                turns[s].push((when, ord, id, DocAddress::new(ord, doc)));
            })?;
        }
    }
    turns.retain(|t| !t.is_empty() && t.len() <= MAX_ORDERED_SESSION);
    for session in &mut turns {
        session.sort_unstable();
    }
    order_ties_by_id(&searcher, &mut turns)?;
    let mut order = TurnOrder::default();
    for session in turns {
        let s = order.sessions.len();
        for (i, turn) in session.iter().enumerate() {
            order.position.insert(turn.3, (s, i));
        }
        order
            .sessions
            .push(session.into_iter().map(|t| t.3).collect());
    }
    Ok(order)
}

/// Calls `f(doc, term frequency)` for each live document of the segment that
/// holds `term`.
fn for_each_live_posting(
    segment: &tantivy::SegmentReader,
    term: &Term,
    mut f: impl FnMut(tantivy::DocId, u32),
) -> Result<()> {
    let inverted = segment.inverted_index(term.field())?;
    let Some(mut postings) = inverted
        .read_postings(term, IndexRecordOption::WithFreqs)
        .map_err(tantivy::TantivyError::from)?
    else {
        return Ok(());
    };
    let alive = segment.alive_bitset();
    let mut doc = postings.doc();
    while doc != TERMINATED {
        if !alive.is_some_and(|a| a.is_deleted(doc)) {
            f(doc, postings.term_freq());
        }
        doc = postings.advance();
    }
    Ok(())
}

/// One record in a session: created, segment, id ordinal, address.
type Turn = (i64, u32, u64, DocAddress);

/// Puts records of one second that sit in different segments in id order
/// (ids sort by time within the second); within a segment, id ordinals
/// already sort as the ids do. The ids needed are read in one batch per
/// segment.
fn order_ties_by_id(searcher: &tantivy::Searcher, sessions: &mut [Vec<Turn>]) -> Result<()> {
    let spans_segments = |run: &[Turn]| run.iter().any(|t| t.1 != run[0].1);
    let mut wanted: HashMap<u32, Vec<u64>> = HashMap::new();
    for session in sessions.iter() {
        for run in session.chunk_by(|a, b| a.0 == b.0) {
            if spans_segments(run) {
                for t in run {
                    wanted.entry(t.1).or_default().push(t.2);
                }
            }
        }
    }
    let mut ids: HashMap<(u32, u64), String> = HashMap::new();
    for (segment, mut ords) in wanted {
        if let Some(column) = searcher.segment_reader(segment).fast_fields().str("id")? {
            for (ord, id) in ordinal_names(&column, &mut ords)? {
                ids.insert((segment, ord), id);
            }
        }
    }
    if ids.is_empty() {
        return Ok(());
    }
    for session in sessions.iter_mut() {
        for run in session.chunk_by_mut(|a, b| a.0 == b.0) {
            if spans_segments(run) {
                run.sort_by(|a, b| ids.get(&(a.1, a.2)).cmp(&ids.get(&(b.1, b.2))));
            }
        }
    }
    Ok(())
}

/// The people and subjects the vault knows that `text` names: every run of
/// one to three of its words that is some record's speaker (words joined by
/// spaces) or subject (joined by hyphens, as subjects are written), with a
/// possessive "'s" dropped; and `user`, the subject of the speaker's own
/// facts, when the text says "I", "me", "my", "mine" or "myself". Lowercase.
pub fn named_entities(index: &TextIndex, text: &str) -> Result<Vec<String>> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-'))
        .map(|w| {
            let w = w.to_lowercase();
            let w = w.trim_matches(|c| c == '\'' || c == '’' || c == '-');
            w.strip_suffix("'s")
                .or_else(|| w.strip_suffix("’s"))
                .unwrap_or(w)
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let fields = index.fields();
    let searcher = index.searcher();
    let known = |field, value: &str| -> Result<bool> {
        let term = Term::from_field_text(field, value);
        for segment in searcher.segment_readers() {
            let terms = segment.inverted_index(field)?;
            if terms.doc_freq(&term).map_err(tantivy::TantivyError::from)? > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    };
    let mut found: Vec<String> = Vec::new();
    let first_person = ["i", "me", "my", "mine", "myself"];
    if words.iter().any(|w| first_person.contains(&w.as_str())) && known(fields.subject, "user")? {
        found.push("user".into());
    }
    for len in (1..=3).rev() {
        for run in words.windows(len) {
            let spoken = run.join(" ");
            let subject = run.join("-");
            for (field, name) in [(fields.speaker, &spoken), (fields.subject, &subject)] {
                if !found.contains(name) && known(field, name)? {
                    found.push(name.clone());
                }
            }
        }
    }
    Ok(found)
}

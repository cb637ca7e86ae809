//! Recall: find the records that answer a query.
//!
//! BM25 candidates from the index and cosine candidates from the vector file —
//! both restricted by the same filter inside the index — are fused. A
//! conversation is read as one: a BM25 score gains from the turns around it in
//! its session, and each candidate from its session's score as one document
//! and from naming who the query names (`storage::conversation`). Candidates
//! are then re-scored with recency, importance and confidence from the index
//! columns, and only the records shown are read from the store. With no query,
//! records are listed by salience (importance × recency). Every part of a
//! score is kept for `--explain`.

pub mod context;
pub mod fusion;
pub mod transcript;

use std::collections::HashMap;

use tantivy::DocAddress;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::storage::conversation;
use crate::storage::index::{Filter, IndexedDoc, RankingColumns, VectorKeys};
use crate::storage::store::Store;
use crate::storage::vectors::VectorFile;

/// Which retrievers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Hybrid,
    Bm25,
    Vector,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "hybrid" => Ok(Mode::Hybrid),
            "bm25" => Ok(Mode::Bm25),
            "vector" => Ok(Mode::Vector),
            other => Err(format!(
                "unknown mode '{other}'; use hybrid, bm25 or vector"
            )),
        }
    }
}

/// A recall request.
#[derive(Debug, Clone)]
pub struct RecallRequest {
    pub query: Option<String>,
    pub filter: Filter,
    pub k: usize,
    pub mode: Mode,
    pub now: Timestamp,
    /// Show a statement kept in several tiers once (the most stable tier).
    pub one_per_statement: bool,
    /// The least cosine for a result that matches no query word; `None`:
    /// `recall.min_cosine` of the config.
    pub min_cosine: Option<f64>,
}

/// The parts of one hit's score.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ScoreParts {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_rank: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_rank: Option<usize>,
    /// Fused relevance, scaled so the best candidate has 1.
    pub relevance: f64,
    pub recency: f64,
    pub importance: f64,
    pub confidence: f64,
    pub fusion: &'static str,
    /// The record's session's BM25 score as one document, the best 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<f64>,
    /// The person or subject named by the query that said or is the record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// A procedure's success rate over its counted runs: its BM25 and cosine
    /// scores (or its salience) were multiplied by 0.5 plus it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_rate: Option<f64>,
}

/// One result.
#[derive(Debug, Clone)]
pub struct Hit {
    pub doc: IndexedDoc,
    pub score: f64,
    pub parts: ScoreParts,
}

/// The results, and warnings (a model that failed, a fallback taken).
#[derive(Debug, Clone, Default)]
pub struct RecallOutcome {
    pub hits: Vec<Hit>,
    pub warnings: Vec<String>,
    /// The mode that actually ran.
    pub mode_used: Option<Mode>,
}

/// Runs a recall against an up-to-date store.
pub fn recall(store: &Store, request: &RecallRequest) -> Result<RecallOutcome> {
    // More results than records is all of them; a larger k (2^64 - 1 from a
    // script) would only overflow the pool sizes derived from it.
    let records = usize::try_from(store.index().num_docs()).unwrap_or(usize::MAX);
    if request.k > records.max(1) {
        let all = RecallRequest {
            k: records.max(1),
            ..request.clone()
        };
        return recall(store, &all);
    }
    let cfg = &store.vault().config().recall;
    let query = request
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty());
    let Some(query) = query else {
        return list_by_salience(store, request);
    };
    let mut outcome = RecallOutcome::default();
    let candidates = cfg.candidates.max(request.k);
    let mode = match (request.mode, store.embedder()) {
        (Mode::Vector, None) => {
            return Err(Error::Input(
                "--mode vector needs an embedder, and embedder.provider is none in .engram/config.yaml; remove that line for the built-in one, or set ENGRAM_EMBED_URL for an OpenAI-compatible endpoint".into(),
            ));
        }
        (Mode::Hybrid, None) => Mode::Bm25,
        (mode, _) => mode,
    };
    let index = store.index();
    // The cosine scan (the embedder's first use and a pass over every vector
    // row) runs on a thread of its own while BM25 ranks on this one.
    let (bm25, cosine) = std::thread::scope(|scope| {
        let cosine = (mode != Mode::Bm25)
            .then(|| scope.spawn(|| vector_candidates(store, query, &request.filter, candidates)));
        let bm25 = if mode == Mode::Vector {
            Ok(Vec::new())
        } else {
            bm25_candidates(store, query, request, candidates)
        };
        let cosine = cosine.map(|h| h.join().expect("the vector scan panicked"));
        (bm25, cosine)
    });
    let mut bm25 = bm25?;
    let mut cosine_hits: Vec<(DocAddress, f32)> = Vec::new();
    let mut mode_used = mode;
    // Session context is for BM25 only: cosine is positive for nearly every
    // pair, so propagating it lifts every turn that has a predecessor
    // (measured on LoCoMo: hybrid R@5 fell from 0.59 to 0.50).
    match cosine {
        None => {}
        Some(Ok(c)) => cosine_hits = c,
        Some(Err(e)) if mode == Mode::Hybrid => {
            outcome
                .warnings
                .push(format!("{e}; recall used BM25 alone"));
            mode_used = Mode::Bm25;
        }
        Some(Err(e)) => return Err(e),
    }
    // A procedure's match counts as much as its runs went well, in each
    // list before fusion (after it, a min-max scale would leave a close
    // second with no relevance to weigh).
    let mut rates = with_success_rates(index, &mut bm25)?;
    rates.extend(with_success_rates(index, &mut cosine_hits)?);
    let cosine = cosine_hits;
    let (fused, fusion_name) = match (mode_used, cfg.fusion.as_str()) {
        (Mode::Bm25, _) => (fusion::weighted(&[&bm25], &[1.0]), "bm25"),
        (Mode::Vector, _) => (fusion::weighted(&[&cosine], &[1.0]), "cosine"),
        (Mode::Hybrid, "weighted") => (
            fusion::weighted(&[&bm25, &cosine], &[cfg.bm25_weight, 1.0 - cfg.bm25_weight]),
            "weighted",
        ),
        (Mode::Hybrid, _) => (fusion::reciprocal_rank(&[&bm25, &cosine], cfg.rrf_k), "rrf"),
    };
    let rank_of = |list: &[(DocAddress, f32)]| -> HashMap<DocAddress, (usize, f32)> {
        list.iter()
            .enumerate()
            .map(|(i, (a, s))| (*a, (i + 1, *s)))
            .collect()
    };
    let bm25_ranks = rank_of(&bm25);
    let cos_ranks = rank_of(&cosine);
    let mut scored: Vec<(DocAddress, f64, ScoreParts)> = Vec::with_capacity(fused.len());
    for (addr, score) in fused {
        let mut parts = ScoreParts {
            fusion: fusion_name,
            ..ScoreParts::default()
        };
        if let Some((rank, s)) = bm25_ranks.get(&addr) {
            parts.bm25 = Some(*s);
            parts.bm25_rank = Some(*rank);
        }
        if let Some((rank, s)) = cos_ranks.get(&addr) {
            parts.cosine = Some(*s);
            parts.vector_rank = Some(*rank);
        }
        parts.success_rate = rates.get(&addr).copied();
        let min_cosine = request.min_cosine.unwrap_or(cfg.min_cosine);
        if parts.bm25.is_none() && parts.cosine.is_none_or(|c| f64::from(c) < min_cosine) {
            continue;
        }
        scored.push((addr, score, parts));
    }
    // Ranked from the columns; only what is shown is read from the store.
    let addrs: Vec<DocAddress> = scored.iter().map(|s| s.0).collect();
    let columns = index.ranking_columns(&addrs)?;
    let conversation = Conversation::of_query(store, query, cfg)?;
    for ((_, score, parts), c) in scored.iter_mut().zip(&columns) {
        conversation.lift(c, score, parts);
    }
    let best = scored.iter().map(|s| s.1).fold(0.0_f64, f64::max);
    let mut ranked: Vec<(f64, DocAddress, ScoreParts)> = scored
        .into_iter()
        .zip(&columns)
        .map(|((addr, score, mut parts), c)| {
            parts.relevance = if best > 0.0 { score / best } else { 0.0 };
            let score = final_score(
                &mut parts,
                c.created,
                c.importance,
                c.confidence,
                request.now,
                cfg,
            );
            (score, addr, parts)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    outcome.hits = fetch_best(store, ranked, request.k, request.one_per_statement)?;
    outcome.mode_used = Some(mode_used);
    Ok(outcome)
}

/// The `k` best of `ranked` (best first) as hits: documents are read from the
/// store a few more than `k` at a time, with every candidate tied with the
/// last one read, until `k` are left once a statement kept in several tiers
/// is shown once.
fn fetch_best(
    store: &Store,
    ranked: Vec<(f64, DocAddress, ScoreParts)>,
    k: usize,
    one_per_statement: bool,
) -> Result<Vec<Hit>> {
    let mut hits: Vec<Hit> = Vec::new();
    let mut read = 0;
    let mut want = k + 8;
    loop {
        let mut end = want.min(ranked.len());
        while end > 0 && end < ranked.len() && ranked[end].0 == ranked[end - 1].0 {
            end += 1;
        }
        for (score, addr, parts) in &ranked[read..end] {
            hits.push(Hit {
                doc: store.index().fetch(*addr)?,
                score: *score,
                parts: parts.clone(),
            });
        }
        read = end;
        let mut shown = hits.clone();
        sort_and_truncate(&mut shown, k, one_per_statement);
        if shown.len() >= k || read == ranked.len() {
            return Ok(shown);
        }
        want = read + 2 * (k - shown.len()) + 8;
    }
}

/// The BM25 candidates, each lifted by the BM25 scores of the turns around
/// it in its session (a turn like "Yes, last week!" is found through the
/// question it answers).
fn bm25_candidates(
    store: &Store,
    query: &str,
    request: &RecallRequest,
    candidates: usize,
) -> Result<Vec<(DocAddress, f32)>> {
    let cfg = &store.vault().config().recall;
    let before = cfg.context_before.iter().zip(1..).map(|(w, i)| (-i, *w));
    let after = cfg.context_after.iter().zip(1..).map(|(w, i)| (i, *w));
    let window: Vec<(isize, f32)> = before
        .chain(after)
        .filter(|(_, w)| *w > 0.0)
        .map(|(o, w)| (o, w as f32))
        .collect();
    let pool = if window.is_empty() {
        candidates
    } else {
        candidates * 4
    };
    let mut list: Vec<(DocAddress, f32)> = store
        .index()
        .search(query, &request.filter, pool)?
        .into_iter()
        .map(|(s, a)| (a, s))
        .collect();
    if !window.is_empty() {
        list = with_context(store, &list, &window)?;
    }
    list.truncate(candidates);
    Ok(list)
}

/// Adds to each score, for each `(offset, weight)` of the window, `weight`
/// times the score in `list` of the record `offset` turns away in the same
/// session (0 when it is not in the list); best first.
fn with_context(
    store: &Store,
    list: &[(DocAddress, f32)],
    window: &[(isize, f32)],
) -> Result<Vec<(DocAddress, f32)>> {
    let scores: HashMap<DocAddress, f32> = list.iter().copied().collect();
    let around: Vec<DocAddress> = list.iter().map(|(a, _)| *a).collect();
    let order = conversation::turn_order(store.index(), &around)?;
    let mut lifted: Vec<(DocAddress, f32)> = list
        .iter()
        .map(|(addr, score)| {
            let extra: f32 = window
                .iter()
                .filter_map(|(offset, weight)| {
                    let near = order.near(*addr, *offset)?;
                    Some(weight * scores.get(&near).copied().unwrap_or(0.0))
                })
                .sum();
            (*addr, score + extra)
        })
        .collect();
    lifted.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(lifted)
}

/// What a query says about the conversation it asks of: which sessions match
/// it as a whole, and which people or subjects it names.
struct Conversation {
    /// Each matching session's BM25 score, the best scaled to 1.
    sessions: HashMap<String, f64>,
    entities: Vec<String>,
    session_weight: f64,
    entity_weight: f64,
}

impl Conversation {
    fn of_query(store: &Store, query: &str, cfg: &crate::config::RecallConfig) -> Result<Self> {
        let index = store.index();
        let (session_weight, entity_weight) = (cfg.session_weight, cfg.entity_weight);
        let mut sessions = HashMap::new();
        if session_weight > 0.0 {
            let raw = conversation::session_scores(index, query)?;
            let best = raw.values().copied().fold(0.0_f32, f32::max);
            if best > 0.0 {
                sessions = raw
                    .into_iter()
                    .map(|(s, v)| (s, f64::from(v / best)))
                    .collect();
            }
        }
        let entities = if entity_weight > 0.0 {
            conversation::named_entities(index, query)?
        } else {
            Vec::new()
        };
        Ok(Conversation {
            sessions,
            entities,
            session_weight,
            entity_weight,
        })
    }

    /// Adds the record's share of its session's score, and the entity lift
    /// when it is said by, or about, someone the query names.
    fn lift(&self, doc: &RankingColumns, score: &mut f64, parts: &mut ScoreParts) {
        if let Some(s) = doc.session.as_ref().and_then(|s| self.sessions.get(s)) {
            parts.session = Some(*s);
            *score += self.session_weight * s;
        }
        let named = self.entities.iter().find(|e| {
            doc.speaker.as_deref() == Some(e.as_str()) || doc.subject.as_deref() == Some(e.as_str())
        });
        if let Some(e) = named {
            parts.entity = Some(e.clone());
            *score *= 1.0 + self.entity_weight;
        }
    }
}

fn vector_candidates(
    store: &Store,
    query: &str,
    filter: &Filter,
    limit: usize,
) -> Result<Vec<(DocAddress, f32)>> {
    let embedder = store.embedder().expect("checked by the caller");
    let Some(file) = VectorFile::open(&store.vault().vectors_path())? else {
        return Ok(Vec::new());
    };
    if file.header().embedder != embedder.name() {
        return Err(Error::Index(format!(
            "the vectors were made by {} but the embedder is {}; `engram sync` re-embeds",
            file.header().embedder,
            embedder.name()
        )));
    }
    let vector = embedder
        .embed(&[query.to_string()])?
        .pop()
        .ok_or_else(|| Error::Index("the embedder returned no vector".into()))?;
    // Else the best rows first, then which of them are live and pass the
    // filter; only when too few do, every live key is listed and the scan
    // repeated.
    let m = (limit * 2).max(64);
    let hits = |top: &[(f32, u64, u64)], live: &VectorKeys| -> Vec<(DocAddress, f32)> {
        top.iter()
            .filter_map(|(score, key, ckey)| {
                live.get(key)
                    .filter(|(_, c)| c == ckey)
                    .map(|(a, _)| (*a, *score))
            })
            .take(limit)
            .collect()
    };
    // A filter that keeps a small part of the vault (one small tier, one
    // session) lists its keys and scans only their rows; one that names no
    // part is not counted at all.
    if filter.names_a_part() && store.index().count(filter)?.saturating_mul(4) < file.len() {
        let live = store.index().vector_keys(filter)?;
        let top = file.top(&vector, limit, |k, c| {
            live.get(&k).is_some_and(|(_, ckey)| *ckey == c)
        });
        return Ok(hits(&top, &live));
    }
    let top = file.top(&vector, m, |_, _| true);
    let keys: Vec<u64> = top.iter().map(|t| t.1).collect();
    let first = hits(&top, &store.index().vector_docs(filter, &keys)?);
    if first.len() >= limit || top.len() < m {
        return Ok(first);
    }
    let live = store.index().vector_keys(filter)?;
    let top = file.top(&vector, limit, |k, c| {
        live.get(&k).is_some_and(|(_, ckey)| *ckey == c)
    });
    Ok(hits(&top, &live))
}

fn list_by_salience(store: &Store, request: &RecallRequest) -> Result<RecallOutcome> {
    let config = store.vault().config();
    let cfg = &config.recall;
    let pool = request.k.saturating_mul(5).max(200);
    let docs = store.index().fetch_newest(&request.filter, pool)?;
    // A working entry's salience decays with the turns its session has taken
    // since it came in (SPEC: Tiers); other records weigh by importance.
    let mut latest_turn: HashMap<&str, u64> = HashMap::new();
    for d in docs.iter().filter(|d| d.kind == "working") {
        let t = latest_turn
            .entry(d.session.as_deref().unwrap_or(""))
            .or_insert(0);
        *t = (*t).max(d.turn.unwrap_or(0));
    }
    let salience = |d: &IndexedDoc| match d.kind.as_str() {
        "working" => {
            let now_turn = latest_turn
                .get(d.session.as_deref().unwrap_or(""))
                .copied()
                .unwrap_or(0);
            crate::memory::working::salience(&config.working, d, now_turn)
        }
        _ => d.importance.unwrap_or(0.5),
    };
    let mut hits = Vec::new();
    for doc in docs.iter().cloned() {
        let rate = success_rate(doc.successes, doc.failures);
        let mut parts = ScoreParts {
            relevance: salience(&doc) * rate.map_or(1.0, |r| 0.5 + r),
            fusion: "salience",
            success_rate: rate,
            ..ScoreParts::default()
        };
        let score = final_score(
            &mut parts,
            doc.created,
            doc.importance,
            doc.confidence,
            request.now,
            cfg,
        );
        hits.push(Hit { doc, score, parts });
    }
    sort_and_truncate(&mut hits, request.k, request.one_per_statement);
    Ok(RecallOutcome {
        hits,
        warnings: Vec::new(),
        mode_used: None,
    })
}

/// A procedure's success rate, when it has counted runs.
fn success_rate(successes: u64, failures: u64) -> Option<f64> {
    (successes + failures > 0).then(|| crate::memory::outcome::success_rate(successes, failures))
}

/// Scales each candidate's score by 0.5 plus its success rate (1 for a record
/// with no counted runs) and sorts the list again; returns the rates.
fn with_success_rates(
    index: &crate::storage::index::TextIndex,
    list: &mut [(DocAddress, f32)],
) -> Result<HashMap<DocAddress, f64>> {
    let addrs: Vec<DocAddress> = list.iter().map(|(a, _)| *a).collect();
    let mut rates = HashMap::new();
    for ((addr, score), (s, f)) in list.iter_mut().zip(index.runs(&addrs)?) {
        if let Some(rate) = success_rate(s, f) {
            rates.insert(*addr, rate);
            if *score > 0.0 {
                *score *= (0.5 + rate) as f32;
            }
        }
    }
    if !rates.is_empty() {
        list.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    Ok(rates)
}

/// The final score: `relevance` mixed with recency, importance and
/// confidence by the configured shares, each part kept in `parts`.
fn final_score(
    parts: &mut ScoreParts,
    created: Timestamp,
    importance: Option<f64>,
    confidence: Option<f64>,
    now: Timestamp,
    cfg: &crate::config::RecallConfig,
) -> f64 {
    let age_days = (now - created).num_seconds().max(0) as f64 / 86_400.0;
    parts.recency = 0.5_f64.powf(age_days / cfg.recency_half_life_days.max(1e-6));
    parts.importance = importance.unwrap_or(0.5);
    parts.confidence = confidence.unwrap_or(0.5);
    let w = cfg.recency_weight + cfg.importance_weight + cfg.confidence_weight;
    (1.0 - w) * parts.relevance
        + cfg.recency_weight * parts.recency
        + cfg.importance_weight * parts.importance
        + cfg.confidence_weight * parts.confidence
}

/// Best first; among equals the more stable tier, then the newer record. One
/// statement kept in several tiers (the working entry, the episode and the fact
/// that capture wrote for it) is shown once, from the most stable tier; equal
/// texts within one tier (two turns that both said "Thanks!") all stay.
fn sort_and_truncate(hits: &mut Vec<Hit>, k: usize, one_per_statement: bool) {
    let tier = |kind: &str| match kind {
        "semantic" => 0,
        "procedural" => 1,
        "episodic" => 2,
        _ => 3,
    };
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(tier(&a.doc.kind).cmp(&tier(&b.doc.kind)))
            .then(b.doc.created.cmp(&a.doc.created))
            .then(a.doc.id.cmp(&b.doc.id))
    });
    let mut shown: HashMap<String, String> = HashMap::new();
    hits.retain(|h| {
        if !one_per_statement {
            return true;
        }
        let key = crate::models::rules::norm(&h.doc.content);
        match shown.get(&key) {
            Some(kind) if *kind != h.doc.kind => false,
            Some(_) => true,
            None => {
                shown.insert(key, h.doc.kind.clone());
                true
            }
        }
    });
    hits.truncate(k);
}

//! Recall: find the records that answer a query.
//!
//! BM25 candidates from the index and cosine candidates from the vector file —
//! both restricted by the same filter inside the index — are fused, then
//! re-scored with recency, importance and confidence. With no query, records are
//! listed by salience (importance × recency). Every part of a score is kept for
//! `--explain`.

pub mod fusion;

use std::collections::HashMap;

use tantivy::DocAddress;

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::storage::index::{Filter, IndexedDoc, VectorKeys};
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
    let mut predecessors = Predecessors::new(store, &request.filter);
    // The cosine scan (the embedder's first use and a pass over every vector
    // row) runs on a thread of its own while BM25 ranks on this one.
    let (bm25, cosine) = std::thread::scope(|scope| {
        let cosine = (mode != Mode::Bm25)
            .then(|| scope.spawn(|| vector_candidates(store, query, &request.filter, candidates)));
        let bm25 = if mode == Mode::Vector {
            Ok(Vec::new())
        } else {
            bm25_candidates(store, query, request, candidates, &mut predecessors)
        };
        let cosine = cosine.map(|h| h.join().expect("the vector scan panicked"));
        (bm25, cosine)
    });
    let bm25 = bm25?;
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
    let best = fused.values().cloned().fold(0.0_f64, f64::max);
    let rank_of = |list: &[(DocAddress, f32)]| -> HashMap<DocAddress, (usize, f32)> {
        list.iter()
            .enumerate()
            .map(|(i, (a, s))| (*a, (i + 1, *s)))
            .collect()
    };
    let bm25_ranks = rank_of(&bm25);
    let cos_ranks = rank_of(&cosine);
    let mut hits = Vec::with_capacity(fused.len());
    for (addr, score) in fused {
        let doc = index.fetch(addr)?;
        let mut parts = ScoreParts {
            relevance: if best > 0.0 { score / best } else { 0.0 },
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
        if parts.bm25.is_none() && parts.cosine.is_none_or(|c| f64::from(c) < cfg.min_cosine) {
            continue;
        }
        hits.push(rescore(doc, parts, request.now, cfg));
    }
    sort_and_truncate(&mut hits, request.k, request.one_per_statement);
    outcome.hits = hits;
    outcome.mode_used = Some(mode_used);
    Ok(outcome)
}

/// The BM25 candidates, lifted by their session context when configured.
fn bm25_candidates(
    store: &Store,
    query: &str,
    request: &RecallRequest,
    candidates: usize,
    predecessors: &mut Predecessors,
) -> Result<Vec<(DocAddress, f32)>> {
    let cfg = &store.vault().config().recall;
    let pool = if cfg.context_weight > 0.0 {
        candidates * 4
    } else {
        candidates
    };
    let mut list: Vec<(DocAddress, f32)> = store
        .index()
        .search(query, &request.filter, pool)?
        .into_iter()
        .map(|(s, a)| (a, s))
        .collect();
    if cfg.context_weight > 0.0 {
        let scores: HashMap<DocAddress, f32> = list.iter().copied().collect();
        list = predecessors.boost(&list, &scores, cfg.context_weight as f32)?;
    }
    list.truncate(candidates);
    Ok(list)
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
    // The best rows first, then which of them are live and pass the filter;
    // only when too few do, every live key is listed and the scan repeated.
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

/// The record just before each record in its session (same filter), looked up
/// once per record.
struct Predecessors<'a> {
    store: &'a Store,
    filter: &'a Filter,
    memo: HashMap<DocAddress, Option<DocAddress>>,
}

impl<'a> Predecessors<'a> {
    fn new(store: &'a Store, filter: &'a Filter) -> Self {
        Predecessors {
            store,
            filter,
            memo: HashMap::new(),
        }
    }

    fn of(&mut self, addr: DocAddress) -> Result<Option<DocAddress>> {
        if let Some(known) = self.memo.get(&addr) {
            return Ok(*known);
        }
        let index = self.store.index();
        let prev = match index.session_and_created(addr)? {
            Some((session, created)) => {
                let before = Filter {
                    session: Some(session),
                    until: Some(created - chrono::Duration::seconds(1)),
                    ..self.filter.clone()
                };
                index.newest(&before, 1)?.first().copied()
            }
            None => None,
        };
        self.memo.insert(addr, prev);
        Ok(prev)
    }

    /// Adds to each score `weight` times its predecessor's score in `scores`
    /// (0 when unknown), best first. A turn like "Yes, last week!" is found
    /// through the question it answers.
    fn boost(
        &mut self,
        list: &[(DocAddress, f32)],
        scores: &HashMap<DocAddress, f32>,
        weight: f32,
    ) -> Result<Vec<(DocAddress, f32)>> {
        let mut boosted = Vec::with_capacity(list.len());
        for (addr, score) in list {
            let prev = self.of(*addr)?;
            let extra = prev.and_then(|p| scores.get(&p)).copied().unwrap_or(0.0);
            boosted.push((*addr, score + weight * extra));
        }
        boosted.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(boosted)
    }
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
        let parts = ScoreParts {
            relevance: salience(&doc),
            fusion: "salience",
            ..ScoreParts::default()
        };
        hits.push(rescore(doc, parts, request.now, cfg));
    }
    sort_and_truncate(&mut hits, request.k, request.one_per_statement);
    Ok(RecallOutcome {
        hits,
        warnings: Vec::new(),
        mode_used: None,
    })
}

fn rescore(
    doc: IndexedDoc,
    mut parts: ScoreParts,
    now: Timestamp,
    cfg: &crate::config::RecallConfig,
) -> Hit {
    let age_days = (now - doc.created).num_seconds().max(0) as f64 / 86_400.0;
    parts.recency = 0.5_f64.powf(age_days / cfg.recency_half_life_days.max(1e-6));
    parts.importance = doc.importance.unwrap_or(0.5);
    parts.confidence = doc.confidence.unwrap_or(0.5);
    let w = cfg.recency_weight + cfg.importance_weight + cfg.confidence_weight;
    let score = (1.0 - w) * parts.relevance
        + cfg.recency_weight * parts.recency
        + cfg.importance_weight * parts.importance
        + cfg.confidence_weight * parts.confidence;
    Hit { doc, score, parts }
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

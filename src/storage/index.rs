//! The full-text index: a disposable tantivy cache of the vault's records.
//!
//! This module owns the schema (every field is declared in [`Fields`]), the
//! English analyzer, and every query: text search with BM25 and the exact
//! filters of `recall` (scope, kind, subject, category, tags, status and time),
//! which run inside the index query rather than by reading files. The index is
//! keyed by the record's vault-relative path: an update deletes the path term and
//! adds the new document. It holds everything `recall` prints, so a recall never
//! opens a record file.

use std::collections::HashMap;
use std::ops::Bound;
use std::path::Path;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer,
};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::clock::{Timestamp, format_time};
use crate::error::{Error, Result};
use crate::storage::index_dir::IndexDir;
use crate::storage::naming;
use crate::storage::record::{Kind, Record, Status};
use crate::storage::vault::FileStamp;
use crate::storage::vectors::content_key;

/// Bumped whenever the schema or analyzer changes; a mismatch forces a rebuild.
pub const SCHEMA_VERSION: u32 = 12;

const ANALYZER: &str = "engram_en";

/// A short English stoplist (179 words), and `user`: facts name the speaker
/// "the user" ("The user's sister lives in Osaka") as the speaker's own words
/// say "I" and "my", so the word says nothing about what a fact is.
/// Measured on LoCoMo, the list helps BM25; a longer one (318 words) hurt
/// recall.
const STOPWORDS: &[&str] = &[
    "user",
    "i",
    "me",
    "my",
    "myself",
    "we",
    "our",
    "ours",
    "ourselves",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "her",
    "hers",
    "herself",
    "it",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "what",
    "which",
    "who",
    "whom",
    "this",
    "that",
    "these",
    "those",
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "a",
    "an",
    "the",
    "and",
    "but",
    "if",
    "or",
    "because",
    "as",
    "until",
    "while",
    "of",
    "at",
    "by",
    "for",
    "with",
    "about",
    "against",
    "between",
    "into",
    "through",
    "during",
    "before",
    "after",
    "above",
    "below",
    "to",
    "from",
    "up",
    "down",
    "in",
    "out",
    "on",
    "off",
    "over",
    "under",
    "again",
    "further",
    "then",
    "once",
    "here",
    "there",
    "when",
    "where",
    "why",
    "how",
    "all",
    "any",
    "both",
    "each",
    "few",
    "more",
    "most",
    "other",
    "some",
    "such",
    "no",
    "nor",
    "not",
    "only",
    "own",
    "same",
    "so",
    "than",
    "too",
    "very",
    "s",
    "t",
    "can",
    "will",
    "just",
    "don",
    "should",
    "now",
    "d",
    "ll",
    "m",
    "o",
    "re",
    "ve",
    "y",
    "ain",
    "aren",
    "couldn",
    "didn",
    "doesn",
    "hadn",
    "hasn",
    "haven",
    "isn",
    "ma",
    "mightn",
    "mustn",
    "needn",
    "shan",
    "shouldn",
    "wasn",
    "weren",
    "won",
    "wouldn",
];

/// Every field of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub path: Field,
    pub id: Field,
    /// [`naming::short_id`] of the id: the end of the file name, found by
    /// suffix without scanning every id.
    pub short_id: Field,
    pub vkey: Field,
    pub content: Field,
    /// The words of the record's category, attribute and subject
    /// ([`crate::models::vocabulary::fact_keys`]), searched with the content
    /// at half weight.
    pub keys: Field,
    pub kind: Field,
    pub status: Field,
    pub user: Field,
    pub agent: Field,
    pub session: Field,
    /// Who says the record, when its content opens with a name
    /// ([`crate::storage::record::speaker_of`]), lowercased.
    pub speaker: Field,
    pub subject: Field,
    pub category: Field,
    pub tags: Field,
    pub meta: Field,
    pub created: Field,
    pub updated: Field,
    pub valid_from: Field,
    pub valid_to: Field,
    pub expires: Field,
    pub importance: Field,
    pub confidence: Field,
    pub supersedes: Field,
    pub superseded_by: Field,
    pub turn: Field,
    pub pinned: Field,
    pub durability: Field,
    pub role: Field,
    pub consolidated: Field,
    pub reinforced: Field,
    pub attribute: Field,
    /// A keyed fact's key (exact).
    pub key: Field,
    /// A procedure's counted runs, for ranking by success rate.
    pub successes: Field,
    pub failures: Field,
    pub last_outcome: Field,
    /// The body as said, when it is more than the content (spaces or breaks
    /// around it): a transcript gives messages back whole.
    pub verbatim: Field,
    pub invalidated_by: Field,
    pub reason: Field,
    /// The record's exact scope, [`scope_key`] of its user and agent.
    pub scope: Field,
    /// The file's size, modification time and content hash when it was
    /// indexed: the sync state lives in the index, committed with it.
    pub size: Field,
    pub mtime: Field,
    pub hash: Field,
    /// [`crate::storage::vectors::content_key`] of the content: which vector
    /// row is this document's.
    pub ckey: Field,
}

fn build_schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_stored().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let exact = STRING | STORED;
    let listed = STRING | STORED | FAST;
    let time = INDEXED | FAST | STORED;
    let fields = Fields {
        path: b.add_text_field("path", listed.clone()),
        id: b.add_text_field("id", listed.clone()),
        short_id: b.add_text_field("short_id", STRING),
        vkey: b.add_u64_field("vkey", INDEXED | FAST),
        content: b.add_text_field("content", text),
        keys: b.add_text_field(
            "keys",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(ANALYZER)
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        ),
        kind: b.add_text_field("kind", exact.clone()),
        status: b.add_text_field("status", exact.clone()),
        user: b.add_text_field("user", exact.clone()),
        agent: b.add_text_field("agent", exact.clone()),
        session: b.add_text_field("session", listed.clone()),
        speaker: b.add_text_field("speaker", STRING | FAST),
        subject: b.add_text_field("subject", listed),
        category: b.add_text_field("category", exact.clone()),
        tags: b.add_text_field("tags", exact.clone()),
        meta: b.add_text_field("meta", STORED),
        created: b.add_i64_field("created", time.clone()),
        updated: b.add_i64_field("updated", STORED),
        valid_from: b.add_i64_field("valid_from", time.clone()),
        valid_to: b.add_i64_field("valid_to", time.clone()),
        expires: b.add_i64_field("expires", time),
        importance: b.add_f64_field("importance", FAST | STORED),
        confidence: b.add_f64_field("confidence", FAST | STORED),
        supersedes: b.add_text_field("supersedes", STORED),
        superseded_by: b.add_text_field("superseded_by", STORED),
        turn: b.add_i64_field("turn", FAST | STORED),
        pinned: b.add_u64_field("pinned", STORED),
        durability: b.add_text_field("durability", STORED),
        role: b.add_text_field("role", STORED),
        consolidated: b.add_u64_field("consolidated", INDEXED | STORED),
        reinforced: b.add_u64_field("reinforced", STORED),
        attribute: b.add_text_field("attribute", exact.clone()),
        key: b.add_text_field("key", exact.clone()),
        successes: b.add_u64_field("successes", FAST | STORED),
        failures: b.add_u64_field("failures", FAST | STORED),
        last_outcome: b.add_text_field("last_outcome", STORED),
        verbatim: b.add_text_field("verbatim", STORED),
        invalidated_by: b.add_text_field("invalidated_by", STORED),
        reason: b.add_text_field("reason", STORED),
        scope: b.add_text_field("scope", STRING),
        size: b.add_u64_field("size", FAST),
        mtime: b.add_i64_field("mtime", FAST),
        hash: b.add_text_field("hash", STORED),
        ckey: b.add_u64_field("ckey", FAST),
    };
    (b.build(), fields)
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(StopWordFilter::remove(
            STOPWORDS.iter().map(|s| s.to_string()),
        ))
        .filter(Stemmer::new(Language::English))
        .build()
}

/// One term for a record's exact scope: its user and agent, either absent.
/// Records of no user are a scope of their own, never a wildcard.
pub fn scope_key(user: Option<&str>, agent: Option<&str>) -> String {
    format!("u:{}\u{1f}a:{}", user.unwrap_or(""), agent.unwrap_or(""))
}

/// The user and agent a [`scope_key`] names (`None` for an absent one).
pub fn parse_scope_key(key: &str) -> Option<(Option<String>, Option<String>)> {
    let (user, agent) = key.split_once('\u{1f}')?;
    let part = |p: &str| (!p.is_empty()).then(|| p.to_string());
    Some((
        part(user.strip_prefix("u:")?),
        part(agent.strip_prefix("a:")?),
    ))
}

/// The key that joins a record to its row in the vector file.
pub fn vector_key(id: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(id.as_bytes());
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// What the index remembers of the file behind a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedEntry {
    pub id: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: String,
    pub ckey: u64,
    pub vkey: u64,
}

/// One line of [`TextIndex::listing`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
}

/// What the index stores of a record: everything recall prints.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IndexedDoc {
    pub path: String,
    pub id: String,
    pub kind: String,
    pub content: String,
    pub status: String,
    pub created: Timestamp,
    pub updated: Option<Timestamp>,
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub subject: Option<String>,
    pub category: Option<String>,
    pub tags: Vec<String>,
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
    pub importance: Option<f64>,
    pub confidence: Option<f64>,
    pub valid_to: Option<Timestamp>,
    pub expires: Option<Timestamp>,
    pub supersedes: Option<String>,
    pub superseded_by: Option<String>,
    pub turn: Option<u64>,
    pub pinned: bool,
    pub durability: Option<String>,
    /// Who said it, for a message kept as said.
    pub role: Option<String>,
    pub consolidated: bool,
    pub reinforced: u64,
    pub attribute: Option<String>,
    pub key: Option<String>,
    pub successes: u64,
    pub failures: u64,
    pub last_outcome: Option<String>,
    /// The body as said, when spaces or breaks surround the content.
    pub verbatim: Option<String>,
    pub invalidated_by: Option<String>,
    pub reason: Option<String>,
}

/// What recall ranks a document by, read from its columns (no stored
/// document is decompressed).
#[derive(Debug, Clone, Default)]
pub struct RankingColumns {
    pub created: Timestamp,
    pub importance: Option<f64>,
    pub confidence: Option<f64>,
    pub session: Option<String>,
    pub speaker: Option<String>,
    pub subject: Option<String>,
}

/// The strings of some ordinals of a column (sorted and deduplicated in
/// place), each block of its dictionary decoded once.
pub fn ordinal_names(
    column: &tantivy::columnar::StrColumn,
    ords: &mut Vec<u64>,
) -> Result<HashMap<u64, String>> {
    ords.sort_unstable();
    ords.dedup();
    let mut names = Vec::with_capacity(ords.len());
    column
        .dictionary()
        .sorted_ords_to_term_cb(ords, |bytes| {
            names.push(String::from_utf8_lossy(bytes).into_owned())
        })
        .map_err(tantivy::TantivyError::from)?;
    Ok(ords.iter().copied().zip(names).collect())
}

/// The positions in `addrs` of each segment's documents.
fn by_segment(addrs: &[DocAddress]) -> HashMap<u32, Vec<usize>> {
    let mut out: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, a) in addrs.iter().enumerate() {
        out.entry(a.segment_ord).or_default().push(i);
    }
    out
}

/// Which records a query may return. Every part runs inside the index query.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub kinds: Vec<Kind>,
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub subject: Option<String>,
    pub category: Option<String>,
    /// Every tag listed must be present.
    pub tags: Vec<String>,
    /// Only records with this status.
    pub status: Option<Status>,
    /// Only episodes consolidation has not read yet.
    pub unconsolidated: bool,
    /// `user` and `agent` name one exact scope: `None` means "no user" (or
    /// agent), not "any". Maintenance and reconciliation read this way.
    pub exact_scope: bool,
    /// Only records stating this attribute.
    pub attribute: Option<String>,
    /// Only keyed facts of this key.
    pub key: Option<String>,
    /// Created at or after.
    pub since: Option<Timestamp>,
    /// Created at or before.
    pub until: Option<Timestamp>,
    pub validity: Validity,
}

impl Filter {
    /// Whether it names something records are filed under (a kind, an exact
    /// scope, a user, agent, session, subject, category, tag, attribute or key), beyond
    /// status and time: only then can it keep a small part of a vault.
    pub fn names_a_part(&self) -> bool {
        !self.kinds.is_empty()
            || self.exact_scope
            || !self.tags.is_empty()
            || [
                &self.user,
                &self.agent,
                &self.session,
                &self.subject,
                &self.category,
                &self.attribute,
                &self.key,
            ]
            .iter()
            .any(|v| v.is_some())
    }
}

/// Which records count as current.
#[derive(Debug, Clone, Copy, Default)]
pub enum Validity {
    /// Every record, whatever its status or time.
    #[default]
    Any,
    /// Active, not expired and not ended at this time.
    CurrentAt(Timestamp),
    /// Valid at this time by `valid_from`/`valid_to`/`expires`, whatever the status
    /// now (what `--as-of` shows: a superseded value was valid back then).
    AsOf(Timestamp),
}

/// Vector key → (document, content key). The keys are hashes already, so
/// they are used as they are.
pub type VectorKeys = HashMap<u64, (DocAddress, u64), std::hash::BuildHasherDefault<KeyHasher>>;

/// A hasher for keys that are hashes: passes the `u64` through.
#[derive(Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The tantivy index of one vault.
pub struct TextIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl TextIndex {
    /// Opens the index in `dir`, creating it when missing.
    pub fn open(dir: &Path) -> Result<TextIndex> {
        let (schema, fields) = build_schema();
        if !dir.is_dir() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let index = if dir.join("meta.json").exists() {
            let folder = IndexDir::open(dir).map_err(|e| Error::Index(e.to_string()))?;
            let index = Index::open(folder)?;
            if index.schema() != schema {
                return Err(Error::Index(
                    "the index was made by another engram version".into(),
                ));
            }
            index
        } else {
            Index::create_in_dir(dir, schema)?
        };
        index.tokenizers().register(ANALYZER, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(TextIndex {
            index,
            reader,
            fields,
        })
    }

    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// A searcher on the latest commit this process has loaded.
    pub fn searcher(&self) -> tantivy::Searcher {
        self.reader.searcher()
    }

    /// A writer for one command's changes (single-threaded: records are small).
    /// Files that a killed writer left half-made (a `.del` file written before
    /// its commit, say) are collected first: the next commit may want the same
    /// names, and tantivy never overwrites a file.
    ///
    /// Segments merge by tantivy's log policy with a small floor, so that the
    /// few documents of one capture merge with other small segments and never
    /// make a command wait while a bulk-sized segment is rewritten (the default
    /// floor of 10,000 documents put them in one level: a capture at 100,000
    /// records spent most of its time merging).
    pub fn writer(&self, documents: usize) -> Result<IndexWriter> {
        // A few documents need tantivy's smallest arena; a bulk write a bigger
        // one, so that it makes fewer segments.
        let budget = if documents < 1000 {
            15_000_000
        } else {
            50_000_000
        };
        let writer = self.index.writer_with_num_threads(1, budget)?;
        let mut policy = tantivy::indexer::LogMergePolicy::default();
        policy.set_min_layer_size(100);
        writer.set_merge_policy(Box::new(policy));
        writer.garbage_collect_files().wait()?;
        Ok(writer)
    }

    /// Makes the latest commit visible to this process's searches.
    pub fn reload(&self) -> Result<()> {
        Ok(self.reader.reload()?)
    }

    /// Adds or replaces the document of the record at `rel`, read from a file
    /// with this stamp.
    pub fn upsert(
        &self,
        writer: &IndexWriter,
        rel: &str,
        record: &Record,
        stamp: &FileStamp,
    ) -> Result<()> {
        writer.delete_term(Term::from_field_text(self.fields.path, rel));
        let mut doc = self.document(rel, record);
        let f = &self.fields;
        doc.add_u64(f.size, stamp.size);
        doc.add_i64(f.mtime, stamp.mtime_ns);
        doc.add_text(f.hash, &stamp.hash);
        doc.add_u64(f.ckey, content_key(record.content()));
        writer.add_document(doc)?;
        Ok(())
    }

    /// Commits the writer's changes with `payload` (the sync summary), so that
    /// the documents and what is said about them land in one atomic step.
    pub fn commit(&self, writer: &mut IndexWriter, payload: &str) -> Result<()> {
        let mut prepared = writer.prepare_commit()?;
        prepared.set_payload(payload);
        prepared.commit()?;
        Ok(())
    }

    /// The payload of the commit this reader sees. Reading the newest commit
    /// and reloading the reader are two steps; another process may commit in
    /// between, so they are repeated until both name the same segments.
    pub fn payload(&self) -> Result<Option<String>> {
        for _ in 0..100 {
            let metas = self.index.load_metas()?;
            let searcher = self.reader.searcher();
            let mut seen: Vec<(tantivy::index::SegmentId, u32)> = searcher
                .segment_readers()
                .iter()
                .map(|s| (s.segment_id(), s.num_deleted_docs()))
                .collect();
            let mut committed: Vec<(tantivy::index::SegmentId, u32)> = metas
                .segments
                .iter()
                .map(|s| (s.id(), s.num_deleted_docs()))
                .collect();
            seen.sort();
            committed.sort();
            if seen == committed {
                return Ok(metas.payload);
            }
            self.reader.reload()?;
        }
        Err(Error::Index(
            "the index kept changing while it was read; try again".into(),
        ))
    }

    /// The stamp and keys of the document at `addr`.
    pub fn entry(&self, addr: DocAddress) -> Result<IndexedEntry> {
        let searcher = self.reader.searcher();
        let segment = searcher.segment_reader(addr.segment_ord);
        let fast = segment.fast_fields();
        let doc: TantivyDocument = searcher.doc(addr)?;
        let text = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        Ok(IndexedEntry {
            id: text(self.fields.id),
            size: fast.u64("size")?.first(addr.doc_id).unwrap_or(0),
            mtime_ns: fast.i64("mtime")?.first(addr.doc_id).unwrap_or(0),
            hash: text(self.fields.hash),
            ckey: fast.u64("ckey")?.first(addr.doc_id).unwrap_or(0),
            vkey: fast.u64("vkey")?.first(addr.doc_id).unwrap_or(0),
        })
    }

    /// Path, size and modification time of every live document, read from the
    /// columns (no stored document is opened), in no particular order.
    pub fn listing(&self) -> Result<Vec<Listed>> {
        let searcher = self.reader.searcher();
        let mut out = Vec::with_capacity(searcher.num_docs() as usize);
        for segment in searcher.segment_readers() {
            let fast = segment.fast_fields();
            let Some(paths) = fast.str("path")? else {
                continue;
            };
            let names = |column: &tantivy::columnar::StrColumn| -> Result<Vec<String>> {
                let mut names = Vec::with_capacity(column.num_terms());
                let mut stream = column
                    .dictionary()
                    .stream()
                    .map_err(|e| Error::Index(e.to_string()))?;
                while stream.advance() {
                    names.push(String::from_utf8_lossy(stream.key()).into_owned());
                }
                Ok(names)
            };
            let path_names = names(&paths)?;
            let sizes = fast.u64("size")?;
            let mtimes = fast.i64("mtime")?;
            let name = |names: &[String], column: &tantivy::columnar::StrColumn, doc| {
                column
                    .term_ords(doc)
                    .next()
                    .and_then(|o| names.get(o as usize))
                    .cloned()
                    .unwrap_or_default()
            };
            for doc in segment.doc_ids_alive() {
                out.push(Listed {
                    path: name(&path_names, &paths, doc),
                    size: sizes.first(doc).unwrap_or(0),
                    mtime_ns: mtimes.first(doc).unwrap_or(0),
                });
            }
        }
        Ok(out)
    }

    /// Removes the document of the record at `rel`.
    pub fn remove(&self, writer: &IndexWriter, rel: &str) {
        writer.delete_term(Term::from_field_text(self.fields.path, rel));
    }

    fn document(&self, rel: &str, r: &Record) -> TantivyDocument {
        let f = &self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.path, rel);
        doc.add_text(f.id, &r.id);
        doc.add_text(f.short_id, naming::short_id(&r.id));
        doc.add_u64(f.vkey, vector_key(&r.id));
        doc.add_text(f.content, r.content());
        doc.add_text(f.kind, r.kind.as_str());
        doc.add_text(f.status, r.status.as_str());
        let mut keys = crate::models::vocabulary::fact_keys(
            r.category.as_deref(),
            r.attribute.as_deref(),
            r.subject.as_deref(),
        );
        // A keyed fact's body is a bare value: its key's words find it.
        if let Some(key) = &r.key {
            keys.push(' ');
            keys.push_str(&key.replace(['.', '_', '-', '/'], " "));
        }
        if !keys.is_empty() {
            doc.add_text(f.keys, keys);
        }
        if let Some(speaker) = crate::storage::record::speaker_of(r.content()) {
            doc.add_text(f.speaker, speaker);
        }
        let optional = [
            (f.user, &r.user),
            (f.agent, &r.agent),
            (f.session, &r.session),
            (f.subject, &r.subject),
            (f.category, &r.category),
            (f.supersedes, &r.supersedes),
            (f.superseded_by, &r.superseded_by),
            (f.attribute, &r.attribute),
            (f.key, &r.key),
            (f.last_outcome, &r.last_outcome),
            (f.invalidated_by, &r.invalidated_by),
            (f.reason, &r.reason),
        ];
        for (field, value) in optional {
            if let Some(v) = value {
                doc.add_text(field, v);
            }
        }
        for tag in &r.tags {
            doc.add_text(f.tags, tag);
        }
        if !r.meta.is_empty() {
            doc.add_text(
                f.meta,
                serde_json::to_string(&r.meta).expect("strings serialise"),
            );
        }
        doc.add_i64(f.created, r.created.timestamp());
        if let Some(u) = r.updated {
            doc.add_i64(f.updated, u.timestamp());
        }
        // Missing bounds are stored as open ends so range filters need no special case.
        doc.add_i64(f.valid_from, r.valid_from.unwrap_or(r.created).timestamp());
        doc.add_text(f.scope, scope_key(r.user.as_deref(), r.agent.as_deref()));
        // `status` is the truth: an active record has no end, whatever a
        // leftover `valid_to` says (a person set it back to active by hand).
        let valid_to = r.valid_to.filter(|_| r.status != Status::Active);
        doc.add_i64(f.valid_to, valid_to.map_or(i64::MAX, |t| t.timestamp()));
        doc.add_i64(f.expires, r.expires.map_or(i64::MAX, |t| t.timestamp()));
        if let Some(v) = r.importance {
            doc.add_f64(f.importance, v);
        }
        if let Some(v) = r.confidence {
            doc.add_f64(f.confidence, v);
        }
        if let Some(t) = r.turn {
            doc.add_i64(f.turn, t as i64);
        }
        if r.pinned == Some(true) {
            doc.add_u64(f.pinned, 1);
        }
        if let Some(d) = &r.durability {
            doc.add_text(f.durability, d);
        }
        if let Some(role) = &r.role {
            doc.add_text(f.role, role);
        }
        if r.consolidated == Some(true) {
            doc.add_u64(f.consolidated, 1);
        }
        doc.add_u64(f.reinforced, r.reinforced.unwrap_or(0));
        if r.verbatim() != r.content() {
            doc.add_text(f.verbatim, r.verbatim());
        }
        doc.add_u64(f.successes, r.successes.unwrap_or(0));
        doc.add_u64(f.failures, r.failures.unwrap_or(0));
        doc
    }

    /// The analyzed terms of a text (lowercased, folded, stopwords out, stemmed).
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut terms = Vec::new();
        while let Some(token) = stream.next() {
            if !terms.contains(&token.text) {
                terms.push(token.text.clone());
            }
        }
        terms
    }

    /// The filter as a tantivy query (`AllQuery` when it filters nothing).
    pub fn filter_query(&self, filter: &Filter) -> Box<dyn Query> {
        let f = &self.fields;
        let mut must: Vec<Box<dyn Query>> = Vec::new();
        let term = |field: Field, value: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(field, value),
                IndexRecordOption::Basic,
            ))
        };
        if !filter.kinds.is_empty() {
            let any: Vec<(Occur, Box<dyn Query>)> = filter
                .kinds
                .iter()
                .map(|k| (Occur::Should, term(f.kind, k.as_str())))
                .collect();
            must.push(Box::new(BooleanQuery::new(any)));
        }
        if filter.exact_scope {
            let key = scope_key(filter.user.as_deref(), filter.agent.as_deref());
            must.push(term(f.scope, &key));
        }
        let exact = [
            (f.user, &filter.user),
            (f.agent, &filter.agent),
            (f.session, &filter.session),
            (f.subject, &filter.subject),
            (f.category, &filter.category),
            (f.attribute, &filter.attribute),
            (f.key, &filter.key),
        ];
        for (field, value) in exact {
            if let Some(v) = value {
                must.push(term(field, v));
            }
        }
        if let Some(status) = filter.status {
            must.push(term(f.status, status.as_str()));
        }
        for tag in &filter.tags {
            must.push(term(f.tags, tag.trim_start_matches('#')));
        }
        let range = |field: Field, lo: Bound<i64>, hi: Bound<i64>| -> Box<dyn Query> {
            let t = |v: i64| Term::from_field_i64(field, v);
            Box::new(RangeQuery::new(lo.map(t), hi.map(t)))
        };
        if filter.since.is_some() || filter.until.is_some() {
            let lo = filter
                .since
                .map_or(Bound::Unbounded, |t| Bound::Included(t.timestamp()));
            let hi = filter
                .until
                .map_or(Bound::Unbounded, |t| Bound::Included(t.timestamp()));
            must.push(range(f.created, lo, hi));
        }
        match filter.validity {
            Validity::Any => {}
            Validity::CurrentAt(now) => {
                let now = now.timestamp();
                must.push(term(f.status, Status::Active.as_str()));
                must.push(range(f.expires, Bound::Excluded(now), Bound::Unbounded));
                must.push(range(f.valid_to, Bound::Excluded(now), Bound::Unbounded));
            }
            Validity::AsOf(at) => {
                let at = at.timestamp();
                must.push(range(f.created, Bound::Unbounded, Bound::Included(at)));
                must.push(range(f.valid_from, Bound::Unbounded, Bound::Included(at)));
                must.push(range(f.valid_to, Bound::Excluded(at), Bound::Unbounded));
                must.push(range(f.expires, Bound::Excluded(at), Bound::Unbounded));
            }
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> =
            must.into_iter().map(|q| (Occur::Must, q)).collect();
        if filter.unconsolidated {
            let done = Term::from_field_u64(f.consolidated, 1);
            clauses.push((Occur::Must, Box::new(AllQuery)));
            clauses.push((
                Occur::MustNot,
                Box::new(TermQuery::new(done, IndexRecordOption::Basic)),
            ));
        }
        match clauses.len() {
            0 => Box::new(AllQuery),
            _ => Box::new(BooleanQuery::new(clauses)),
        }
    }

    /// BM25 search: documents matching any analyzed term of `text` and the filter,
    /// best first. Empty when the text has no searchable term.
    pub fn search(
        &self,
        text: &str,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<(f32, DocAddress)>> {
        let terms = self.analyze(text);
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        // A query word counts in the content, and at half weight in the words
        // of the record's category, attribute and subject.
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len() * 2);
        for t in &terms {
            let text = TermQuery::new(
                Term::from_field_text(self.fields.content, t),
                IndexRecordOption::WithFreqs,
            );
            let keys = TermQuery::new(
                Term::from_field_text(self.fields.keys, t),
                IndexRecordOption::WithFreqs,
            );
            should.push((Occur::Should, Box::new(text)));
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(keys), 0.5)),
            ));
        }
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(BooleanQuery::new(should)) as Box<dyn Query>,
            ),
            (Occur::Must, self.filter_query(filter)),
        ]);
        let searcher = self.reader.searcher();
        let limit = all_or(limit, searcher.num_docs());
        Ok(searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?)
    }

    /// The newest documents matching the filter (by `created`, newest first).
    pub fn newest(&self, filter: &Filter, limit: usize) -> Result<Vec<DocAddress>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let limit = all_or(limit, searcher.num_docs());
        let top =
            TopDocs::with_limit(limit).order_by_fast_field::<i64>("created", tantivy::Order::Desc);
        let hits = searcher.search(&self.filter_query(filter), &top)?;
        Ok(hits.into_iter().map(|(_, addr)| addr).collect())
    }

    /// The highest `turn` among the documents matching the filter.
    pub fn max_turn(&self, filter: &Filter) -> Result<Option<u64>> {
        let searcher = self.reader.searcher();
        let top = TopDocs::with_limit(1).order_by_fast_field::<i64>("turn", tantivy::Order::Desc);
        let hits = searcher.search(&self.filter_query(filter), &top)?;
        Ok(hits
            .into_iter()
            .next()
            .and_then(|(t, _)| t)
            .map(|t| t.max(0) as u64))
    }

    /// The stored fields of the newest documents matching the filter.
    pub fn fetch_newest(&self, filter: &Filter, limit: usize) -> Result<Vec<IndexedDoc>> {
        self.newest(filter, limit)?
            .into_iter()
            .map(|addr| self.fetch(addr))
            .collect()
    }

    /// Every scope (user, agent) some live record belongs to, sorted: a walk
    /// of the `scope` terms of each segment, each checked for a live document
    /// (a term outlives its deleted documents until segments merge). No
    /// stored document is read.
    pub fn scopes(&self) -> Result<Vec<(Option<String>, Option<String>)>> {
        let searcher = self.reader.searcher();
        let mut keys = std::collections::BTreeSet::new();
        for segment in searcher.segment_readers() {
            let terms = segment.inverted_index(self.fields.scope)?;
            let mut stream = terms
                .terms()
                .stream()
                .map_err(tantivy::TantivyError::from)?;
            while stream.advance() {
                if let Ok(key) = std::str::from_utf8(stream.key()) {
                    keys.insert(key.to_string());
                }
            }
        }
        let mut scopes = Vec::new();
        for key in keys {
            let query = TermQuery::new(
                Term::from_field_text(self.fields.scope, &key),
                IndexRecordOption::Basic,
            );
            if searcher.search(&query, &Count)? > 0 {
                scopes.extend(parse_scope_key(&key));
            }
        }
        scopes.sort();
        Ok(scopes)
    }

    /// The vector key of every document matching the filter, with its address
    /// and the content key its vector row must carry.
    pub fn vector_keys(&self, filter: &Filter) -> Result<VectorKeys> {
        let searcher = self.reader.searcher();
        let query = self.filter_query(filter);
        let weight = query.weight(tantivy::query::EnableScoring::disabled_from_searcher(
            &searcher,
        ))?;
        let mut keys =
            VectorKeys::with_capacity_and_hasher(searcher.num_docs() as usize, Default::default());
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let fast = segment.fast_fields();
            let (vkeys, ckeys) = (fast.u64("vkey")?, fast.u64("ckey")?);
            let alive = segment.alive_bitset();
            weight.for_each_no_score(segment, &mut |docs| {
                for &doc in docs {
                    if alive.is_some_and(|a| a.is_deleted(doc)) {
                        continue;
                    }
                    if let (Some(v), Some(c)) = (vkeys.first(doc), ckeys.first(doc)) {
                        keys.insert(v, (DocAddress::new(ord as u32, doc), c));
                    }
                }
            })?;
        }
        Ok(keys)
    }

    /// [`TextIndex::vector_keys`] of only the documents whose vector key is
    /// among `keys`.
    pub fn vector_docs(&self, filter: &Filter, keys: &[u64]) -> Result<VectorKeys> {
        let searcher = self.reader.searcher();
        // One term query per key: a term set would stream the whole term
        // dictionary of the field.
        let any_key: Vec<(Occur, Box<dyn Query>)> = keys
            .iter()
            .map(|k| {
                let term = Term::from_field_u64(self.fields.vkey, *k);
                let q: Box<dyn Query> = Box::new(TermQuery::new(term, IndexRecordOption::Basic));
                (Occur::Should, q)
            })
            .collect();
        let query = BooleanQuery::new(vec![
            (Occur::Must, self.filter_query(filter)),
            (
                Occur::Must,
                Box::new(BooleanQuery::new(any_key)) as Box<dyn Query>,
            ),
        ]);
        let docs = searcher.search(&query, &tantivy::collector::DocSetCollector)?;
        let mut out = VectorKeys::default();
        for addr in docs {
            let fast = searcher.segment_reader(addr.segment_ord).fast_fields();
            if let (Some(v), Some(c)) = (
                fast.u64("vkey")?.first(addr.doc_id),
                fast.u64("ckey")?.first(addr.doc_id),
            ) {
                out.insert(v, (addr, c));
            }
        }
        Ok(out)
    }

    /// The value of a string column (`session`, `speaker`, `subject`, `id`…)
    /// of each document, in order; read in one batch per segment, each block
    /// of the column's dictionary decoded once.
    pub fn column_strings(
        &self,
        addrs: &[DocAddress],
        column: &str,
    ) -> Result<Vec<Option<String>>> {
        let searcher = self.reader.searcher();
        let mut out = vec![None; addrs.len()];
        for (segment, at) in by_segment(addrs) {
            let Some(strings) = searcher.segment_reader(segment).fast_fields().str(column)? else {
                continue;
            };
            let ords: Vec<Option<u64>> = at
                .iter()
                .map(|&i| strings.term_ords(addrs[i].doc_id).next())
                .collect();
            let mut wanted: Vec<u64> = ords.iter().flatten().copied().collect();
            let names = ordinal_names(&strings, &mut wanted)?;
            for (&i, ord) in at.iter().zip(ords) {
                out[i] = ord.and_then(|o| names.get(&o).cloned());
            }
        }
        Ok(out)
    }

    /// The [`RankingColumns`] of each document, in order.
    pub fn ranking_columns(&self, addrs: &[DocAddress]) -> Result<Vec<RankingColumns>> {
        let searcher = self.reader.searcher();
        let mut out = vec![RankingColumns::default(); addrs.len()];
        for (segment, at) in by_segment(addrs) {
            let fast = searcher.segment_reader(segment).fast_fields();
            let created = fast.i64("created")?;
            let (importance, confidence) = (fast.f64("importance")?, fast.f64("confidence")?);
            for &i in &at {
                let doc = addrs[i].doc_id;
                out[i].created = created
                    .first(doc)
                    .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
                    .unwrap_or_default();
                out[i].importance = importance.first(doc);
                out[i].confidence = confidence.first(doc);
            }
        }
        let sessions = self.column_strings(addrs, "session")?;
        let speakers = self.column_strings(addrs, "speaker")?;
        let subjects = self.column_strings(addrs, "subject")?;
        for (((c, session), speaker), subject) in
            out.iter_mut().zip(sessions).zip(speakers).zip(subjects)
        {
            (c.session, c.speaker, c.subject) = (session, speaker, subject);
        }
        Ok(out)
    }

    /// Each document's counted runs (successes, failures), in order.
    pub fn runs(&self, addrs: &[DocAddress]) -> Result<Vec<(u64, u64)>> {
        let searcher = self.reader.searcher();
        let mut out = vec![(0, 0); addrs.len()];
        for (segment, at) in by_segment(addrs) {
            let fast = searcher.segment_reader(segment).fast_fields();
            let (successes, failures) = (fast.u64("successes")?, fast.u64("failures")?);
            for &i in &at {
                let doc = addrs[i].doc_id;
                out[i] = (
                    successes.first(doc).unwrap_or(0),
                    failures.first(doc).unwrap_or(0),
                );
            }
        }
        Ok(out)
    }

    /// How many documents match the filter.
    pub fn count(&self, filter: &Filter) -> Result<usize> {
        Ok(self
            .reader
            .searcher()
            .search(&self.filter_query(filter), &Count)?)
    }

    /// All live documents.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Addresses of the documents whose id is `id`, or starts with it when
    /// `prefix` is set (at most `limit`).
    pub fn find_id(&self, id: &str, prefix: bool, limit: usize) -> Result<Vec<DocAddress>> {
        self.find_term(self.fields.id, id, prefix, limit)
    }

    /// Addresses of the documents whose short id (the last six characters of
    /// the id, lowercase) is `short`, or starts with it when `prefix` is set.
    pub fn find_short_id(
        &self,
        short: &str,
        prefix: bool,
        limit: usize,
    ) -> Result<Vec<DocAddress>> {
        self.find_term(self.fields.short_id, short, prefix, limit)
    }

    fn find_term(
        &self,
        field: Field,
        value: &str,
        prefix: bool,
        limit: usize,
    ) -> Result<Vec<DocAddress>> {
        let searcher = self.reader.searcher();
        let query: Box<dyn Query> = if prefix {
            let lo = Term::from_field_text(field, value);
            // Every value with this prefix sorts below prefix + U+10FFFF.
            let hi = Term::from_field_text(field, &format!("{value}\u{10FFFF}"));
            Box::new(RangeQuery::new(Bound::Included(lo), Bound::Excluded(hi)))
        } else {
            Box::new(TermQuery::new(
                Term::from_field_text(field, value),
                IndexRecordOption::Basic,
            ))
        };
        let docs = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        Ok(docs.into_iter().map(|(_, a)| a).collect())
    }

    /// The document at `rel`, if indexed.
    pub fn find_path(&self, rel: &str) -> Result<Option<DocAddress>> {
        let searcher = self.reader.searcher();
        let q = TermQuery::new(
            Term::from_field_text(self.fields.path, rel),
            IndexRecordOption::Basic,
        );
        Ok(searcher
            .search(&q, &TopDocs::with_limit(1).order_by_score())?
            .into_iter()
            .next()
            .map(|(_, a)| a))
    }

    /// The stored fields of one document.
    pub fn fetch(&self, addr: DocAddress) -> Result<IndexedDoc> {
        let doc: TantivyDocument = self.reader.searcher().doc(addr)?;
        let f = &self.fields;
        let text = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let time = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_i64())
                .filter(|v| *v != i64::MAX)
                .and_then(|v| chrono::DateTime::from_timestamp(v, 0))
        };
        let number = |field: Field| doc.get_first(field).and_then(|v| v.as_f64());
        Ok(IndexedDoc {
            path: text(f.path).unwrap_or_default(),
            id: text(f.id).unwrap_or_default(),
            kind: text(f.kind).unwrap_or_default(),
            content: text(f.content).unwrap_or_default(),
            status: text(f.status).unwrap_or_default(),
            created: time(f.created).unwrap_or_default(),
            updated: time(f.updated),
            user: text(f.user),
            agent: text(f.agent),
            session: text(f.session),
            subject: text(f.subject),
            category: text(f.category),
            tags: doc
                .get_all(f.tags)
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            meta: text(f.meta).and_then(|m| serde_json::from_str(&m).ok()),
            importance: number(f.importance),
            confidence: number(f.confidence),
            valid_to: time(f.valid_to),
            expires: time(f.expires),
            supersedes: text(f.supersedes),
            superseded_by: text(f.superseded_by),
            turn: doc
                .get_first(f.turn)
                .and_then(|v| v.as_i64())
                .map(|t| t.max(0) as u64),
            pinned: doc.get_first(f.pinned).and_then(|v| v.as_u64()) == Some(1),
            durability: text(f.durability),
            role: text(f.role),
            consolidated: doc.get_first(f.consolidated).and_then(|v| v.as_u64()) == Some(1),
            reinforced: doc
                .get_first(f.reinforced)
                .and_then(|v| v.as_u64())
                .unwrap_or(0),
            attribute: text(f.attribute),
            key: text(f.key),
            successes: doc
                .get_first(f.successes)
                .and_then(|v| v.as_u64())
                .unwrap_or(0),
            failures: doc
                .get_first(f.failures)
                .and_then(|v| v.as_u64())
                .unwrap_or(0),
            last_outcome: text(f.last_outcome),
            verbatim: text(f.verbatim),
            invalidated_by: text(f.invalidated_by),
            reason: text(f.reason),
        })
    }
}

impl IndexedDoc {
    /// Whether the record is current at `now` (active, not expired, not ended).
    pub fn is_current_at(&self, now: Timestamp) -> bool {
        self.status == Status::Active.as_str()
            && self.expires.is_none_or(|e| e > now)
            && self.valid_to.is_none_or(|e| e > now)
    }

    /// The created time as engram writes it.
    pub fn created_text(&self) -> String {
        format_time(&self.created)
    }
}

/// A result limit for a collector: `limit`, or every document when it asks
/// for more (a collector sizes its heap by the limit, so `usize::MAX` from a
/// script would not fit), and at least one.
fn all_or(limit: usize, docs: u64) -> usize {
    limit
        .min(usize::try_from(docs).unwrap_or(usize::MAX))
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_time;

    fn rec(id: &str, content: &str, user: Option<&str>) -> Record {
        let mut r = Record::new(
            id.into(),
            Kind::Semantic,
            parse_time("2026-11-01T00:00:00Z").unwrap(),
            content,
        );
        r.user = user.map(str::to_string);
        r
    }

    fn stamp() -> FileStamp {
        FileStamp {
            size: 1,
            mtime_ns: 1,
            hash: "h".into(),
        }
    }

    fn index_with(records: &[(&str, Record)]) -> (tempfile::TempDir, TextIndex) {
        let dir = tempfile::tempdir().unwrap();
        let index = TextIndex::open(dir.path()).unwrap();
        let mut w = index.writer(1).unwrap();
        for (rel, r) in records {
            index.upsert(&w, rel, r, &stamp()).unwrap();
        }
        w.commit().unwrap();
        index.reload().unwrap();
        (dir, index)
    }

    #[test]
    fn analyzer_stems_and_drops_stopwords() {
        let (_d, index) = index_with(&[]);
        assert_eq!(
            index.analyze("What does the user eat? Eating apples!"),
            vec!["eat", "appl"],
            "`user` names the speaker, as \"I\" does: a stopword"
        );
        assert_eq!(index.analyze("Café"), vec!["cafe"]);
    }

    #[test]
    fn search_applies_scope_filters_inside_the_query() {
        let (_d, index) = index_with(&[
            ("a.md", rec("a", "Likes green tea", Some("alice"))),
            ("b.md", rec("b", "Likes black tea", Some("bob"))),
        ]);
        let filter = Filter {
            user: Some("alice".into()),
            ..Filter::default()
        };
        let hits = index.search("tea", &filter, 10).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(index.fetch(hits[0].1).unwrap().id, "a");
        assert_eq!(
            index.search("tea", &Filter::default(), 10).unwrap().len(),
            2
        );
    }

    #[test]
    fn upsert_replaces_by_path_and_remove_deletes() {
        let (_d, index) = index_with(&[("a.md", rec("a", "old words", None))]);
        let mut w = index.writer(1).unwrap();
        index
            .upsert(&w, "a.md", &rec("a", "new words", None), &stamp())
            .unwrap();
        w.commit().unwrap();
        index.reload().unwrap();
        assert!(
            index
                .search("old", &Filter::default(), 10)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            index.search("new", &Filter::default(), 10).unwrap().len(),
            1
        );
        index.remove(&w, "a.md");
        w.commit().unwrap();
        index.reload().unwrap();
        assert_eq!(index.num_docs(), 0);
    }

    #[test]
    fn validity_filters_status_expiry_and_history() {
        let t = |s: &str| parse_time(s).unwrap();
        let mut old = rec("old", "Lives in Berlin", None);
        old.status = Status::Superseded;
        old.valid_to = Some(t("2026-11-10T00:00:00Z"));
        let new = {
            let mut r = rec("new", "Lives in Lisbon", None);
            r.created = t("2026-11-10T00:00:00Z");
            r
        };
        let mut expired = rec("exp", "Lives in a tent", None);
        expired.expires = Some(t("2026-11-05T00:00:00Z"));
        let (_d, index) = index_with(&[("o.md", old), ("n.md", new), ("e.md", expired)]);
        let ids = |v: Validity| {
            let filter = Filter {
                validity: v,
                ..Filter::default()
            };
            let mut ids: Vec<String> = index
                .search("lives", &filter, 10)
                .unwrap()
                .into_iter()
                .map(|(_, a)| index.fetch(a).unwrap().id)
                .collect();
            ids.sort();
            ids
        };
        assert_eq!(
            ids(Validity::CurrentAt(t("2026-11-20T00:00:00Z"))),
            vec!["new"]
        );
        assert_eq!(
            ids(Validity::AsOf(t("2026-11-03T00:00:00Z"))),
            vec!["exp", "old"]
        );
        assert_eq!(ids(Validity::Any), vec!["exp", "new", "old"]);
    }

    #[test]
    fn unconsolidated_episodes_are_counted_in_the_index() {
        let mut done = rec("d", "Ran 5k", None);
        done.consolidated = Some(true);
        let (_d, index) = index_with(&[("a.md", rec("a", "Ran 5k", None)), ("d.md", done)]);
        let filter = Filter {
            unconsolidated: true,
            ..Filter::default()
        };
        assert_eq!(index.count(&filter).unwrap(), 1);
        assert_eq!(index.count(&Filter::default()).unwrap(), 2);
    }

    #[test]
    fn scope_keys_read_back() {
        for (user, agent) in [
            (None, None),
            (Some("alice"), None),
            (None, Some("coder")),
            (Some("bob"), Some("coder")),
        ] {
            assert_eq!(
                parse_scope_key(&scope_key(user, agent)),
                Some((user.map(str::to_string), agent.map(str::to_string)))
            );
        }
        assert_eq!(parse_scope_key("garbage"), None);
    }

    #[test]
    fn scopes_are_the_distinct_live_user_agent_pairs() {
        let mut coder = rec("c", "Prefers tabs", Some("bob"));
        coder.agent = Some("coder".into());
        let (_d, index) = index_with(&[
            ("a.md", rec("a", "Likes green tea", Some("alice"))),
            ("a2.md", rec("a2", "Likes jasmine tea", Some("alice"))),
            ("b.md", rec("b", "Likes black tea", Some("bob"))),
            ("c.md", coder),
            ("n.md", rec("n", "A note", None)),
        ]);
        let pair =
            |u: Option<&str>, a: Option<&str>| (u.map(str::to_string), a.map(str::to_string));
        assert_eq!(
            index.scopes().unwrap(),
            vec![
                pair(None, None),
                pair(Some("alice"), None),
                pair(Some("bob"), None),
                pair(Some("bob"), Some("coder")),
            ]
        );
        // A scope whose last record is gone is gone, though its term lingers.
        let mut w = index.writer(1).unwrap();
        index.remove(&w, "b.md");
        w.commit().unwrap();
        index.reload().unwrap();
        assert!(!index.scopes().unwrap().contains(&pair(Some("bob"), None)));
    }

    #[test]
    fn ids_are_found_exactly_and_by_prefix() {
        let (_d, index) = index_with(&[
            ("a.md", rec("01abc", "x", None)),
            ("b.md", rec("01abd", "y", None)),
        ]);
        assert_eq!(index.find_id("01abc", false, 5).unwrap().len(), 1);
        assert_eq!(index.find_id("01ab", true, 5).unwrap().len(), 2);
        assert_eq!(index.find_id("01abd", true, 5).unwrap().len(), 1);
        assert!(index.find_id("zz", true, 5).unwrap().is_empty());
    }

    #[test]
    fn short_ids_are_found_exactly_and_by_prefix() {
        let (_d, index) = index_with(&[
            ("a.md", rec("01jdq3k8v6w2m4x9t5r7c1b0ze", "x", None)),
            ("b.md", rec("01jdq3k8v6w2m4x9t5r7c1b0zf", "y", None)),
            ("c.md", rec("01jdq3k8v6w2m4x9t5r7d2c1aa", "z", None)),
        ]);
        let ids = |hits: Vec<DocAddress>| -> Vec<String> {
            let mut ids: Vec<String> = hits
                .into_iter()
                .map(|a| index.fetch(a).unwrap().id)
                .collect();
            ids.sort();
            ids
        };
        assert_eq!(
            ids(index.find_short_id("c1b0ze", false, 5).unwrap()),
            vec!["01jdq3k8v6w2m4x9t5r7c1b0ze"]
        );
        assert_eq!(index.find_short_id("c1b0z", true, 5).unwrap().len(), 2);
        assert_eq!(
            ids(index.find_short_id("d2c1", true, 5).unwrap()),
            vec!["01jdq3k8v6w2m4x9t5r7d2c1aa"]
        );
        // A short id is the end of the id, not any part of it.
        assert!(index.find_short_id("01jdq3", true, 5).unwrap().is_empty());
        assert!(index.find_short_id("c1b0z", false, 5).unwrap().is_empty());
    }
}

//! The store: a vault with its derived state (index, vectors, sync state) kept in
//! step with the files.
//!
//! Every change to the derived state goes through [`Store::apply`], whether it
//! comes from engram's own writes or from a sync that picked up edits made
//! elsewhere. Order of writes: record files first (the truth), then the index
//! commit, then the vectors, then `.engram/state.json`; a crash in between is
//! repaired by the next sync, since applying a change twice is harmless.
//! A read first does a stat-only diff without the lock; only when something
//! changed does it take the lock and bring the index up to date.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use tantivy::DocAddress;

use crate::error::{Error, Result};
use crate::models::embed::{self, Embedder};
use crate::storage::index::{self, IndexedDoc, TextIndex};
use crate::storage::naming::{self, RecordRef};
use crate::storage::record::Record;
use crate::storage::sync::{self, Checked, FileEntry, StatDiff};
use crate::storage::vault::{self, FileStamp, Vault, VaultLock};
use crate::storage::vectors::{VectorFile, VectorHeader, VectorRow, content_key};

const STATE_VERSION: u32 = 1;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct SyncState {
    version: u32,
    schema: u32,
    opstamp: u64,
    files: BTreeMap<String, FileEntry>,
    /// Size and mtime of the state file this was read from (not stored), to
    /// skip re-reading an unchanged file.
    #[serde(skip)]
    read_from: Option<(u64, i64)>,
}

/// One change to apply to the derived state.
#[derive(Debug, Clone)]
pub enum Change {
    /// The file at `rel` now holds `record`, with these bytes.
    Upsert {
        rel: String,
        record: Box<Record>,
        stamp: FileStamp,
    },
    /// The file at `rel` is gone.
    Remove { rel: String },
}

/// A file that failed to parse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenFile {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// A rename picked up by sync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renamed {
    pub from: String,
    pub to: String,
}

/// What a sync did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub removed: Vec<String>,
    pub renamed: Vec<Renamed>,
    /// Every file that is broken after this sync (skipped until fixed).
    pub broken: Vec<BrokenFile>,
    pub unchanged: usize,
    /// Records embedded into the vector file.
    pub embedded: usize,
    pub warnings: Vec<String>,
}

impl SyncReport {
    /// Whether the sync changed anything.
    pub fn changed(&self) -> bool {
        !(self.added.is_empty()
            && self.updated.is_empty()
            && self.removed.is_empty()
            && self.renamed.is_empty()
            && self.embedded == 0)
    }
}

/// Progress of a long operation (the CLI draws a bar; the library only counts).
pub trait Progress {
    fn start(&self, _total: u64, _label: &str) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}

/// Progress that shows nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

/// A vault with its index, vectors and sync state.
pub struct Store {
    vault: Vault,
    index: TextIndex,
    state: SyncState,
    embedder: Option<Box<dyn Embedder>>,
}

impl Store {
    /// Opens the derived state of a vault. An index made by another version, or
    /// a state that does not match the index, starts a clean rebuild. Derived
    /// files are only ever wiped under the vault lock: pass the lock if the caller
    /// holds it, else it is taken (and released) when a wipe is needed.
    pub fn open(vault: Vault, lock: Option<&VaultLock>) -> Result<Store> {
        let embedder = embed::from_config(vault.config())?;
        let index = match TextIndex::open(&vault.index_dir()) {
            Ok(index) => index,
            Err(Error::Index(_)) => {
                let _guard = match lock {
                    Some(_) => None,
                    None => Some(vault.lock()?),
                };
                wipe_derived(&vault)?;
                TextIndex::open(&vault.index_dir())?
            }
            Err(Error::Io { source, .. })
                if matches!(
                    source.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) =>
            {
                return Err(Error::VaultNotFound {
                    path: vault.root().to_path_buf(),
                    reason: "it has no index yet and this user may not write to it; run \
                             `engram reindex` there once as its owner"
                        .into(),
                });
            }
            Err(e) => return Err(e),
        };
        let mut store = Store {
            vault,
            index,
            state: SyncState::default(),
            embedder,
        };
        store.load_state(lock)?;
        Ok(store)
    }

    /// Deletes every derived file and opens a fresh store (nothing indexed yet).
    pub fn open_empty(vault: Vault, lock: &VaultLock) -> Result<Store> {
        wipe_derived(&vault)?;
        Store::open(vault, Some(lock))
    }

    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    pub fn index(&self) -> &TextIndex {
        &self.index
    }

    pub fn embedder(&self) -> Option<&dyn Embedder> {
        self.embedder.as_deref()
    }

    /// Number of files the state knows, and of those that are broken.
    pub fn file_counts(&self) -> (usize, usize) {
        let broken = self
            .state
            .files
            .values()
            .filter(|e| e.broken.is_some())
            .count();
        (self.state.files.len(), broken)
    }

    /// What the state remembers of every file.
    pub fn known_files(&self) -> &BTreeMap<String, FileEntry> {
        &self.state.files
    }

    /// Every file that failed to parse, as remembered.
    pub fn broken_files(&self) -> Vec<BrokenFile> {
        self.state
            .files
            .iter()
            .filter_map(|(rel, e)| {
                let why = e.broken.as_deref()?;
                let (line, message) = why.split_once(": ").unwrap_or(("1", why));
                Some(BrokenFile {
                    path: rel.clone(),
                    line: line.parse().unwrap_or(1),
                    message: message.to_string(),
                })
            })
            .collect()
    }

    /// Ids known to the state, by path (parsed files only).
    pub fn ids_by_path(&self) -> impl Iterator<Item = (&str, &str)> {
        self.state
            .files
            .iter()
            .filter(|(_, e)| e.broken.is_none())
            .map(|(rel, e)| (rel.as_str(), e.id.as_str()))
    }

    fn load_state(&mut self, lock: Option<&VaultLock>) -> Result<()> {
        let path = self.vault.state_path();
        let opstamp = self.index.opstamp()?;
        let on_disk = std::fs::metadata(&path)
            .ok()
            .map(|m| (m.len(), vault::mtime_ns(&m)));
        if on_disk.is_some() && on_disk == self.state.read_from && self.state.opstamp == opstamp {
            return Ok(());
        }
        let state: Option<SyncState> = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .map(|s: SyncState| SyncState {
                read_from: on_disk,
                ..s
            });
        match state {
            Some(s)
                if s.version == STATE_VERSION
                    && s.schema == index::SCHEMA_VERSION
                    && s.opstamp == opstamp =>
            {
                self.state = s;
                return Ok(());
            }
            _ if opstamp == 0 => {
                // A new, empty index.
                self.state = SyncState {
                    version: STATE_VERSION,
                    schema: index::SCHEMA_VERSION,
                    opstamp,
                    files: BTreeMap::new(),
                    read_from: None,
                };
                return Ok(());
            }
            _ => {}
        }
        // The state does not describe this index: another process may be between
        // its index commit and its state write, so look again under the lock, and
        // only then start both afresh.
        let Some(_lock) = lock else {
            let lock = self.vault.lock()?;
            self.index.reload()?;
            return self.load_state(Some(&lock));
        };
        wipe_derived(&self.vault)?;
        self.index = TextIndex::open(&self.vault.index_dir())?;
        self.state = SyncState {
            version: STATE_VERSION,
            schema: index::SCHEMA_VERSION,
            opstamp: self.index.opstamp()?,
            files: BTreeMap::new(),
            read_from: None,
        };
        Ok(())
    }

    fn save_state(&mut self) -> Result<()> {
        let bytes = serde_json::to_vec(&self.state).expect("state serialises");
        let path = self.vault.state_path();
        vault::write_atomic(&path, &bytes)?;
        self.state.read_from = std::fs::metadata(&path)
            .ok()
            .map(|m| (m.len(), vault::mtime_ns(&m)));
        Ok(())
    }

    /// Brings the index up to date with the files, taking the lock only when
    /// something changed. For read commands.
    pub fn sync(&mut self) -> Result<SyncReport> {
        let found = self.vault.walk();
        let diff = sync::stat_diff(&self.state.files, &found);
        if diff.is_clean() && !self.vectors_stale()? {
            return Ok(SyncReport {
                unchanged: diff.unchanged,
                broken: self.broken_files(),
                ..SyncReport::default()
            });
        }
        let lock = match self.vault.lock() {
            Ok(lock) => lock,
            // A reader who may not write to the vault searches the index as it
            // is, and is told what it lacks.
            Err(Error::ReadOnly { .. }) => {
                let behind = diff.to_check.len() + diff.missing.len();
                let mut warnings = Vec::new();
                if behind > 0 {
                    warnings.push(format!(
                        "the vault is read-only for this user and the index misses {behind} \
                         changed file(s), so results may be out of date; any engram command \
                         run by the vault's owner brings it up to date"
                    ));
                }
                return Ok(SyncReport {
                    unchanged: diff.unchanged,
                    broken: self.broken_files(),
                    warnings,
                    ..SyncReport::default()
                });
            }
            Err(e) => return Err(e),
        };
        self.sync_locked(&lock, &NoProgress)
    }

    /// Brings the index up to date with the files; the caller holds the lock.
    pub fn sync_locked(&mut self, lock: &VaultLock, progress: &dyn Progress) -> Result<SyncReport> {
        // Another process may have synced while we waited for the lock.
        self.index.reload()?;
        self.load_state(Some(lock))?;
        let found = self.vault.walk();
        let diff = sync::stat_diff(&self.state.files, &found);
        self.apply_diff(diff, progress)
    }

    /// Whether the vector file lacks rows or was made by another embedder.
    fn vectors_stale(&self) -> Result<bool> {
        let Some(embedder) = &self.embedder else {
            return Ok(false);
        };
        let live = self.ids_by_path().count();
        match VectorFile::open(&self.vault.vectors_path()) {
            Ok(Some(file)) => Ok(file.header().embedder != embedder.name() || file.len() < live),
            Ok(None) => Ok(live > 0),
            Err(_) => Ok(true),
        }
    }

    fn apply_diff(&mut self, diff: StatDiff, progress: &dyn Progress) -> Result<SyncReport> {
        let mut report = SyncReport {
            unchanged: diff.unchanged,
            ..SyncReport::default()
        };
        let mut changes = Vec::new();
        let mut added: Vec<(String, String)> = Vec::new();
        let mut missing = diff.missing;
        progress.start(diff.to_check.len() as u64, "indexing");
        for file in &diff.to_check {
            progress.advance(1);
            let path = self.vault.abs(&file.rel);
            let bytes = match std::fs::read(&path) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if self.state.files.contains_key(&file.rel) {
                        missing.push(file.rel.clone());
                    }
                    continue;
                }
                Err(e) => {
                    report
                        .warnings
                        .push(format!("{}: {e}; skipped", path.display()));
                    continue;
                }
            };
            let hash = vault::content_hash(&bytes);
            let stamp = FileStamp {
                size: bytes.len() as u64,
                mtime_ns: file.mtime_ns,
                hash: hash.clone(),
            };
            let checked = sync::classify(&self.state.files, &file.rel, &hash);
            if checked == Checked::Touched {
                if let Some(e) = self.state.files.get_mut(&file.rel) {
                    e.size = stamp.size;
                    e.mtime_ns = stamp.mtime_ns;
                }
                report.unchanged += 1;
                continue;
            }
            match self.vault.parse_bytes(&file.rel, &bytes, file.mtime_ns) {
                Ok(record) => {
                    match checked {
                        Checked::Added => added.push((file.rel.clone(), hash)),
                        _ => report.updated.push(file.rel.clone()),
                    }
                    changes.push(Change::Upsert {
                        rel: file.rel.clone(),
                        record: Box::new(record),
                        stamp,
                    });
                }
                Err(Error::Parse { line, message, .. }) => {
                    changes.push(Change::Remove {
                        rel: file.rel.clone(),
                    });
                    self.state.files.insert(
                        file.rel.clone(),
                        FileEntry {
                            size: stamp.size,
                            mtime_ns: stamp.mtime_ns,
                            hash,
                            id: String::new(),
                            broken: Some(format!("{line}: {message}")),
                        },
                    );
                }
                Err(e) => return Err(e),
            }
        }
        progress.finish();
        let renames = sync::pair_renames(&self.state.files, &missing, &added);
        let renamed_to: HashSet<&str> = renames.iter().map(|(_, to)| to.as_str()).collect();
        let renamed_from: HashSet<&str> = renames.iter().map(|(from, _)| from.as_str()).collect();
        report.added = added
            .iter()
            .filter(|(rel, _)| !renamed_to.contains(rel.as_str()))
            .map(|(rel, _)| rel.clone())
            .collect();
        report.removed = missing
            .iter()
            .filter(|rel| !renamed_from.contains(rel.as_str()))
            .cloned()
            .collect();
        report.renamed = renames
            .iter()
            .map(|(from, to)| Renamed {
                from: from.clone(),
                to: to.clone(),
            })
            .collect();
        changes.extend(missing.into_iter().map(|rel| Change::Remove { rel }));
        let (embedded, warnings) = self.apply(changes, true)?;
        report.broken = self.broken_files();
        report.embedded = embedded;
        report.warnings.extend(warnings);
        Ok(report)
    }

    /// [`Store::apply`] for changes whose files are already written: the files
    /// are the truth, so an index that cannot take them (its folder deleted
    /// meanwhile, a full disk) is a warning, not a failure that would make the
    /// caller capture the same records again. The next command's sync indexes
    /// them, since the saved state does not list them.
    pub fn apply_after_write(&mut self, changes: Vec<Change>) -> Vec<String> {
        let written = changes.len();
        match self.apply(changes, false) {
            Ok((_, warnings)) => warnings,
            Err(e) => vec![format!(
                "the {written} file(s) are written, but the index could not take them ({e}); \
                 the next engram command indexes them, nothing needs capturing again"
            )],
        }
    }

    /// Applies changes to the index, vectors and state. The caller holds the lock
    /// and has already written the files. Returns the number of records embedded
    /// and any warnings (an embedder failure costs vectors, never records).
    pub fn apply(
        &mut self,
        changes: Vec<Change>,
        fill_vectors: bool,
    ) -> Result<(usize, Vec<String>)> {
        if changes.is_empty() && !(fill_vectors && self.vectors_stale()?) {
            return Ok((0, Vec::new()));
        }
        let mut to_embed: Vec<(u64, u64, String)> = Vec::new();
        let mut removed_ids: Vec<String> = Vec::new();
        if !changes.is_empty() {
            let mut writer = self.index.writer()?;
            for change in changes {
                match change {
                    Change::Upsert { rel, record, stamp } => {
                        self.index.upsert(&writer, &rel, &record)?;
                        to_embed.push((
                            index::vector_key(&record.id),
                            content_key(record.content()),
                            record.content().to_string(),
                        ));
                        self.state.files.insert(
                            rel,
                            FileEntry {
                                size: stamp.size,
                                mtime_ns: stamp.mtime_ns,
                                hash: stamp.hash,
                                id: record.id.clone(),
                                broken: None,
                            },
                        );
                    }
                    Change::Remove { rel } => {
                        self.index.remove(&writer, &rel);
                        if let Some(entry) = self.state.files.get(&rel) {
                            if entry.broken.is_none() {
                                removed_ids.push(entry.id.clone());
                            }
                            // A broken file stays in the state (so it is not re-read)
                            // only while it exists.
                            if entry.broken.is_none() || !self.vault.abs(&rel).exists() {
                                self.state.files.remove(&rel);
                            }
                        }
                    }
                }
            }
            writer.commit()?;
            writer.wait_merging_threads()?;
            self.index.reload()?;
            self.state.opstamp = self.index.opstamp()?;
        }
        let result = self.update_vectors(to_embed, removed_ids, fill_vectors);
        self.save_state()?;
        result
    }

    fn update_vectors(
        &mut self,
        mut to_embed: Vec<(u64, u64, String)>,
        removed_ids: Vec<String>,
        fill: bool,
    ) -> Result<(usize, Vec<String>)> {
        let Some(embedder) = &self.embedder else {
            return Ok((0, Vec::new()));
        };
        let mut warnings = Vec::new();
        let path = self.vault.vectors_path();
        let old = VectorFile::open(&path).unwrap_or_else(|e| {
            warnings.push(format!("{e}; the vectors are rebuilt"));
            None
        });
        let name = embedder.name();
        let old = old.filter(|o| o.header().embedder == name);
        let existing: HashMap<u64, u64> = old.as_ref().map(VectorFile::keys).unwrap_or_default();
        let live: HashMap<u64, &str> = self
            .ids_by_path()
            .map(|(_, id)| (index::vector_key(id), id))
            .collect();
        let remove: HashSet<u64> = removed_ids
            .iter()
            .map(|id| index::vector_key(id))
            .filter(|k| !live.contains_key(k))
            .collect();
        to_embed.retain(|(key, hash, _)| existing.get(key) != Some(hash));
        if fill {
            // Rows missing for records indexed earlier (an embedder that was down,
            // or a new embedder): fetch their content from the index.
            let queued: HashSet<u64> = to_embed.iter().map(|t| t.0).collect();
            for (key, id) in &live {
                if existing.contains_key(key) || queued.contains(key) {
                    continue;
                }
                if let Some(addr) = self.index.find_id(id, false, 1)?.first() {
                    let doc = self.index.fetch(*addr)?;
                    to_embed.push((*key, content_key(&doc.content), doc.content));
                }
            }
        }
        if to_embed.is_empty() && remove.is_empty() {
            return Ok((0, warnings));
        }
        let texts: Vec<String> = to_embed.iter().map(|t| t.2.clone()).collect();
        let rows: Vec<VectorRow> = if texts.is_empty() {
            Vec::new()
        } else {
            match embedder.embed(&texts) {
                Ok(vectors) => to_embed
                    .iter()
                    .zip(vectors)
                    .map(|((key, hash, _), vector)| VectorRow {
                        key: *key,
                        content_hash: *hash,
                        vector,
                    })
                    .collect(),
                Err(e) => {
                    warnings.push(format!(
                        "{e}; {} record(s) are not embedded yet (recall uses BM25 for them; `engram sync` retries)",
                        texts.len()
                    ));
                    Vec::new()
                }
            }
        };
        let dim = rows
            .first()
            .map(|r| r.vector.len())
            .or_else(|| old.as_ref().map(|o| o.header().dim));
        let Some(dim) = dim else {
            return Ok((0, warnings));
        };
        let header = VectorHeader {
            embedder: name,
            dim,
        };
        VectorFile::write(&path, &header, old.as_ref(), &remove, &rows)?;
        Ok((rows.len(), warnings))
    }

    /// Finds the record an `ID` argument names (see [`RecordRef`]): a full id,
    /// the short id that ends its file name, a unique prefix of either (four
    /// characters or more), a path in the vault with or without `.md`, a
    /// wikilink, or a note's bare file name. A path never leads outside the
    /// vault; several matches are [`Error::Ambiguous`], naming them.
    pub fn resolve(&self, needle: &str) -> Result<IndexedDoc> {
        let reference = RecordRef::parse(needle)?;
        let needle = needle.trim();
        // An exact id wins whatever it looks like: an id written by hand may
        // hold any character.
        if let Some(addr) = self.index.find_id(needle, false, 1)?.first() {
            return self.index.fetch(*addr);
        }
        let found = match &reference {
            RecordRef::Key(key) => match self.find_key(key)? {
                Some(doc) => Some(doc),
                None => self.find_note(key)?,
            },
            RecordRef::Path(path) => self.find_by_path(path)?,
            RecordRef::Link(target) => self.find_note(target)?,
        };
        found.ok_or_else(|| Error::NotFound(needle.to_string()))
    }

    /// A key: an id in any case, else every record whose short id is the key,
    /// or whose id or short id starts with it.
    fn find_key(&self, key: &str) -> Result<Option<IndexedDoc>> {
        const MIN_PREFIX: usize = 4;
        let lower = key.to_ascii_lowercase();
        if let Some(addr) = self.index.find_id(&lower, false, 1)?.first() {
            return Ok(Some(self.index.fetch(*addr)?));
        }
        let mut hits = self.index.find_short_id(&lower, false, CANDIDATES)?;
        if key.chars().count() >= MIN_PREFIX {
            hits.extend(self.index.find_id(key, true, CANDIDATES)?);
            hits.extend(self.index.find_id(&lower, true, CANDIDATES)?);
            hits.extend(self.index.find_short_id(&lower, true, CANDIDATES)?);
        }
        self.one_of(key, hits)
    }

    /// A path typed by a person (vault-relative or absolute, `.md` optional);
    /// one that leads outside the vault is an input error.
    fn find_by_path(&self, typed: &str) -> Result<Option<IndexedDoc>> {
        let with_md = naming::with_md(typed);
        let forms = if with_md == typed {
            vec![with_md]
        } else {
            vec![with_md, typed.to_string()]
        };
        for form in forms {
            match self.vault.resolve_user_path(&form) {
                Ok(rel) => {
                    if let Some(addr) = self.index.find_path(&rel)? {
                        return Ok(Some(self.index.fetch(addr)?));
                    }
                }
                Err(Error::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// A note as a wikilink names it: a vault path without `.md`, else (for a
    /// bare name, as Obsidian links) the one file of that name anywhere in the
    /// vault.
    fn find_note(&self, target: &str) -> Result<Option<IndexedDoc>> {
        if let Some(doc) = self.find_by_path(target)? {
            return Ok(Some(doc));
        }
        if target.contains('/') || target.contains('\\') {
            return Ok(None);
        }
        let name = naming::with_md(target);
        let mut hits = Vec::new();
        for (rel, _) in self.ids_by_path() {
            let file = rel.rsplit('/').next().unwrap_or(rel);
            if file.eq_ignore_ascii_case(&name) {
                hits.extend(self.index.find_path(rel)?);
            }
        }
        self.one_of(target, hits)
    }

    /// The one record among `hits`, none, or an error naming the candidates.
    fn one_of(&self, needle: &str, mut hits: Vec<DocAddress>) -> Result<Option<IndexedDoc>> {
        hits.sort();
        hits.dedup();
        match hits.len() {
            0 => Ok(None),
            1 => Ok(Some(self.index.fetch(hits[0])?)),
            n => {
                let mut named: Vec<String> = hits
                    .iter()
                    .take(CANDIDATES - 1)
                    .filter_map(|a| self.index.fetch(*a).ok())
                    .map(|d| format!("{} {}", d.id, d.path))
                    .collect();
                named.sort();
                if n >= CANDIDATES {
                    named.push("…".into());
                }
                Err(Error::Ambiguous {
                    prefix: needle.to_string(),
                    candidates: named.join(", "),
                })
            }
        }
    }
}

/// How many records a lookup fetches; one fewer is named when it is ambiguous.
const CANDIDATES: usize = 6;

/// Removes every derived file (index, vectors, state); the files stay.
fn wipe_derived(vault: &Vault) -> Result<()> {
    let index_dir = vault.index_dir();
    if index_dir.exists() {
        std::fs::remove_dir_all(&index_dir).map_err(|e| Error::io(&index_dir, e))?;
    }
    for path in [vault.vectors_path(), vault.state_path()] {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::record::Kind;

    #[test]
    fn an_index_gone_after_the_files_are_written_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(dir.path().to_path_buf(), true).unwrap();
        let mut store = Store::open(vault, None).unwrap();
        let record = Record::new(
            "01jdq3k8v6w2m4x9t5r7c1b0ze".into(),
            Kind::Episodic,
            crate::clock::parse_time("2026-11-20").unwrap(),
            "written before the index went away",
        );
        let (rel, stamp) = store
            .vault()
            .write_new("episodic/written.md", &record.render())
            .unwrap();
        // `.engram/` deleted by hand while a bulk capture runs.
        std::fs::remove_dir_all(store.vault().engram_dir()).unwrap();
        let warnings = store.apply_after_write(vec![Change::Upsert {
            rel: rel.clone(),
            record: Box::new(record),
            stamp,
        }]);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("nothing needs capturing again")),
            "{warnings:?}"
        );
        // The next command finds the file and indexes it.
        let vault = Vault::open(dir.path().to_path_buf(), false).unwrap();
        let mut store = Store::open(vault, None).unwrap();
        let report = store.sync().unwrap();
        assert_eq!(report.added, vec![rel]);
    }
}

//! The store: a vault with its derived state (index and vectors) kept in step
//! with the files.
//!
//! Every change to the derived state goes through [`Store::apply`], whether it
//! comes from engram's own writes or from a sync that picked up edits made
//! elsewhere. Order of writes: record files first (the truth), then new vector
//! rows (appended; a row no document points at is harmless), then one index
//! commit that carries the sync [`Summary`] as its payload, so the index and
//! what is known about the files can never disagree. A crash in between is
//! repaired by the next sync, since applying a change twice is harmless.
//!
//! A read learns what changed without the lock: from a running `engram
//! watch` when there is one ([`crate::storage::feed::ask`]), else from a walk
//! of the vault whose fingerprint is compared with the summary's. Only when
//! something changed does it take the lock and bring the index up to date.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use tantivy::DocAddress;

use crate::error::{Error, Result};
use crate::models::embed::{self, Embedder};
use crate::storage::feed;
use crate::storage::index::{self, IndexedDoc, TextIndex};
use crate::storage::naming::{self, RecordRef};
use crate::storage::record::Record;
use crate::storage::sync::{self, Checked, FileEntry, Fingerprint, Stamps, StatDiff, Summary};
use crate::storage::vault::{self, FileStamp, FoundFile, Vault, VaultLock};
use crate::storage::vectors::{VectorFile, VectorRow, content_key};

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
    /// The file at `rel` exists but does not parse (`why` is `line: message`).
    Broken {
        rel: String,
        stamp: FileStamp,
        why: String,
    },
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

/// What the index remembers of one file, with the (vector key, content key)
/// of its document when it parsed.
type Known = (FileEntry, Option<(u64, u64)>);

/// A vault with its index and vectors.
pub struct Store {
    vault: Vault,
    index: TextIndex,
    summary: Summary,
    embedder: Option<Box<dyn Embedder>>,
    /// Ask a running watcher what changed before walking the vault.
    ask_watcher: bool,
}

impl Store {
    /// Opens the derived state of a vault. An index made by another version
    /// starts a clean rebuild. Derived files are only ever wiped under the vault
    /// lock: pass the lock if the caller holds it, else it is taken (and
    /// released) when a wipe is needed.
    pub fn open(vault: Vault, lock: Option<&VaultLock>) -> Result<Store> {
        let embedder = embed::from_config(vault.config())?;
        let mut index = Self::open_index(&vault, lock)?;
        let summary = match read_summary(&index)? {
            Some(summary) => summary,
            None => {
                let _guard = match lock {
                    Some(_) => None,
                    None => Some(vault.lock()?),
                };
                // Another process may have made the index meanwhile.
                index.reload()?;
                match read_summary(&index)? {
                    Some(summary) => summary,
                    None => {
                        wipe_derived(&vault)?;
                        index = TextIndex::open(&vault.index_dir())?;
                        Summary {
                            schema: index::SCHEMA_VERSION,
                            ..Summary::default()
                        }
                    }
                }
            }
        };
        Ok(Store {
            vault,
            index,
            summary,
            embedder,
            ask_watcher: true,
        })
    }

    fn open_index(vault: &Vault, lock: Option<&VaultLock>) -> Result<TextIndex> {
        match TextIndex::open(&vault.index_dir()) {
            Ok(index) => Ok(index),
            Err(Error::Index(_)) => {
                let _guard = match lock {
                    Some(_) => None,
                    None => Some(vault.lock()?),
                };
                wipe_derived(vault)?;
                TextIndex::open(&vault.index_dir())
            }
            Err(Error::Io { source, .. })
                if matches!(
                    source.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) =>
            {
                Err(Error::VaultNotFound {
                    path: vault.root().to_path_buf(),
                    reason: "it has no index yet and this user may not write to it; run \
                             `engram reindex` there once as its owner"
                        .into(),
                })
            }
            Err(e) => Err(e),
        }
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

    /// Whether syncs ask a running watcher what changed (the watcher itself
    /// must not ask itself).
    pub fn ask_watcher(&mut self, ask: bool) {
        self.ask_watcher = ask;
    }

    /// Number of files the index knows, and of those that are broken.
    pub fn file_counts(&self) -> (usize, usize) {
        (self.summary.count as usize, self.summary.broken.len())
    }

    /// Size and mtime of every file the index knows (read from its columns;
    /// for a diff that needs every path).
    pub fn known_stamps(&self) -> Result<Stamps> {
        let mut known: Stamps = self
            .index
            .listing()?
            .into_iter()
            .map(|l| (l.path, (l.size, l.mtime_ns)))
            .collect();
        known.extend(
            self.summary
                .broken
                .iter()
                .map(|(rel, e)| (rel.clone(), (e.size, e.mtime_ns))),
        );
        Ok(known)
    }

    /// Every file that failed to parse, as remembered.
    pub fn broken_files(&self) -> Vec<BrokenFile> {
        self.summary
            .broken
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

    /// What the index remembers of the file at `rel`: its document's stamp and
    /// id, or its entry among the broken files.
    fn known_entry(&self, rel: &str) -> Result<Option<FileEntry>> {
        Ok(self.known(rel)?.map(|(entry, _)| entry))
    }

    /// [`Store::known_entry`] with the (vector key, content key) of the
    /// document, for a file that parsed.
    fn known(&self, rel: &str) -> Result<Option<Known>> {
        if let Some(e) = self.summary.broken.get(rel) {
            return Ok(Some((e.clone(), None)));
        }
        let Some(addr) = self.index.find_path(rel)? else {
            return Ok(None);
        };
        let e = self.index.entry(addr)?;
        let vector = (e.vkey, e.ckey);
        let entry = FileEntry {
            size: e.size,
            mtime_ns: e.mtime_ns,
            hash: e.hash,
            id: e.id,
            broken: None,
        };
        Ok(Some((entry, Some(vector))))
    }

    /// The report of a sync that found nothing to change.
    fn unchanged(&self, warnings: Vec<String>) -> SyncReport {
        SyncReport {
            unchanged: self.summary.count as usize,
            broken: self.broken_files(),
            warnings,
            ..SyncReport::default()
        }
    }

    /// Brings the index up to date with the files, taking the lock only when
    /// something changed. For read commands.
    pub fn sync(&mut self) -> Result<SyncReport> {
        let drift = self.drift()?;
        self.sync_from(drift)
    }

    /// [`Store::sync`] once the drift is known.
    fn sync_from(&mut self, diff: StatDiff) -> Result<SyncReport> {
        if diff.is_clean() && !self.vectors_stale() {
            return Ok(self.unchanged(Vec::new()));
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
                return Ok(self.unchanged(warnings));
            }
            Err(e) => return Err(e),
        };
        // The diff stands unless another process committed while we waited
        // for the lock; then it is made again.
        let seen = self.summary.clone();
        self.refresh()?;
        let diff = if self.summary == seen {
            diff
        } else {
            self.drift()?
        };
        let _lock = lock;
        self.apply_diff(diff, &NoProgress)
    }

    /// [`Store::sync`] with a read run on the index as it is while the vault
    /// is compared with it, on another thread. When nothing changed (the
    /// common case) that read is the answer and the comparison cost no extra
    /// time; otherwise the index is brought up to date and the read run again.
    pub fn sync_while<T: Send>(
        &mut self,
        read: impl Fn(&Store) -> Result<T> + Sync,
    ) -> Result<(SyncReport, T)> {
        let (drift, early) = std::thread::scope(|scope| {
            let me: &Store = self;
            let drift = scope.spawn(|| me.drift());
            let early = read(me);
            (drift.join().expect("the vault walk panicked"), early)
        });
        let drift = drift?;
        if drift.is_clean() && !self.vectors_stale() {
            return Ok((self.unchanged(Vec::new()), early?));
        }
        let report = self.sync_from(drift)?;
        let again = read(self)?;
        Ok((report, again))
    }

    /// Brings the index up to date with the files; the caller holds the lock.
    pub fn sync_locked(
        &mut self,
        _lock: &VaultLock,
        progress: &dyn Progress,
    ) -> Result<SyncReport> {
        // Another process may have synced while we waited for the lock.
        self.refresh()?;
        let diff = self.drift()?;
        self.apply_diff(diff, progress)
    }

    /// Brings the index up to date with the paths a watcher saw change (files
    /// or folders, vault-relative); the caller holds the lock.
    pub fn sync_paths(&mut self, _lock: &VaultLock, paths: &[String]) -> Result<SyncReport> {
        self.refresh()?;
        let diff = self.with_racy(self.diff_paths(paths)?)?;
        self.apply_diff(diff, &NoProgress)
    }

    /// Reloads the index and its summary (another process may have committed).
    pub fn refresh(&mut self) -> Result<()> {
        self.index.reload()?;
        if let Some(summary) = read_summary(&self.index)? {
            self.summary = summary;
        }
        Ok(())
    }

    /// What changed since the index's commit: asks a running watcher, else
    /// walks the vault.
    fn drift(&self) -> Result<StatDiff> {
        let asked = if self.ask_watcher {
            feed::ask(&self.vault)
        } else {
            None
        };
        let diff = match asked {
            Some(paths) => self.diff_paths(&paths)?,
            None => {
                let found = self.vault.walk();
                let print = Fingerprint::of_found(&found);
                if print == self.summary.fingerprint() {
                    StatDiff {
                        unchanged: found.len(),
                        ..StatDiff::default()
                    }
                } else {
                    let known = self.known_stamps()?;
                    sync::stat_diff(&known, &found)
                }
            }
        };
        self.with_racy(diff)
    }

    /// Adds the racy files whose bytes changed behind an unchanged stamp.
    fn with_racy(&self, mut diff: StatDiff) -> Result<StatDiff> {
        for rel in self.summary.racy.keys() {
            if diff.to_check.iter().any(|f| &f.rel == rel) || diff.missing.contains(rel) {
                continue;
            }
            let path = self.vault.abs(rel);
            let (Ok(meta), Ok(bytes)) = (std::fs::symlink_metadata(&path), std::fs::read(&path))
            else {
                continue;
            };
            let known = self.known_entry(rel)?;
            if known.is_some_and(|k| k.hash == vault::content_hash(&bytes)) {
                continue;
            }
            diff.to_check.push(FoundFile {
                rel: rel.clone(),
                size: meta.len(),
                mtime_ns: vault::mtime_ns(&meta),
            });
        }
        Ok(diff)
    }

    /// The stat diff of the given paths only (files or folders).
    fn diff_paths(&self, paths: &[String]) -> Result<StatDiff> {
        let mut diff = StatDiff::default();
        let mut known_all: Option<Stamps> = None;
        let mut seen: HashSet<String> = HashSet::new();
        for rel in paths {
            let path = self.vault.abs(rel);
            let meta = std::fs::symlink_metadata(&path).ok();
            if meta.as_ref().is_some_and(|m| m.is_dir()) || meta.is_none() {
                // A folder made, moved or removed: what is under it now against
                // what the index knows under it.
                let found = if meta.is_some() {
                    self.vault.walk_under(rel)
                } else {
                    Vec::new()
                };
                let known = match &known_all {
                    Some(k) => k,
                    None => known_all.insert(self.known_stamps()?),
                };
                let prefix = format!("{}/", rel.trim_end_matches('/'));
                let under: Stamps = known
                    .iter()
                    .filter(|(k, _)| k.starts_with(&prefix))
                    .map(|(k, v)| (k.clone(), *v))
                    .collect();
                let sub = sync::stat_diff(&under, &found);
                for f in sub.to_check {
                    if seen.insert(f.rel.clone()) {
                        diff.to_check.push(f);
                    }
                }
                for m in sub.missing {
                    if seen.insert(m.clone()) {
                        diff.missing.push(m);
                    }
                }
                if meta.is_some() {
                    continue;
                }
            }
            if !naming::is_markdown(rel) || !seen.insert(rel.clone()) {
                continue;
            }
            let known = self.known_entry(rel)?;
            match (meta.filter(|m| m.is_file()), known) {
                (Some(m), Some(k)) if k.size == m.len() && k.mtime_ns == vault::mtime_ns(&m) => {
                    diff.unchanged += 1
                }
                (Some(m), _) => diff.to_check.push(FoundFile {
                    rel: rel.clone(),
                    size: m.len(),
                    mtime_ns: vault::mtime_ns(&m),
                }),
                (None, Some(_)) => diff.missing.push(rel.clone()),
                (None, None) => {}
            }
        }
        Ok(diff)
    }

    /// Whether some records lack a vector row, or the rows were made by
    /// another embedder.
    fn vectors_stale(&self) -> bool {
        let Some(embedder) = &self.embedder else {
            return false;
        };
        let records = self.summary.count - self.summary.broken.len() as u64;
        if records == 0 {
            return false;
        }
        let name = embedder.name();
        if self.summary.embedder != name || self.summary.unembedded > 0 {
            return true;
        }
        // The file deleted or damaged by hand.
        match VectorFile::open(&self.vault.vectors_path()) {
            Ok(Some(f)) => f.header().embedder != name || (f.len() as u64) < records,
            _ => true,
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
        let mut known: HashMap<String, FileEntry> = HashMap::new();
        for rel in &missing {
            if let Some(e) = self.known_entry(rel)? {
                known.insert(rel.clone(), e);
            }
        }
        progress.start(diff.to_check.len() as u64, "indexing");
        for file in &diff.to_check {
            progress.advance(1);
            let path = self.vault.abs(&file.rel);
            let bytes = match std::fs::read(&path) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    missing.push(file.rel.clone());
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
            let old = self.known_entry(&file.rel)?;
            let checked = match &old {
                Some(e) if e.hash == hash => Checked::Touched,
                Some(_) => Checked::Modified,
                None => Checked::Added,
            };
            match self.vault.parse_bytes(&file.rel, &bytes, file.mtime_ns) {
                Ok(record) => {
                    match checked {
                        Checked::Added => added.push((file.rel.clone(), hash)),
                        Checked::Modified => report.updated.push(file.rel.clone()),
                        Checked::Touched => report.unchanged += 1,
                    }
                    changes.push(Change::Upsert {
                        rel: file.rel.clone(),
                        record: Box::new(record),
                        stamp,
                    });
                }
                Err(Error::Parse { line, message, .. }) => {
                    changes.push(Change::Broken {
                        rel: file.rel.clone(),
                        stamp,
                        why: format!("{line}: {message}"),
                    });
                }
                Err(e) => return Err(e),
            }
        }
        progress.finish();
        missing.sort();
        missing.dedup();
        let renames = pair_renames(&known, &missing, &added);
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
    /// them, since the index does not list them.
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

    /// Applies changes to the vectors and the index. The caller holds the lock
    /// and has already written the files. Returns the number of records
    /// embedded and any warnings (an embedder failure costs vectors, never
    /// records). With `fill_vectors`, records that lack a vector row get one.
    pub fn apply(
        &mut self,
        changes: Vec<Change>,
        fill_vectors: bool,
    ) -> Result<(usize, Vec<String>)> {
        // Racy files are forgotten only by a commit made for another reason:
        // until then each walk hashes them again, which costs a few reads.
        let fill = fill_vectors && self.vectors_stale();
        if changes.is_empty() && !fill {
            return Ok((0, Vec::new()));
        }
        let now = now_ns();
        let mut summary = self.summary.clone();
        let mut print = summary.fingerprint();
        // What this batch changed so far, so that two changes to one path see
        // each other.
        let mut batch: HashMap<String, Option<Known>> = HashMap::new();
        let mut to_embed: Vec<(u64, u64, String)> = Vec::new();
        let mut writer = self.index.writer(changes.len())?;
        for change in changes {
            let rel = match &change {
                Change::Upsert { rel, .. }
                | Change::Remove { rel }
                | Change::Broken { rel, .. } => rel.clone(),
            };
            let old = match batch.get(&rel) {
                Some(e) => e.clone(),
                None => self.known(&rel)?,
            };
            let old_vector = old.as_ref().and_then(|(_, v)| *v);
            if let Some((o, _)) = &old {
                print.remove(&rel, o.size, o.mtime_ns);
                summary.broken.remove(&rel);
                summary.racy.remove(&rel);
            }
            match change {
                Change::Upsert { rel, record, stamp } => {
                    self.index.upsert(&writer, &rel, &record, &stamp)?;
                    print.add(&rel, stamp.size, stamp.mtime_ns);
                    summary.note_racy(&rel, stamp.mtime_ns, now);
                    let vector = (index::vector_key(&record.id), content_key(record.content()));
                    if old_vector != Some(vector) {
                        to_embed.push((vector.0, vector.1, record.content().to_string()));
                    }
                    let entry = FileEntry {
                        size: stamp.size,
                        mtime_ns: stamp.mtime_ns,
                        hash: stamp.hash,
                        id: record.id.clone(),
                        broken: None,
                    };
                    batch.insert(rel, Some((entry, Some(vector))));
                }
                Change::Remove { rel } => {
                    self.index.remove(&writer, &rel);
                    batch.insert(rel, None);
                }
                Change::Broken { rel, stamp, why } => {
                    self.index.remove(&writer, &rel);
                    print.add(&rel, stamp.size, stamp.mtime_ns);
                    summary.note_racy(&rel, stamp.mtime_ns, now);
                    let entry = FileEntry {
                        size: stamp.size,
                        mtime_ns: stamp.mtime_ns,
                        hash: stamp.hash,
                        id: String::new(),
                        broken: Some(why),
                    };
                    summary.broken.insert(rel.clone(), entry.clone());
                    batch.insert(rel, Some((entry, None)));
                }
            }
        }
        // Racy files whose window has passed were hashed again by this sync.
        summary
            .racy
            .retain(|_, t| *t >= now.saturating_sub(sync::RACY_WINDOW_NS));
        summary.trim_racy();
        summary.set_fingerprint(print);
        summary.schema = index::SCHEMA_VERSION;
        let (embedded, warnings) = self.append_vectors(&mut summary, to_embed, fill)?;
        let payload = serde_json::to_string(&summary).expect("summary serialises");
        self.index.commit(&mut writer, &payload)?;
        writer.wait_merging_threads()?;
        self.index.reload()?;
        self.summary = summary;
        if fill {
            self.compact_vectors()?;
        }
        Ok((embedded, warnings))
    }

    /// Embeds and appends rows for `to_embed`; with `fill`, also for every
    /// record that has no row yet (found by scanning the vector file). Records
    /// the embedder could not take are counted in `summary.unembedded`.
    fn append_vectors(
        &self,
        summary: &mut Summary,
        mut to_embed: Vec<(u64, u64, String)>,
        fill: bool,
    ) -> Result<(usize, Vec<String>)> {
        let Some(embedder) = &self.embedder else {
            return Ok((0, Vec::new()));
        };
        let mut warnings = Vec::new();
        let path = self.vault.vectors_path();
        let name = embedder.name();
        let file = VectorFile::open(&path).unwrap_or_else(|e| {
            warnings.push(format!("{e}; the vectors are rebuilt"));
            None
        });
        let file = file.filter(|f| f.header().embedder == name);
        let rebuild = file.is_none() || summary.embedder != name;
        if rebuild || fill {
            // Every record whose (key, content) has no row.
            let rows: HashSet<(u64, u64)> = match (&file, rebuild) {
                (Some(f), false) => f.pairs().collect(),
                _ => HashSet::new(),
            };
            let queued: HashSet<u64> = to_embed.iter().map(|t| t.0).collect();
            let keys = self.index.vector_keys(&index::Filter::default())?;
            for (key, (addr, ckey)) in keys {
                if queued.contains(&key) || rows.contains(&(key, ckey)) {
                    continue;
                }
                let doc = self.index.fetch(addr)?;
                to_embed.push((key, ckey, doc.content));
            }
            summary.unembedded = 0;
        }
        summary.embedder = name.clone();
        if rebuild {
            VectorFile::remove(&path)?;
        }
        if to_embed.is_empty() {
            return Ok((0, warnings));
        }
        let texts: Vec<String> = to_embed.iter().map(|t| t.2.clone()).collect();
        let rows: Vec<VectorRow> = match embedder.embed(&texts) {
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
                summary.unembedded += texts.len() as u64;
                return Ok((0, warnings));
            }
        };
        VectorFile::append(&path, &name, &rows)?;
        Ok((rows.len(), warnings))
    }

    /// How many records have a live row in `file`.
    pub fn live_vector_rows(&self, file: &VectorFile) -> Result<usize> {
        let keys = self.index.vector_keys(&index::Filter::default())?;
        let live: HashSet<u64> = file
            .pairs()
            .filter(|(k, c)| keys.get(k).is_some_and(|(_, ckey)| ckey == c))
            .map(|(k, _)| k)
            .collect();
        Ok(live.len())
    }

    /// Rewrites the vector file without the rows no record points at, once
    /// they outnumber the live ones.
    fn compact_vectors(&self) -> Result<()> {
        let path = self.vault.vectors_path();
        let Ok(Some(file)) = VectorFile::open(&path) else {
            return Ok(());
        };
        let live = self.index.num_docs() as usize;
        if file.len() <= 2 * live + 1024 {
            return Ok(());
        }
        let keys = self.index.vector_keys(&index::Filter::default())?;
        let keep: HashSet<(u64, u64)> = keys.iter().map(|(k, (_, c))| (*k, *c)).collect();
        file.rewrite_keeping(&path, &keep)
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
        for listed in self.index.listing()? {
            let rel = listed.path.as_str();
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

/// The summary of the index's commit, if it has one made by this version (an
/// empty index gets an empty summary; an index without one needs a rebuild).
fn read_summary(index: &TextIndex) -> Result<Option<Summary>> {
    match index.payload()? {
        Some(payload) => Ok(serde_json::from_str::<Summary>(&payload)
            .ok()
            .filter(|s| s.schema == index::SCHEMA_VERSION)),
        None if index.num_docs() == 0 => Ok(Some(Summary {
            schema: index::SCHEMA_VERSION,
            ..Summary::default()
        })),
        None => Ok(None),
    }
}

/// Now, in nanoseconds since the epoch (the clock files are stamped with).
fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Pairs removed paths with added paths holding the same bytes: renames.
fn pair_renames(
    known: &HashMap<String, FileEntry>,
    missing: &[String],
    added: &[(String, String)],
) -> Vec<(String, String)> {
    let mut by_hash: HashMap<&str, Vec<&str>> = HashMap::new();
    for rel in missing {
        if let Some(e) = known.get(rel).filter(|e| !e.hash.is_empty()) {
            by_hash
                .entry(e.hash.as_str())
                .or_default()
                .push(rel.as_str());
        }
    }
    let mut pairs = Vec::new();
    for (to, hash) in added {
        if let Some(from) = by_hash.get_mut(hash.as_str()).and_then(|f| f.pop()) {
            pairs.push((from.to_string(), to.clone()));
        }
    }
    pairs
}

/// Removes every derived file (index, vectors, and the state file of earlier
/// versions); the files stay.
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

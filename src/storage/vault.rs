//! The vault: a folder of markdown records plus `.engram/` for derived state.
//!
//! This module owns where a vault is, its layout, its lock, and every read and
//! write of a record file. Invariants:
//! - writes are atomic (temporary file in the same folder, fsync, rename);
//! - a new record never replaces an existing file; a rewrite only happens when the
//!   file still holds exactly the bytes engram read;
//! - no path derived from user input leaves the vault root;
//! - dot folders (`.engram/`, `.git/`, `.obsidian/`, `.trash/`) are never records.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::clock::Timestamp;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::storage::naming;
use crate::storage::record::{Fallbacks, Record};

/// The lines `engram init` puts in `.gitignore`.
const GITIGNORE: &str =
    "# engram: derived files, rebuilt by `engram reindex`\n.engram/*\n!.engram/config.yaml\n";

/// An open vault.
#[derive(Debug, Clone)]
pub struct Vault {
    root: PathBuf,
    config: Config,
}

/// Size, modification time and content hash of a file as engram last saw it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Hex SHA-256 (first 16 bytes) of the file's bytes.
    pub hash: String,
}

/// A markdown file found by walking the vault (no content read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// Vault-relative path with `/` separators.
    pub rel: String,
    pub size: u64,
    pub mtime_ns: i64,
}

/// A record read from its file, with the stamp of the bytes it came from.
#[derive(Debug, Clone)]
pub struct LoadedRecord {
    pub rel: String,
    pub record: Record,
    pub stamp: FileStamp,
}

/// Holds the vault lock until dropped.
#[derive(Debug)]
pub struct VaultLock {
    _file: File,
}

/// How the vault was found, for messages that say which vault a command used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Flag,
    Env,
    /// The nearest folder at or above the working directory with `.engram/`.
    Above,
    /// The per-user default vault.
    Default,
}

impl Found {
    pub fn as_str(self) -> &'static str {
        match self {
            Found::Flag => "from --vault",
            Found::Env => "from ENGRAM_VAULT",
            Found::Above => "found at or above the working directory",
            Found::Default => "the default vault",
        }
    }
}

/// Where the vault comes from: `--vault`, then `ENGRAM_VAULT`, then the nearest
/// folder with `.engram/` at or above the working directory, then the default.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf> {
    locate_how(explicit).map(|(path, _)| path)
}

/// [`locate`], saying how the vault was found.
pub fn locate_how(explicit: Option<&Path>) -> Result<(PathBuf, Found)> {
    if let Some(dir) = explicit {
        return Ok((absolute(dir), Found::Flag));
    }
    if let Some(dir) = std::env::var_os("ENGRAM_VAULT").filter(|v| !v.is_empty()) {
        return Ok((absolute(Path::new(&dir)), Found::Env));
    }
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            if dir.join(".engram").is_dir() {
                return Ok((dir.to_path_buf(), Found::Above));
            }
        }
    }
    Ok((default_vault_dir()?, Found::Default))
}

/// The per-user default vault: `$XDG_DATA_HOME/engram/vault`, else
/// `~/.local/share/engram/vault`.
pub fn default_vault_dir() -> Result<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    match data {
        Some(d) => Ok(d.join("engram").join("vault")),
        None => Err(Error::VaultNotFound {
            path: PathBuf::from("~/.local/share/engram/vault"),
            reason: "neither HOME nor XDG_DATA_HOME is set; pass --vault DIR or set ENGRAM_VAULT"
                .into(),
        }),
    }
}

fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
}

impl Vault {
    /// Opens the vault at `root`. With `create`, a missing folder is created and a
    /// folder without `.engram/` becomes a vault; without it, the folder must exist.
    pub fn open(root: PathBuf, create: bool) -> Result<Vault> {
        if root.exists() && !root.is_dir() {
            return Err(Error::VaultNotFound {
                path: root,
                reason:
                    "that path is a file, not a folder; give a folder to --vault or ENGRAM_VAULT"
                        .into(),
            });
        }
        if !root.is_dir() {
            if !create {
                return Err(Error::VaultNotFound {
                    path: root,
                    reason: "the folder does not exist; run `engram init DIR` or capture something to create it".into(),
                });
            }
            fs::create_dir_all(&root).map_err(|e| Error::io(&root, e))?;
        }
        let root = fs::canonicalize(&root).map_err(|e| Error::io(&root, e))?;
        let engram_dir = root.join(".engram");
        if !engram_dir.is_dir() {
            Vault::init_dir(&root)?;
        }
        let config = Config::load(&engram_dir.join("config.yaml"))?;
        Ok(Vault { root, config })
    }

    /// Creates `.engram/config.yaml` and `.gitignore` if missing; keeps what exists.
    pub fn init_dir(root: &Path) -> Result<()> {
        let engram_dir = root.join(".engram");
        fs::create_dir_all(&engram_dir).map_err(|e| Error::io(&engram_dir, e))?;
        let config = engram_dir.join("config.yaml");
        if !config.exists() {
            write_atomic(&config, Config::default_file_text().as_bytes())?;
        }
        let gitignore = root.join(".gitignore");
        match fs::read_to_string(&gitignore) {
            Ok(text) if text.lines().any(|l| l.trim() == ".engram/*") => {}
            Ok(text) => {
                let sep = if text.is_empty() || text.ends_with('\n') {
                    ""
                } else {
                    "\n"
                };
                write_atomic(&gitignore, format!("{text}{sep}{GITIGNORE}").as_bytes())?;
            }
            Err(_) => write_atomic(&gitignore, GITIGNORE.as_bytes())?,
        }
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// `.engram/`.
    pub fn engram_dir(&self) -> PathBuf {
        self.root.join(".engram")
    }

    /// The tantivy index folder.
    pub fn index_dir(&self) -> PathBuf {
        self.engram_dir().join("index")
    }

    /// The sidecar vector file.
    pub fn vectors_path(&self) -> PathBuf {
        self.engram_dir().join("vectors.bin")
    }

    /// The sync state file (what the index holds, per file).
    pub fn state_path(&self) -> PathBuf {
        self.engram_dir().join("state.json")
    }

    /// The absolute path of a vault-relative path.
    pub fn abs(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Where record writes stage their temporary files: inside `.engram/`, so
    /// an interrupted write never leaves a stray file among the records (and
    /// `git status` does not see it); the rename into place stays atomic, since
    /// `.engram/` is on the vault's filesystem.
    pub fn temp_dir(&self) -> PathBuf {
        self.engram_dir().join("tmp")
    }

    /// Takes the vault lock, waiting up to the configured timeout. Holding it,
    /// no other engram process is writing, so temporary files left by one that
    /// was killed are removed here. A vault this user may not write to gives
    /// [`Error::ReadOnly`].
    pub fn lock(&self) -> Result<VaultLock> {
        let path = self.engram_dir().join("lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                    Error::ReadOnly {
                        path: self.root.clone(),
                    }
                }
                _ => Error::io(&path, e),
            })?;
        // Config checks the range; a value out of it set in code waits no time.
        let timeout =
            Duration::try_from_secs_f64(self.config.lock_timeout_secs).unwrap_or(Duration::ZERO);
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => {
                    self.remove_stale_temps();
                    return Ok(VaultLock { _file: file });
                }
                Err(fs::TryLockError::WouldBlock) => {
                    if start.elapsed() >= timeout {
                        return Err(Error::Locked {
                            path: self.root.clone(),
                            waited_ms: start.elapsed().as_millis() as u64,
                        });
                    }
                    std::thread::sleep(Duration::from_millis(15));
                }
                Err(fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
            }
        }
    }

    /// Removes the temporary files that a killed engram process left in
    /// `.engram/tmp/`, `.engram/` and the index folder (tantivy's own `.tmp…`
    /// files); the caller holds the lock. Best effort: what cannot be removed
    /// now is removed next time.
    fn remove_stale_temps(&self) {
        let places = [
            (self.temp_dir(), TEMP_PREFIX),
            (self.engram_dir(), TEMP_PREFIX),
            (self.index_dir(), ".tmp"),
        ];
        for (dir, prefix) in places {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let stale = entry.file_name().to_string_lossy().starts_with(prefix)
                    && entry.file_type().is_ok_and(|t| t.is_file());
                if stale {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
    }

    /// Every markdown file of the vault, outside dot folders, in no particular
    /// order. Unreadable entries are skipped (and `doctor` reports them).
    pub fn walk(&self) -> Vec<FoundFile> {
        self.walk_under("")
    }

    /// [`Vault::walk`] of one folder of the vault (`""` for all of it).
    ///
    /// Directory listings give the file types; the one `stat` per file that
    /// size and mtime need is where the time goes, so the listings are split
    /// among a few threads, each `stat` relative to its open folder (no path
    /// lookup from the root).
    pub fn walk_under(&self, rel_dir: &str) -> Vec<FoundFile> {
        let start = if rel_dir.is_empty() {
            self.root.clone()
        } else {
            self.abs(rel_dir)
        };
        let prefix = if rel_dir.is_empty() {
            String::new()
        } else {
            format!("{}/", rel_dir.trim_end_matches('/'))
        };
        // Folders are listed one after the other on this thread; once there
        // are enough entries to share, they go in chunks to a few threads that
        // stat them while the listing goes on.
        const CHUNK: usize = 1024;
        let stat = |part: &[(String, fs::DirEntry)], out: &mut Vec<FoundFile>| {
            for (rel, entry) in part {
                if let Ok(meta) = entry.metadata()
                    && meta.is_file()
                {
                    out.push(FoundFile {
                        rel: rel.clone(),
                        size: meta.len(),
                        mtime_ns: mtime_ns(&meta),
                    });
                }
            }
        };
        let mut folders = vec![(start, prefix)];
        let mut list = |sink: &mut dyn FnMut((String, fs::DirEntry))| {
            while let Some((dir, prefix)) = folders.pop() {
                let Ok(listing) = fs::read_dir(&dir) else {
                    continue;
                };
                for entry in listing.flatten() {
                    let Ok(kind) = entry.file_type() else {
                        continue;
                    };
                    let name = entry.file_name();
                    let Some(name) = name.to_str() else { continue };
                    if kind.is_dir() {
                        if !name.starts_with('.') {
                            folders.push((entry.path(), format!("{prefix}{name}/")));
                        }
                    } else if kind.is_file() && naming::is_markdown(name) {
                        sink((format!("{prefix}{name}"), entry));
                    }
                }
            }
        };
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(String, fs::DirEntry)>>(256);
        let rx = std::sync::Mutex::new(rx);
        std::thread::scope(|scope| {
            // The stat threads start once a first chunk is full: a small
            // vault is done on this thread alone.
            let mut workers = Vec::new();
            let mut chunk = Vec::with_capacity(CHUNK);
            list(&mut |e| {
                chunk.push(e);
                if chunk.len() < CHUNK {
                    return;
                }
                if workers.is_empty() {
                    let rx = &rx;
                    workers = (0..threads)
                        .map(|_| {
                            scope.spawn(move || {
                                let mut found = Vec::new();
                                loop {
                                    let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                                    match next {
                                        Ok(part) => stat(&part, &mut found),
                                        Err(_) => return found,
                                    }
                                }
                            })
                        })
                        .collect();
                }
                let _ = tx.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)));
            });
            let mut found = Vec::new();
            if workers.is_empty() {
                stat(&chunk, &mut found);
            } else {
                let _ = tx.send(chunk);
            }
            drop(tx);
            for worker in workers {
                found.extend(worker.join().expect("a stat thread panicked"));
            }
            found
        })
    }

    /// What [`Vault::walk`] passes over that a person may expect among the
    /// records: linked notes and folders (not followed, since a link may lead
    /// out of the vault), notes whose names are not UTF-8, and folders engram
    /// may not read. For `doctor`; each comes with why and what to do.
    pub fn unindexable(&self) -> Vec<(String, String)> {
        let mut found = Vec::new();
        let walker = walkdir::WalkDir::new(&self.root)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0 || !e.file_name().as_encoded_bytes().starts_with(b".")
            });
        let shown = |path: &Path| {
            path.strip_prefix(&self.root)
                .unwrap_or(path)
                .to_string_lossy()
                .into_owned()
        };
        for entry in walker {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    let place = e.path().map(shown).unwrap_or_default();
                    let why = e
                        .io_error()
                        .map_or_else(|| e.to_string(), |io| io.to_string());
                    found.push((
                        place,
                        format!("cannot be read ({why}); its notes are not indexed until engram may read it"),
                    ));
                    continue;
                }
            };
            let name = entry.file_name();
            let is_md = Path::new(name)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"));
            if entry.path_is_symlink()
                && (is_md || fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()))
            {
                found.push((
                    shown(entry.path()),
                    "a symbolic link, not followed (it could lead out of the vault); put the note itself in the vault".into(),
                ));
            } else if name.to_str().is_none() && (is_md || entry.file_type().is_dir()) {
                found.push((
                    shown(entry.path()),
                    "its name is not valid UTF-8, so it is not indexed; rename it".into(),
                ));
            }
        }
        found
    }

    fn rel_of(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.root).ok()?.to_str()?;
        Some(if std::path::MAIN_SEPARATOR == '/' {
            rel.to_string()
        } else {
            rel.replace(std::path::MAIN_SEPARATOR, "/")
        })
    }

    /// Resolves a path a user typed (absolute, or relative to the vault) to a
    /// vault-relative path, refusing anything outside the vault.
    pub fn resolve_user_path(&self, input: &str) -> Result<String> {
        let candidate = Path::new(input);
        let joined = if candidate.is_absolute() {
            candidate.to_path_buf()
        } else {
            self.root.join(candidate)
        };
        let escapes = || {
            Error::Input(format!(
                "'{input}' is outside the vault {}",
                self.root.display()
            ))
        };
        let Ok(real) = fs::canonicalize(&joined) else {
            // Nothing there; still, a path that leads out is refused as such.
            return Err(if lexically_inside(&self.root, &joined) {
                Error::NotFound(input.to_string())
            } else {
                escapes()
            });
        };
        if !real.starts_with(&self.root) {
            return Err(escapes());
        }
        let rel = self.rel_of(&real).ok_or_else(escapes)?;
        if Path::new(&rel)
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(escapes());
        }
        Ok(rel)
    }

    /// Reads and parses one record file.
    pub fn read(&self, rel: &str) -> Result<LoadedRecord> {
        let path = self.abs(rel);
        let bytes = fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let meta = fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        let stamp = FileStamp {
            size: bytes.len() as u64,
            mtime_ns: mtime_ns(&meta),
            hash: content_hash(&bytes),
        };
        let record = self.parse_bytes(rel, &bytes, stamp.mtime_ns)?;
        Ok(LoadedRecord {
            rel: rel.to_string(),
            record,
            stamp,
        })
    }

    /// Parses a record file's bytes; the error names the file and line.
    pub fn parse_bytes(&self, rel: &str, bytes: &[u8], mtime_ns: i64) -> Result<Record> {
        let path = self.abs(rel);
        let text = std::str::from_utf8(bytes).map_err(|e| Error::Parse {
            path: path.clone(),
            line: 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count(),
            message: "not valid UTF-8 text".into(),
        })?;
        let fallbacks = Fallbacks {
            id: naming::derived_id(rel),
            kind: naming::kind_from_path(rel),
            created: timestamp_of_ns(mtime_ns),
        };
        Record::parse(text, &fallbacks).map_err(|e| Error::Parse {
            path,
            line: e.line,
            message: e.message,
        })
    }

    /// Writes a new record file; never replaces an existing file (on a name clash
    /// a counter is added). Returns the relative path written and its stamp.
    pub fn write_new(&self, rel: &str, text: &str) -> Result<(String, FileStamp)> {
        let mut rel = rel.to_string();
        let mut n = 1;
        loop {
            let path = self.abs(&rel);
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            }
            match persist_new(&self.temp_dir(), &path, text.as_bytes()) {
                Ok(stamp) => return Ok((rel, stamp)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    n += 1;
                    let stem = rel.trim_end_matches(".md");
                    let stem = stem.rsplit_once("~").map_or(stem, |(s, _)| s).to_string();
                    rel = format!("{stem}~{n}.md");
                }
                Err(e) => return Err(Error::io(path, e)),
            }
        }
    }

    /// Rewrites a record file, only if it still holds the bytes stamped in
    /// `expected`. Writing the same bytes again is skipped.
    pub fn rewrite(&self, rel: &str, text: &str, expected: &FileStamp) -> Result<FileStamp> {
        let path = self.abs(rel);
        let current = fs::read(&path).map_err(|e| Error::io(&path, e))?;
        if content_hash(&current) != expected.hash {
            return Err(Error::ChangedOnDisk { path });
        }
        if current == text.as_bytes() {
            return stamp_of(&path, &current);
        }
        replace_via(&self.temp_dir(), &path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
        stamp_of(&path, text.as_bytes())
    }

    /// Deletes a record file, only if it still holds the bytes stamped in `expected`.
    pub fn delete(&self, rel: &str, expected: &FileStamp) -> Result<()> {
        let path = self.abs(rel);
        let current = fs::read(&path).map_err(|e| Error::io(&path, e))?;
        if content_hash(&current) != expected.hash {
            return Err(Error::ChangedOnDisk { path });
        }
        fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
        // Leave no empty folders behind that engram made (best effort).
        if let Some(dir) = path.parent().filter(|d| *d != self.root) {
            let _ = fs::remove_dir(dir);
        }
        Ok(())
    }
}

/// Whether `path`, with `.` and `..` worked out by name alone, lies under `root`.
fn lexically_inside(root: &Path, path: &Path) -> bool {
    let mut parts: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(parts.last(), Some(Component::Normal(_))) {
                    parts.pop();
                } else {
                    return false;
                }
            }
            c => parts.push(c),
        }
    }
    parts.iter().collect::<PathBuf>().starts_with(root)
}

/// Hex of the first 16 bytes of the SHA-256 of `bytes`.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// A file's modification time in nanoseconds since the epoch.
pub fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64)
}

fn timestamp_of_ns(ns: i64) -> Timestamp {
    chrono::DateTime::from_timestamp(ns / 1_000_000_000, 0).unwrap_or_default()
}

fn stamp_of(path: &Path, bytes: &[u8]) -> Result<FileStamp> {
    let meta = fs::metadata(path).map_err(|e| Error::io(path, e))?;
    Ok(FileStamp {
        size: bytes.len() as u64,
        mtime_ns: mtime_ns(&meta),
        hash: content_hash(bytes),
    })
}

/// The name every engram temporary file starts with.
pub const TEMP_PREFIX: &str = ".engram-tmp-";

/// A temporary file in `dir` whose mode is 0666 less the umask, as a file made
/// by any other program (tempfile's own default is 0600).
pub fn temp_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// The folder a file is in.
fn folder_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// A temporary file holding `bytes`, synced, staged in `staging` (created when
/// missing) or, when `staging` cannot be used, next to `path`.
fn staged(staging: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let mut tmp = match fs::create_dir_all(staging).and_then(|()| temp_in(staging)) {
        Ok(tmp) => tmp,
        Err(_) => temp_in(folder_of(path))?,
    };
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    Ok(tmp)
}

/// Stages `bytes` in `staging` and hands the temporary file to `place` (which
/// renames it to `path`). When the rename crosses filesystems (`.engram/`
/// mounted apart from the records), stages again beside `path`.
fn via_staging(
    staging: &Path,
    path: &Path,
    bytes: &[u8],
    place: impl Fn(tempfile::NamedTempFile) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match place(staged(staging, path, bytes)?) {
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
            place(staged(folder_of(path), path, bytes)?)
        }
        other => other,
    }
}

/// Creates `path` with `bytes` as an unnamed file in its folder (`O_TMPFILE`),
/// written and fsynced, then linked to its name, which fails if the name is
/// taken. Nothing is ever visible half-written, a killed writer leaves nothing
/// behind, and no temporary name is made or removed: the cheapest atomic
/// create. `None` where the filesystem or the system cannot (no `O_TMPFILE`,
/// no `/proc`); the caller then stages a named temporary file.
#[cfg(target_os = "linux")]
fn link_new(path: &Path, bytes: &[u8]) -> std::io::Result<Option<FileStamp>> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let unsupported = |e: &std::io::Error| {
        matches!(
            e.raw_os_error(),
            Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL | libc::ENOENT | libc::EXDEV)
        )
    };
    let file = match OpenOptions::new()
        .write(true)
        .mode(0o666)
        .custom_flags(libc::O_TMPFILE)
        .open(folder_of(path))
    {
        Ok(f) => f,
        Err(e) if unsupported(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    (&file).write_all(bytes)?;
    file.sync_all()?;
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))
        .expect("no NUL in a number");
    let Ok(to) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return Ok(None);
    };
    // SAFETY: both arguments are NUL-terminated strings that outlive the call.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if linked != 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::AlreadyExists && unsupported(&e) {
            return Ok(None);
        }
        return Err(e);
    }
    let meta = file.metadata()?;
    Ok(Some(FileStamp {
        size: bytes.len() as u64,
        mtime_ns: mtime_ns(&meta),
        hash: content_hash(bytes),
    }))
}

/// Atomically writes `bytes` to `path` (replacing it): temporary file in the same
/// folder, write, fsync, rename. The temporary file is removed on error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_via(folder_of(path), path, bytes).map_err(|e| Error::io(path, e))
}

/// Replaces `path` with `bytes` through a temporary file staged in `staging`.
/// A file that exists keeps its permissions (a note a person made 0644 stays
/// 0644).
fn replace_via(staging: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let keep = fs::metadata(path).ok().map(|m| m.permissions());
    via_staging(staging, path, bytes, |tmp| {
        if let Some(perms) = &keep {
            fs::set_permissions(tmp.path(), perms.clone())?;
        }
        tmp.persist(path).map(drop).map_err(|e| e.error)
    })
}

/// Atomically creates `path` with `bytes` through a temporary file staged in
/// `staging`; fails with `AlreadyExists` if `path` exists.
fn persist_new(staging: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<FileStamp> {
    #[cfg(target_os = "linux")]
    if let Some(stamp) = link_new(path, bytes)? {
        return Ok(stamp);
    }
    via_staging(staging, path, bytes, |tmp| {
        tmp.persist_noclobber(path).map(drop).map_err(|e| e.error)
    })?;
    let meta = fs::metadata(path)?;
    Ok(FileStamp {
        size: bytes.len() as u64,
        mtime_ns: mtime_ns(&meta),
        hash: content_hash(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> (tempfile::TempDir, Vault) {
        let dir = tempfile::tempdir().unwrap();
        let v = Vault::open(dir.path().to_path_buf(), true).unwrap();
        (dir, v)
    }

    #[test]
    fn opening_makes_a_vault_with_config_and_gitignore() {
        let (_d, v) = vault();
        assert!(v.engram_dir().join("config.yaml").is_file());
        let gi = fs::read_to_string(v.root().join(".gitignore")).unwrap();
        assert!(gi.contains(".engram/*"));
    }

    #[test]
    fn walk_skips_dot_folders_and_non_markdown() {
        let (_d, v) = vault();
        for p in [
            "a.md",
            "x/b.md",
            ".obsidian/c.md",
            ".git/d.md",
            "e.txt",
            "x/.trash/f.md",
        ] {
            let path = v.abs(p);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "hi").unwrap();
        }
        let rels: Vec<String> = v.walk().into_iter().map(|f| f.rel).collect();
        assert_eq!(rels, vec!["a.md", "x/b.md"]);
    }

    #[test]
    fn walk_finds_every_file_of_folders_bigger_than_a_chunk() {
        let (_d, v) = vault();
        let mut want = Vec::new();
        for (folder, n) in [
            ("semantic/general", 3100),
            ("episodic/2026-11", 2200),
            ("x", 7),
        ] {
            fs::create_dir_all(v.abs(folder)).unwrap();
            for i in 0..n {
                let rel = format!("{folder}/n{i}.md");
                fs::write(v.abs(&rel), "x").unwrap();
                want.push(rel);
            }
        }
        want.sort();
        let mut found: Vec<String> = v.walk().into_iter().map(|f| f.rel).collect();
        found.sort();
        assert_eq!(found.len(), want.len());
        assert_eq!(found, want);
        assert_eq!(v.walk_under("semantic").len(), 3100);
    }

    #[test]
    fn write_new_never_clobbers() {
        let (_d, v) = vault();
        let (a, _) = v.write_new("semantic/user/x.md", "one").unwrap();
        let (b, _) = v.write_new("semantic/user/x.md", "two").unwrap();
        assert_ne!(a, b);
        assert_eq!(fs::read_to_string(v.abs(&a)).unwrap(), "one");
        assert_eq!(fs::read_to_string(v.abs(&b)).unwrap(), "two");
    }

    #[test]
    fn rewrite_refuses_a_file_changed_since_read() {
        let (_d, v) = vault();
        let (rel, stamp) = v.write_new("a.md", "one").unwrap();
        fs::write(v.abs(&rel), "edited by hand").unwrap();
        let err = v.rewrite(&rel, "two", &stamp).unwrap_err();
        assert!(matches!(err, Error::ChangedOnDisk { .. }));
        assert_eq!(fs::read_to_string(v.abs(&rel)).unwrap(), "edited by hand");
    }

    #[test]
    fn user_paths_cannot_escape() {
        let (d, v) = vault();
        fs::write(v.abs("a.md"), "x").unwrap();
        assert_eq!(v.resolve_user_path("a.md").unwrap(), "a.md");
        let outside = d.path().parent().unwrap().join("outside.md");
        fs::write(&outside, "x").unwrap();
        assert!(v.resolve_user_path("../outside.md").is_err());
        // Refused as outside even when nothing is there.
        for gone in ["../nothing-here.md", "a/../../nothing.md", "/nowhere/x.md"] {
            assert!(
                matches!(v.resolve_user_path(gone), Err(Error::Input(_))),
                "{gone}"
            );
        }
        assert!(matches!(
            v.resolve_user_path("a/../missing.md"),
            Err(Error::NotFound(_))
        ));
        assert!(v.resolve_user_path(outside.to_str().unwrap()).is_err());
        let _ = fs::remove_file(outside);
    }

    #[test]
    fn lock_is_exclusive_and_times_out() {
        let (_d, mut v) = vault();
        v.config.lock_timeout_secs = 0.05;
        let held = v.lock().unwrap();
        // A second open file description conflicts even within one process.
        assert!(matches!(v.lock(), Err(Error::Locked { .. })));
        drop(held);
        assert!(v.lock().is_ok());
    }
}

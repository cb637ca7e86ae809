//! Watch: keeps a vault's index and vectors live from file notifications.
//!
//! Notifications only say *that* something changed; the sync that follows a
//! batch of them decides *what*, for the paths and folders they named (the
//! [`Feed`] keeps that list). That makes every editor save pattern (write a
//! temporary file and rename it over the note, delete then create) and a burst
//! of thousands of events (a `git checkout`) end the same way: one correct sync,
//! once the vault has been quiet for the debounce interval (or after
//! `max_delay` during a long burst). A lost or overflowed notification, and the
//! start, make that sync a walk of the whole vault. Events under dot folders
//! (`.engram/` itself, `.git/`, `.obsidian/`) and for files that are not
//! markdown are ignored.
//!
//! While a watcher runs, other commands ask it what changed through the feed
//! ([`crate::storage::feed`]) instead of walking. It also keeps
//! `.engram/watch.json` (its pid) and touches it every [`HEARTBEAT`], so that a
//! second watcher finds it with [`live_watcher`] and declines. A file whose
//! process is gone or whose heartbeat is older than [`STALE_AFTER`] is ignored.
//! The vault folder being moved or removed stops the watcher with
//! [`Stop::VaultGone`]: its new place is unknown.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use notify::{EventKind, RecursiveMode, Watcher as _};
use serde::{Deserialize, Serialize};

use crate::clock;
use crate::error::{Error, Result};
use crate::storage::feed::{self, Feed, Pending, relevant_path};
use crate::storage::store::{NoProgress, Store, SyncReport};
use crate::storage::vault::{self, Vault};

/// How often a running watcher refreshes its heartbeat.
pub const HEARTBEAT: Duration = Duration::from_secs(2);
/// A heartbeat older than this means the watcher is gone.
pub const STALE_AFTER: Duration = Duration::from_secs(10);
const WATCH_FILE: &str = "watch.json";

/// What `.engram/watch.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchInfo {
    pub pid: u32,
    /// When the watcher started (RFC 3339).
    pub started: String,
}

/// The watch file of a vault.
pub fn watch_file(vault: &Vault) -> PathBuf {
    vault.engram_dir().join(WATCH_FILE)
}

/// The watcher that keeps this vault's index up to date, if one is running: its
/// file exists, names a live process, and was touched within [`STALE_AFTER`].
pub fn live_watcher(vault: &Vault) -> Option<WatchInfo> {
    let path = watch_file(vault);
    let meta = fs::metadata(&path).ok()?;
    let age = SystemTime::now()
        .duration_since(meta.modified().ok()?)
        .unwrap_or_default();
    if age > STALE_AFTER {
        return None;
    }
    let info: WatchInfo = serde_json::from_slice(&fs::read(&path).ok()?).ok()?;
    process_alive(info.pid).then_some(info)
}

#[cfg(target_os = "linux")]
fn process_alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(not(target_os = "linux"))]
fn process_alive(_pid: u32) -> bool {
    // No cheap portable check: the heartbeat alone decides.
    true
}

/// This process's claim on a vault as its watcher: writes the watch file, keeps
/// its heartbeat fresh from a small thread, and removes it when dropped.
pub struct Registration {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Registration {
    /// Registers this process as the vault's watcher (the caller checks
    /// [`live_watcher`] first: one watcher per vault is enough).
    pub fn new(vault: &Vault) -> Result<Registration> {
        let path = watch_file(vault);
        let info = WatchInfo {
            pid: std::process::id(),
            started: clock::format_time(&chrono::Utc::now()),
        };
        let bytes = serde_json::to_vec(&info).expect("watch info serialises");
        vault::write_atomic(&path, &bytes)?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (path, stop) = (path.clone(), stop.clone());
            std::thread::spawn(move || heartbeat(&path, &bytes, &stop))
        };
        Ok(Registration {
            path,
            stop,
            thread: Some(thread),
        })
    }
}

/// Touches the watch file every [`HEARTBEAT`] (rewriting it if someone deleted
/// it, as long as `.engram/` exists) until told to stop.
fn heartbeat(path: &Path, bytes: &[u8], stop: &AtomicBool) {
    let step = Duration::from_millis(100);
    let mut since = Duration::ZERO;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(step);
        since += step;
        if since < HEARTBEAT {
            continue;
        }
        since = Duration::ZERO;
        match fs::File::options().write(true).open(path) {
            Ok(file) => {
                let _ = file.set_modified(SystemTime::now());
            }
            Err(_) if path.parent().is_some_and(Path::is_dir) => {
                let _ = vault::write_atomic(path, bytes);
            }
            Err(_) => {}
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // Only our own file: a watcher started after us keeps its claim.
        let ours = fs::read(&self.path)
            .ok()
            .and_then(|b| serde_json::from_slice::<WatchInfo>(&b).ok())
            .is_some_and(|w| w.pid == std::process::id());
        if ours {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Why a watch ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// [`Stopper::stop`] was called (Ctrl-C).
    Interrupted,
    /// The vault folder was moved or removed.
    VaultGone(PathBuf),
}

/// Timing of the debounce.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Sync once no relevant event came for this long.
    pub debounce: Duration,
    /// ... or at the latest this long after the first event of a burst.
    pub max_delay: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            debounce: Duration::from_millis(300),
            max_delay: Duration::from_secs(3),
        }
    }
}

enum Signal {
    Fs(notify::Result<notify::Event>),
    Stop,
}

/// Ends a running watch from another thread (a signal handler).
#[derive(Clone)]
pub struct Stopper(Sender<Signal>);

impl Stopper {
    pub fn stop(&self) {
        let _ = self.0.send(Signal::Stop);
    }
}

/// What a batch did: its sync report, or why the sync failed (retried later).
pub type Batch = Result<SyncReport>;

/// A running watch of one vault.
pub struct Watch {
    store: Store,
    root: PathBuf,
    root_id: Option<(u64, u64)>,
    tx: Sender<Signal>,
    rx: Receiver<Signal>,
    /// The last sync failed: open the store afresh before the next one.
    reopen: bool,
    /// What changed, for this sync loop and for other commands.
    feed: Feed,
    _watcher: notify::RecommendedWatcher,
}

impl Drop for Watch {
    fn drop(&mut self) {
        Feed::close(self.store.vault());
    }
}

impl Watch {
    /// Starts watching the store's vault (recursively). Events are queued from
    /// now on; nothing is synced until [`Watch::run`].
    pub fn start(store: Store) -> Result<Watch> {
        let mut store = store;
        store.ask_watcher(false);
        let root = store.vault().root().to_path_buf();
        let feed = Feed::new(store.vault());
        fs::create_dir_all(feed::cookie_dir(store.vault()))
            .map_err(|e| Error::io(feed::cookie_dir(store.vault()), e))?;
        let (tx, rx) = mpsc::channel();
        let events = tx.clone();
        let noted = feed.clone();
        let mut watcher = notify::recommended_watcher(move |e| {
            noted.note(&e);
            let _ = events.send(Signal::Fs(e));
        })
        .map_err(|e| notify_error(&root, e))?;
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map_err(|e| notify_error(&root, e))?;
        // Only once every change is noted may commands be told what changed.
        feed.serve(store.vault())
            .map_err(|e| Error::io(feed::socket_path(store.vault()), e))?;
        Ok(Watch {
            root_id: folder_id(&root),
            store,
            root,
            tx,
            rx,
            reopen: false,
            feed,
            _watcher: watcher,
        })
    }

    /// A handle that ends [`Watch::run`].
    pub fn stopper(&self) -> Stopper {
        Stopper(self.tx.clone())
    }

    /// Syncs once (catching up with what changed while nobody watched), then
    /// after every debounced batch of events, calling `on_batch` with each
    /// result, until stopped or the vault folder disappears. A failed sync is
    /// retried after a growing pause (0.5 s up to 30 s) or on the next change.
    pub fn run(&mut self, opts: Options, mut on_batch: impl FnMut(&Batch)) -> Result<Stop> {
        let tick = Duration::from_millis(500);
        let mut failures = 0u32;
        let mut retry_at: Option<Instant> = None;
        let mut batch = |w: &mut Watch, failures: &mut u32, retry_at: &mut Option<Instant>| {
            if w.sync_batch(&mut on_batch) {
                *failures = 0;
                *retry_at = None;
            } else {
                *failures += 1;
                let pause = tick * 2u32.saturating_pow((*failures - 1).min(6));
                *retry_at = Some(Instant::now() + pause.min(Duration::from_secs(30)));
            }
        };
        batch(self, &mut failures, &mut retry_at);
        loop {
            let first = match self.rx.recv_timeout(tick) {
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => {
                    return Ok(Stop::Interrupted);
                }
                Ok(Signal::Fs(e)) => self.relevant(&e),
                Err(RecvTimeoutError::Timeout) => false,
            };
            if let Some(gone) = self.vault_gone() {
                return Ok(Stop::VaultGone(gone));
            }
            let due = retry_at.is_some_and(|t| Instant::now() >= t);
            if !first && !due {
                continue;
            }
            if first && self.drain_burst(opts) {
                return Ok(Stop::Interrupted);
            }
            if let Some(gone) = self.vault_gone() {
                return Ok(Stop::VaultGone(gone));
            }
            batch(self, &mut failures, &mut retry_at);
        }
    }

    /// Waits until the events stop for `opts.debounce` (at most
    /// `opts.max_delay`); true if told to stop meanwhile.
    fn drain_burst(&self, opts: Options) -> bool {
        let start = Instant::now();
        let mut last = start;
        loop {
            let now = Instant::now();
            let quiet_left = opts.debounce.saturating_sub(now - last);
            let burst_left = opts.max_delay.saturating_sub(now - start);
            let wait = quiet_left.min(burst_left);
            if wait.is_zero() {
                return false;
            }
            match self.rx.recv_timeout(wait) {
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => return true,
                Ok(Signal::Fs(e)) => {
                    if self.relevant(&e) {
                        last = Instant::now();
                    }
                }
                Err(RecvTimeoutError::Timeout) => return false,
            }
        }
    }

    /// Runs one sync and reports it; false if it failed.
    fn sync_batch(&mut self, on_batch: &mut impl FnMut(&Batch)) -> bool {
        if self.reopen {
            // After a failure (e.g. `.engram/` deleted, which it may be at any
            // time), open the derived state afresh, as any command would.
            match Vault::open(self.root.clone(), false).and_then(|v| Store::open(v, None)) {
                Ok(mut store) => {
                    store.ask_watcher(false);
                    self.store = store;
                    self.reopen = false;
                }
                Err(e) => {
                    on_batch(&Err(e));
                    return false;
                }
            }
        }
        let (pending, seq) = self.feed.pending();
        let result = match &pending {
            Pending::Nothing => return true,
            Pending::Walk => self
                .store
                .vault()
                .lock()
                .and_then(|lock| self.store.sync_locked(&lock, &NoProgress)),
            Pending::Paths(paths) => self
                .store
                .vault()
                .lock()
                .and_then(|lock| self.store.sync_paths(&lock, paths)),
        };
        if result.is_ok() {
            self.feed.synced(&pending, seq);
        }
        self.reopen = result.is_err();
        on_batch(&result);
        result.is_ok()
    }

    /// Whether an event may concern a record: anything outside dot folders that
    /// is a markdown file or could be a folder; an overflow always is.
    fn relevant(&self, event: &notify::Result<notify::Event>) -> bool {
        let Ok(event) = event else { return true };
        if event.need_rescan() {
            return true;
        }
        if matches!(event.kind, EventKind::Access(_)) {
            return false;
        }
        event.paths.iter().any(|p| relevant_path(&self.root, p))
    }

    /// The vault folder, if it is no longer where it was (or another folder
    /// took its place).
    fn vault_gone(&self) -> Option<PathBuf> {
        match folder_id(&self.root) {
            Some(id) if Some(id) == self.root_id => None,
            Some(_) if self.root_id.is_none() => None,
            _ => Some(self.root.clone()),
        }
    }
}

fn notify_error(root: &Path, e: notify::Error) -> Error {
    Error::io(
        root,
        std::io::Error::other(format!(
            "cannot watch for changes: {e} (on Linux, raise fs.inotify.max_user_watches)"
        )),
    )
}

/// Device and inode of a folder (None when it does not exist).
fn folder_id(path: &Path) -> Option<(u64, u64)> {
    let meta = fs::metadata(path).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Some((0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_markdown_and_folders_outside_dot_folders_matter() {
        let root = Path::new("/v");
        let yes = ["/v", "/v/a.md", "/v/x/B.MD", "/v/folder", "/elsewhere/a.md"];
        for p in yes {
            assert!(relevant_path(root, Path::new(p)), "{p}");
        }
        let no = [
            "/v/.engram/state.json",
            "/v/.engram/index/x",
            "/v/.git/index.lock",
            "/v/.obsidian/workspace.json",
            "/v/x/.trash/a.md",
            "/v/x/.engram-tmp-abc",
            "/v/x/.a.md.swp",
            "/v/a.md~",
            "/v/attachments/p.png",
            "/v/Board.canvas",
        ];
        for p in no {
            assert!(!relevant_path(root, Path::new(p)), "{p}");
        }
    }

    #[test]
    fn a_stale_or_dead_watch_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(dir.path().to_path_buf(), true).unwrap();
        assert!(live_watcher(&vault).is_none());
        let reg = Registration::new(&vault).unwrap();
        let me = live_watcher(&vault).expect("our own registration is live");
        assert_eq!(me.pid, std::process::id());
        drop(reg);
        assert!(!watch_file(&vault).exists(), "removed on drop");
        // A fresh file whose process is gone.
        let dead = WatchInfo {
            pid: u32::MAX - 1,
            started: "2026-11-20T09:12:44Z".into(),
        };
        fs::write(watch_file(&vault), serde_json::to_vec(&dead).unwrap()).unwrap();
        if cfg!(target_os = "linux") {
            assert!(live_watcher(&vault).is_none());
        }
        // A live process with an old heartbeat.
        let me = WatchInfo {
            pid: std::process::id(),
            started: "2026-11-20T09:12:44Z".into(),
        };
        fs::write(watch_file(&vault), serde_json::to_vec(&me).unwrap()).unwrap();
        assert!(live_watcher(&vault).is_some());
        let old = SystemTime::now() - STALE_AFTER - Duration::from_secs(5);
        fs::File::options()
            .write(true)
            .open(watch_file(&vault))
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(live_watcher(&vault).is_none());
    }
}

//! The change feed: a running `engram watch` tells other commands which paths
//! changed since its last sync, so that they need not stat every file.
//!
//! The watcher listens on `.engram/watch.sock`. A command connects, sends a
//! cookie name, and creates `.engram/cookies/NAME`. File notifications arrive
//! in the order the changes happened, so once the watcher has seen the
//! cookie's own notification it has seen every change saved before the
//! command started (the barrier of git's fsmonitor daemon). It then answers
//! with the paths that changed since its last completed sync, or with `walk`
//! when it cannot vouch for the vault: it is still catching up after
//! starting, notifications were lost (queue overflow), or too many paths
//! changed to be worth listing. Any failure (no watcher, a dead one, a
//! read-only vault, no answer within [`ANSWER_WITHIN`]) means the command
//! walks the vault itself, as it would with no watcher at all.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::storage::vault::Vault;

/// How long a command waits for the watcher's answer before walking itself.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(2);

/// More changed paths than this and the watcher says `walk`.
const MAX_PATHS: usize = 20_000;

const SOCKET: &str = "watch.sock";
const COOKIES: &str = "cookies";

/// The socket a vault's watcher listens on.
pub fn socket_path(vault: &Vault) -> PathBuf {
    vault.engram_dir().join(SOCKET)
}

/// The folder commands put their cookies in.
pub fn cookie_dir(vault: &Vault) -> PathBuf {
    vault.engram_dir().join(COOKIES)
}

/// What the watcher answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Answer {
    /// The watcher cannot vouch for the vault: walk it.
    walk: bool,
    /// Vault-relative paths (files or folders) changed since its last sync.
    paths: Vec<String>,
}

/// Asks the watcher of this vault, if one runs, which paths changed since its
/// last sync; `None` means walk the vault.
pub fn ask(vault: &Vault) -> Option<Vec<String>> {
    #[cfg(unix)]
    {
        ask_unix(vault)
    }
    #[cfg(not(unix))]
    {
        let _ = vault;
        None
    }
}

#[cfg(unix)]
fn ask_unix(vault: &Vault) -> Option<Vec<String>> {
    use std::os::unix::net::UnixStream;
    let socket = socket_path(vault);
    let mut stream = UnixStream::connect(&socket).ok()?;
    stream.set_read_timeout(Some(ANSWER_WITHIN)).ok()?;
    stream.set_write_timeout(Some(ANSWER_WITHIN)).ok()?;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "{}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    stream.write_all(format!("{name}\n").as_bytes()).ok()?;
    let cookie = cookie_dir(vault).join(&name);
    fs::File::create_new(&cookie).ok()?;
    let mut line = String::new();
    let read = BufReader::new(&stream).read_line(&mut line);
    let _ = fs::remove_file(&cookie);
    read.ok()?;
    let answer: Answer = serde_json::from_str(line.trim_end()).ok()?;
    (!answer.walk).then_some(answer.paths)
}

/// What the watcher knows, shared by the notification handler, the socket
/// thread and the sync loop.
#[derive(Debug, Default)]
struct FeedState {
    /// Counts notifications.
    seq: u64,
    /// Changed paths with the `seq` of their latest notification.
    dirty: HashMap<String, u64>,
    /// The `seq` at which the vault last needed a full walk (start-up, lost
    /// notifications), until a full sync that began after it succeeds.
    walk_since: Option<u64>,
    /// Cookies whose notification has arrived, not yet asked for.
    cookies: HashSet<String>,
}

/// The watcher's side of the feed.
#[derive(Clone)]
pub struct Feed {
    root: PathBuf,
    cookies: PathBuf,
    shared: Arc<(Mutex<FeedState>, Condvar)>,
}

/// What one sync of the watcher should cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// Nothing changed.
    Nothing,
    /// These paths changed.
    Paths(Vec<String>),
    /// Walk the whole vault.
    Walk,
}

impl Feed {
    /// A feed that asks for a full walk until the first sync succeeds.
    pub fn new(vault: &Vault) -> Feed {
        Feed {
            root: vault.root().to_path_buf(),
            cookies: cookie_dir(vault),
            shared: Arc::new((
                Mutex::new(FeedState {
                    walk_since: Some(0),
                    ..FeedState::default()
                }),
                Condvar::new(),
            )),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, FeedState> {
        self.shared.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes in one notification (from the notification thread).
    pub fn note(&self, event: &notify::Result<notify::Event>) {
        let mut state = self.state();
        state.seq += 1;
        let seq = state.seq;
        let event = match event {
            Ok(e) => e,
            Err(_) => {
                state.walk_since = Some(seq);
                return;
            }
        };
        if event.need_rescan() {
            state.walk_since = Some(seq);
        }
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return;
        }
        for path in &event.paths {
            if let Ok(name) = path.strip_prefix(&self.cookies) {
                if let Some(name) = name.to_str() {
                    state.cookies.insert(name.to_string());
                    // Cookies of commands that gave up are dropped in bulk.
                    if state.cookies.len() > 1024 {
                        state.cookies.clear();
                        state.cookies.insert(name.to_string());
                    }
                    self.shared.1.notify_all();
                }
                continue;
            }
            if !relevant_path(&self.root, path) {
                continue;
            }
            match path.strip_prefix(&self.root).ok().and_then(Path::to_str) {
                Some("") => state.walk_since = Some(seq),
                Some(rel) => {
                    let rel = rel.replace(std::path::MAIN_SEPARATOR, "/");
                    state.dirty.insert(rel, seq);
                }
                // Outside the vault or not UTF-8: only a walk can tell.
                None => state.walk_since = Some(seq),
            }
        }
        if state.dirty.len() > MAX_PATHS {
            state.walk_since = Some(seq);
            state.dirty.clear();
        }
    }

    /// What the next sync should cover, with the `seq` it covers up to.
    pub fn pending(&self) -> (Pending, u64) {
        let state = self.state();
        let pending = if state.walk_since.is_some() {
            Pending::Walk
        } else if state.dirty.is_empty() {
            Pending::Nothing
        } else {
            Pending::Paths(state.dirty.keys().cloned().collect())
        };
        (pending, state.seq)
    }

    /// A sync that covered everything up to `seq` succeeded.
    pub fn synced(&self, pending: &Pending, seq: u64) {
        let mut state = self.state();
        state.dirty.retain(|_, s| *s > seq);
        if *pending == Pending::Walk && state.walk_since.is_some_and(|w| w <= seq) {
            state.walk_since = None;
        }
    }

    /// The answer to a command that created cookie `name`, once its
    /// notification has arrived (or `walk` after [`ANSWER_WITHIN`]).
    fn answer(&self, name: &str) -> Answer {
        let deadline = Instant::now() + ANSWER_WITHIN;
        let mut state = self.state();
        loop {
            if state.cookies.remove(name) {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Answer {
                    walk: true,
                    paths: Vec::new(),
                };
            }
            state = self
                .shared
                .1
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if state.walk_since.is_some() {
            return Answer {
                walk: true,
                paths: Vec::new(),
            };
        }
        Answer {
            walk: false,
            paths: state.dirty.keys().cloned().collect(),
        }
    }

    /// Listens on the vault's socket and answers each command in turn, on a
    /// thread of its own, until the process ends. Without a socket (a path
    /// too long for one, a platform without them) commands walk the vault.
    pub fn serve(&self, vault: &Vault) -> std::io::Result<()> {
        fs::create_dir_all(&self.cookies)?;
        #[cfg(unix)]
        {
            use std::os::unix::net::UnixListener;
            let socket = socket_path(vault);
            let _ = fs::remove_file(&socket);
            let listener = UnixListener::bind(&socket)?;
            let feed = self.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let _ = stream.set_read_timeout(Some(ANSWER_WITHIN));
                    let mut line = String::new();
                    if BufReader::new(&stream).read_line(&mut line).is_err() {
                        continue;
                    }
                    let name = line.trim_end();
                    let answer = feed.answer(name);
                    let mut reply = serde_json::to_string(&answer).expect("answer serialises");
                    reply.push('\n');
                    let mut stream = stream;
                    let _ = stream.write_all(reply.as_bytes());
                }
            });
        }
        #[cfg(not(unix))]
        let _ = vault;
        Ok(())
    }

    /// Removes the socket (when the watcher stops).
    pub fn close(vault: &Vault) {
        let _ = fs::remove_file(socket_path(vault));
    }
}

/// Whether a changed path may be a record or a folder holding records.
pub fn relevant_path(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return true;
    };
    let names: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let Some(leaf) = names.last() else {
        return true;
    };
    if names.iter().any(|n| n.starts_with('.')) {
        return false;
    }
    match Path::new(leaf).extension() {
        None => true,
        Some(ext) if ext.eq_ignore_ascii_case("md") => true,
        Some(_) => path.is_dir(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: notify::EventKind, path: &Path) -> notify::Result<notify::Event> {
        Ok(notify::Event::new(kind).add_path(path.to_path_buf()))
    }

    #[test]
    fn the_feed_lists_changes_until_a_sync_covers_them() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(dir.path().to_path_buf(), true).unwrap();
        let feed = Feed::new(&vault);
        let modify = notify::EventKind::Modify(notify::event::ModifyKind::Any);
        assert_eq!(feed.pending().0, Pending::Walk, "a new watcher walks first");
        let (pending, seq) = feed.pending();
        feed.synced(&pending, seq);
        assert_eq!(feed.pending().0, Pending::Nothing);
        feed.note(&event(modify, &dir.path().join("a.md")));
        feed.note(&event(modify, &dir.path().join(".engram/index/x")));
        let (pending, seq) = feed.pending();
        assert_eq!(pending, Pending::Paths(vec!["a.md".into()]));
        // A change during the sync stays for the next one.
        feed.note(&event(modify, &dir.path().join("b.md")));
        feed.synced(&pending, seq);
        assert_eq!(feed.pending().0, Pending::Paths(vec!["b.md".into()]));
        // Lost notifications: walk.
        let mut lost = notify::Event::new(notify::EventKind::Other);
        lost = lost.set_flag(notify::event::Flag::Rescan);
        feed.note(&Ok(lost));
        assert_eq!(feed.pending().0, Pending::Walk);
        // The answer waits for the cookie.
        let cookie = cookie_dir(&vault).join("c1");
        let waiter = {
            let feed = feed.clone();
            std::thread::spawn(move || feed.answer("c1"))
        };
        std::thread::sleep(Duration::from_millis(50));
        feed.note(&event(
            notify::EventKind::Create(notify::event::CreateKind::File),
            &cookie,
        ));
        let answer = waiter.join().unwrap();
        assert!(answer.walk, "{answer:?}");
    }
}

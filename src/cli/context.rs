//! What every command gets: the global flags, the output, the store it opens
//! (kept open between the tool calls of `engram mcp`), and the list of what it
//! changed in the vault, committed to git after the command succeeds.

use std::cell::{RefCell, RefMut};
use std::path::PathBuf;

use crate::cli::output::Output;
use crate::error::Error;
use crate::storage::git;
use crate::storage::store::Store;
use crate::storage::vault::{self, Vault};
use crate::storage::writer::Mutation;

/// What every command gets: the parsed global flags and the output, and where
/// it records what it changed in the vault (for the git commit that follows a
/// successful command).
pub struct Context {
    pub vault_flag: Option<PathBuf>,
    pub out: Output,
    /// `--commit`: commit the changes even without `git.auto_commit`.
    pub commit: bool,
    changes: RefCell<Vec<PendingCommit>>,
    vault_used: RefCell<Option<(PathBuf, vault::Found)>>,
    /// The store, once a command opened it: one process, one open index.
    store: RefCell<Option<Store>>,
}

/// What one command changed in the vault, for its git commit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeNote {
    /// The command: `capture`, `forget`, `consolidate`, `prune`.
    pub op: String,
    /// One line per mutation, e.g. `UPDATE lives-in-lisbon-a1b2c3 (supersedes
    /// lives-in-berlin-d4e5f6)`.
    pub summary_lines: Vec<String>,
    /// Every file written, rewritten or deleted, vault-relative (including a
    /// superseded record's file).
    pub paths: Vec<String>,
    /// The session the changes belong to, if known.
    pub session: Option<String>,
}

impl ChangeNote {
    /// The note for a list of mutations: one line per mutation (`OP file-stem`,
    /// with the record it supersedes), their paths and the paths of the records
    /// they name as `previous` (looked up in the store).
    pub fn from_mutations(
        store: &Store,
        op: &str,
        mutations: &[Mutation],
        session: Option<&str>,
    ) -> ChangeNote {
        let stem = |path: &str| {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.strip_suffix(".md").unwrap_or(name).to_string()
        };
        let mut note = ChangeNote {
            op: op.to_string(),
            session: session.map(str::to_string),
            ..ChangeNote::default()
        };
        for m in mutations {
            let mut line = format!("{} {}", m.op, stem(&m.path));
            if let Some(prev) = m.previous.as_ref().and_then(|p| previous_path(store, p)) {
                line.push_str(&format!(" (supersedes {})", stem(&prev)));
                note.paths.push(prev);
            }
            note.summary_lines.push(line);
            note.paths.push(m.path.clone());
        }
        note
    }
}

/// The file of the record a mutation supersedes: `previous` is `{"path", ...}`,
/// or an id looked up in the store.
fn previous_path(store: &Store, previous: &serde_json::Value) -> Option<String> {
    if let Some(path) = previous.get("path").and_then(|p| p.as_str()) {
        return Some(path.to_string());
    }
    let id = previous
        .as_str()
        .or_else(|| previous.get("id").and_then(|i| i.as_str()))?;
    store.resolve(id).ok().map(|doc| doc.path)
}

#[derive(Debug, Clone)]
struct PendingCommit {
    root: PathBuf,
    auto_commit: bool,
    note: ChangeNote,
}

impl Context {
    /// A context for these global flags.
    pub fn new(vault_flag: Option<PathBuf>, out: Output, commit: bool) -> Context {
        Context {
            vault_flag,
            out,
            commit,
            changes: RefCell::new(Vec::new()),
            vault_used: RefCell::new(None),
            store: RefCell::new(None),
        }
    }

    /// Records what the command changed in `vault`; committed to git after the
    /// command succeeds, when `--commit` or `git.auto_commit` asks for it.
    /// Call it once the files are written (not for a dry run).
    pub fn vault_changed(&self, vault: &Vault, note: ChangeNote) {
        if note.paths.is_empty() {
            return;
        }
        self.changes.borrow_mut().push(PendingCommit {
            root: vault.root().to_path_buf(),
            auto_commit: vault.config().git.auto_commit,
            note,
        });
    }

    /// [`Context::vault_changed`] for a list of mutations (see
    /// [`ChangeNote::from_mutations`]).
    pub fn record_mutations(
        &self,
        store: &Store,
        op: &str,
        mutations: &[Mutation],
        session: Option<&str>,
    ) {
        let note = ChangeNote::from_mutations(store, op, mutations, session);
        self.vault_changed(store.vault(), note);
    }

    /// Makes the git commit of what the command changed: one commit per vault,
    /// holding exactly the recorded paths. Skipped without `--commit` or
    /// `git.auto_commit`, outside a git work tree, or when nothing differs.
    pub fn commit_changes(&self) {
        let pending = std::mem::take(&mut *self.changes.borrow_mut());
        let mut roots: Vec<&PathBuf> = pending.iter().map(|p| &p.root).collect();
        roots.sort();
        roots.dedup();
        for root in roots {
            let notes: Vec<&PendingCommit> = pending.iter().filter(|p| &p.root == root).collect();
            if !self.commit && !notes.iter().any(|p| p.auto_commit) {
                continue;
            }
            let Some(repo) = git::Repo::discover(root) else {
                self.out.info(&format!(
                    "{} is not in a git work tree: nothing committed",
                    root.display()
                ));
                continue;
            };
            let op = notes[0].note.op.clone();
            let lines: Vec<String> = notes
                .iter()
                .flat_map(|p| p.note.summary_lines.iter().cloned())
                .collect();
            let paths: Vec<String> = notes
                .iter()
                .flat_map(|p| p.note.paths.iter().cloned())
                .collect();
            let session = notes.iter().find_map(|p| p.note.session.as_deref());
            let message = git::commit_message(&op, &lines, session);
            // One engram process at a time talks to git about this vault.
            let _lock = Vault::open(root.clone(), false).and_then(|v| v.lock());
            match repo.commit_paths(&paths, &message) {
                Ok(Some(commit)) => self.out.info(&format!(
                    "committed {} ({})",
                    &commit[..commit.len().min(12)],
                    message.lines().next().unwrap_or("")
                )),
                Ok(None) => self.out.info("nothing to commit"),
                Err(e) => self.out.warn(&format!(
                    "the changes are saved but were not committed: {e}"
                )),
            }
        }
    }

    /// Finds the vault, remembers it for messages and names it with -v.
    fn locate(&self) -> anyhow::Result<(PathBuf, vault::Found)> {
        let (root, found) = vault::locate_how(self.vault_flag.as_deref())?;
        self.out
            .info(&format!("vault: {} ({})", root.display(), found.as_str()));
        *self.vault_used.borrow_mut() = Some((root.clone(), found));
        Ok((root, found))
    }

    /// A "no such record" error names the vault that was searched, since it
    /// may not be the one the user had in mind (the default vault, outside
    /// any other).
    pub fn naming_vault(&self, e: anyhow::Error) -> anyhow::Error {
        let searched = matches!(
            e.downcast_ref::<Error>(),
            Some(Error::NotFound(_) | Error::Ambiguous { .. })
        );
        match self.vault_used() {
            Some((root, found)) if searched => {
                anyhow::anyhow!("{e} (searched {}, {})", root.display(), found.as_str())
            }
            _ => e,
        }
    }

    /// The vault this command used and how it was found, once located.
    pub fn vault_used(&self) -> Option<(PathBuf, vault::Found)> {
        self.vault_used.borrow().clone()
    }

    /// Opens the vault for reading: it must exist.
    pub fn open_vault(&self) -> anyhow::Result<Vault> {
        let (root, _) = self.locate()?;
        Ok(Vault::open(root, false)?)
    }

    /// Opens the vault for writing: created when missing. Creating the
    /// default vault is said on stderr, since nothing named it.
    pub fn open_vault_for_write(&self) -> anyhow::Result<Vault> {
        let (root, found) = self.locate()?;
        let new = !root.join(".engram").is_dir();
        let vault = Vault::open(root, true)?;
        if new && found == vault::Found::Default && !self.out.quiet {
            eprintln!(
                "engram: created the default vault at {} (--vault DIR or ENGRAM_VAULT picks another)",
                vault.root().display()
            );
        }
        Ok(vault)
    }

    /// The vault's store: opened on first use (the vault must exist), then
    /// the same one. Its index is as the last command left it: each command
    /// syncs (or reloads) before it reads.
    pub fn store(&self) -> anyhow::Result<RefMut<'_, Store>> {
        self.store_opened(false)
    }

    /// [`Context::store`] for a command that writes: the vault is created
    /// when missing.
    pub fn store_for_write(&self) -> anyhow::Result<RefMut<'_, Store>> {
        self.store_opened(true)
    }

    fn store_opened(&self, write: bool) -> anyhow::Result<RefMut<'_, Store>> {
        let mut slot = self.store.borrow_mut();
        if slot.is_none() {
            let vault = if write {
                self.open_vault_for_write()?
            } else {
                self.open_vault()?
            };
            if vault.config().embedder_provider() == "builtin" {
                // The built-in embedder's tables are built while the index opens.
                std::thread::spawn(crate::models::embed::table::prepare);
            }
            *slot = Some(Store::open(vault, None)?);
        }
        Ok(RefMut::map(slot, |s| s.as_mut().expect("opened above")))
    }

    /// Closes the store (the next command opens it again), after a failure
    /// that may have left it behind the files.
    pub fn close_store(&self) {
        self.store.borrow_mut().take();
    }

    /// Forgets what a failed command changed: it is not committed.
    pub fn discard_changes(&self) {
        self.changes.borrow_mut().clear();
    }

    /// Opens the vault and brings its index up to date (for read commands);
    /// while a watcher runs on the vault, it says what changed and nothing
    /// else is looked at.
    pub fn open_synced(&self) -> anyhow::Result<RefMut<'_, Store>> {
        let mut store = self.store()?;
        let report = store.sync()?;
        self.out.sync_warnings(&report);
        Ok(store)
    }
}

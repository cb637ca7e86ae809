//! The command line: flags (clap), dispatch, and the one place where errors
//! become messages and exit codes (0 ok, 1 runtime failure, 2 usage, 3 vault).
//! Each subcommand lives in its own file; the `match` in [`run`] is the only list
//! of commands.

mod capture;
mod completions;
mod consolidate;
mod doctor;
mod history;
mod init;
mod list;
mod maintenance;
mod output;
mod recall;
mod show;
mod watch;

use std::cell::RefCell;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::clock::{self, Timestamp};
use crate::error::Error;
use crate::storage::git;
use crate::storage::index::{Filter, Validity};
use crate::storage::record::Kind;
use crate::storage::store::Store;
use crate::storage::vault::{self, Vault};
use crate::storage::writer::Mutation;
pub use output::Output;

/// Memory for AI agents: plain markdown files, found again in milliseconds.
#[derive(Debug, Parser)]
#[command(name = "engram", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The vault folder (else $ENGRAM_VAULT, else the nearest folder above holding
    /// .engram/, else the per-user default vault).
    #[arg(long, global = true, value_name = "DIR")]
    pub vault: Option<PathBuf>,
    /// Print one JSON document on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print nothing but results and errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Say more about what happens (on stderr).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Commit what this command changes in the vault's git repository (same as
    /// `git: {auto_commit: true}` in the config).
    #[arg(long, global = true)]
    pub commit: bool,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a vault (config, .gitignore; --git also runs git init).
    Init(init::InitArgs),
    /// Remember something: TEXT, --file or standard input.
    #[command(visible_alias = "remember")]
    Capture(capture::CaptureArgs),
    /// Find memories: hybrid search, filtered and ranked.
    Recall(recall::RecallArgs),
    /// Print one record.
    Show(show::ShowArgs),
    /// Invalidate a record (--hard deletes its file).
    Forget(show::ForgetArgs),
    /// List records by filter, newest first.
    List(list::ListArgs),
    /// Counts per kind and status, and index health.
    Stats,
    /// Rebuild the index and vectors from the files.
    Reindex,
    /// Pick up files added, edited, renamed or deleted outside engram.
    Sync,
    /// Turn episodes into facts; summarise a session (--session).
    Consolidate(consolidate::ConsolidateArgs),
    /// Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions.
    Prune(consolidate::PruneArgs),
    /// Check every file and the index; --fix repairs what it can.
    Doctor(doctor::DoctorArgs),
    /// Keep the index live while files change (until Ctrl-C).
    Watch(watch::WatchArgs),
    /// A record's past versions, from git.
    History(history::HistoryArgs),
    /// Print a shell completion script.
    Completions(completions::CompletionsArgs),
}

/// A record kind, as a flag value.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KindArg {
    Working,
    Episodic,
    Semantic,
    Procedural,
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Kind {
        match k {
            KindArg::Working => Kind::Working,
            KindArg::Episodic => Kind::Episodic,
            KindArg::Semantic => Kind::Semantic,
            KindArg::Procedural => Kind::Procedural,
        }
    }
}

/// The filters shared by `recall` and `list`.
#[derive(Debug, Clone, Args, Default)]
pub struct FilterArgs {
    /// Only this kind (repeat for several).
    #[arg(long, value_enum)]
    pub kind: Vec<KindArg>,
    /// Only records of this user (exact).
    #[arg(long)]
    pub user: Option<String>,
    /// Only records of this agent (exact).
    #[arg(long)]
    pub agent: Option<String>,
    /// Only records of this session (exact).
    #[arg(long)]
    pub session: Option<String>,
    /// Only records about this subject (exact).
    #[arg(long)]
    pub subject: Option<String>,
    /// Only records of this category (exact).
    #[arg(long)]
    pub category: Option<String>,
    /// Only records with this tag (repeat: all must match).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Created at or after TIME (RFC 3339, a date, or a duration ago like 7d).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Created at or before TIME.
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// What was valid at TIME (includes values superseded since).
    #[arg(long, value_name = "TIME")]
    pub as_of: Option<String>,
    /// Also superseded, invalidated, archived and expired records.
    #[arg(long)]
    pub include_superseded: bool,
}

impl FilterArgs {
    /// The index filter these flags ask for.
    pub fn to_filter(&self, now: Timestamp) -> Result<Filter, Error> {
        let time = |flag: &str, v: &Option<String>| -> Result<Option<Timestamp>, Error> {
            v.as_deref()
                .map(|t| {
                    clock::parse_time_arg(t, now).map_err(|e| Error::Input(format!("{flag}: {e}")))
                })
                .transpose()
        };
        let as_of = time("--as-of", &self.as_of)?;
        let validity = match (as_of, self.include_superseded) {
            (Some(t), _) => Validity::AsOf(t),
            (None, true) => Validity::Any,
            (None, false) => Validity::CurrentAt(now),
        };
        Ok(Filter {
            kinds: self.kind.iter().map(|k| Kind::from(*k)).collect(),
            user: self.user.clone(),
            agent: self.agent.clone(),
            session: self.session.clone(),
            subject: self.subject.clone(),
            category: self.category.clone(),
            tags: self.tags.clone(),
            status: None,
            unconsolidated: false,
            since: time("--since", &self.since)?,
            until: time("--until", &self.until)?,
            validity,
        })
    }
}

/// What every command gets: the parsed global flags and the output, and where
/// it records what it changed in the vault (for the git commit that follows a
/// successful command).
pub struct Context {
    pub vault_flag: Option<PathBuf>,
    pub out: Output,
    /// `--commit`: commit the changes even without `git.auto_commit`.
    pub commit: bool,
    changes: RefCell<Vec<PendingCommit>>,
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
    fn commit_changes(&self) {
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

    /// Opens the vault for reading: it must exist.
    pub fn open_vault(&self) -> anyhow::Result<Vault> {
        let root = vault::locate(self.vault_flag.as_deref())?;
        Ok(Vault::open(root, false)?)
    }

    /// Opens the vault for writing: created when missing.
    pub fn open_vault_for_write(&self) -> anyhow::Result<Vault> {
        let root = vault::locate(self.vault_flag.as_deref())?;
        Ok(Vault::open(root, true)?)
    }

    /// Opens the vault and brings its index up to date (for read commands);
    /// while `engram watch` runs on the vault, it does that and this skips it.
    pub fn open_synced(&self) -> anyhow::Result<Store> {
        let vault = self.open_vault()?;
        if let Some(w) = crate::storage::watch::live_watcher(&vault) {
            self.out.info(&format!(
                "engram watch (pid {}) keeps the index up to date: no sync",
                w.pid
            ));
            return Ok(Store::open(vault, None)?);
        }
        let mut store = Store::open(vault, None)?;
        let report = store.sync()?;
        self.out.sync_warnings(&report);
        Ok(store)
    }
}

/// Parses the arguments, runs the command and returns the exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return ExitCode::from(code as u8);
        }
    };
    let out = Output::new(cli.json, cli.quiet, cli.verbose);
    let ctx = Context::new(cli.vault.clone(), out, cli.commit);
    match run(&ctx, cli.command) {
        Ok(code) => {
            ctx.commit_changes();
            code
        }
        Err(e) => {
            ctx.out.error(&e);
            ExitCode::from(exit_code(&e))
        }
    }
}

fn exit_code(e: &anyhow::Error) -> u8 {
    match e.downcast_ref::<Error>() {
        Some(err) if err.is_usage() => 2,
        Some(err) if err.is_vault_problem() => 3,
        _ => 1,
    }
}

fn run(ctx: &Context, command: Command) -> anyhow::Result<ExitCode> {
    let now = clock::now()?;
    match command {
        Command::Init(args) => init::run(ctx, args),
        Command::Capture(args) => capture::run(ctx, args, now),
        Command::Recall(args) => recall::run(ctx, args, now),
        Command::Show(args) => show::run_show(ctx, args),
        Command::Forget(args) => show::run_forget(ctx, args, now),
        Command::List(args) => list::run(ctx, args, now),
        Command::Stats => maintenance::run_stats(ctx, now),
        Command::Reindex => maintenance::run_reindex(ctx),
        Command::Sync => maintenance::run_sync(ctx),
        Command::Consolidate(args) => consolidate::run_consolidate(ctx, args, now),
        Command::Prune(args) => consolidate::run_prune(ctx, args, now),
        Command::Doctor(args) => doctor::run(ctx, args),
        Command::Watch(args) => watch::run(ctx, args),
        Command::History(args) => history::run(ctx, args),
        Command::Completions(args) => completions::run(ctx, args),
    }
}

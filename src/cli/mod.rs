//! The command line: flags (clap), dispatch, and the one place where errors
//! become messages and exit codes (0 ok, 1 runtime failure, 2 usage, 3 vault).
//! Each subcommand lives in its own file; the `match` in [`run`] is the only list
//! of commands.

mod capture;
mod completions;
mod doctor;
mod init;
mod list;
mod maintenance;
mod output;
mod recall;
mod show;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::clock::{self, Timestamp};
use crate::error::Error;
use crate::index::{Filter, Validity};
use crate::record::Kind;
use crate::store::Store;
use crate::vault::{self, Vault};
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
    /// Check every file and the index; --fix repairs what it can.
    Doctor(doctor::DoctorArgs),
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
            since: time("--since", &self.since)?,
            until: time("--until", &self.until)?,
            validity,
        })
    }
}

/// What every command gets: the parsed global flags and the output.
pub struct Context {
    pub vault_flag: Option<PathBuf>,
    pub out: Output,
}

impl Context {
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

    /// Opens the vault and brings its index up to date (for read commands).
    pub fn open_synced(&self) -> anyhow::Result<Store> {
        let mut store = Store::open(self.open_vault()?, None)?;
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
    let ctx = Context {
        vault_flag: cli.vault.clone(),
        out,
    };
    match run(&ctx, cli.command) {
        Ok(code) => code,
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
        Command::Doctor(args) => doctor::run(ctx, args),
        Command::Completions(args) => completions::run(ctx, args),
    }
}

//! The flags: every clap struct of the command line, parsed in one place.
//!
//! [`Cli`] holds the global flags and one [`Command`]; each subcommand's flags
//! are a struct here, and its file under `cli/` turns them into the settings
//! the library takes (for instance [`FilterArgs::to_filter`]). Nothing here
//! runs a command.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::clock::{self, Timestamp};
use crate::error::Error;
use crate::memory::keyed::KeyScope;
use crate::storage::index::{Filter, Validity};
use crate::storage::record::Kind;

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
    Init(InitArgs),
    /// Remember something: TEXT, --file or standard input.
    #[command(visible_alias = "remember")]
    Capture(CaptureArgs),
    /// Find memories: hybrid search, filtered and ranked.
    Recall(RecallArgs),
    /// Print one record.
    Show(ShowArgs),
    /// Invalidate a record and its copies in other tiers (--hard deletes their files).
    Forget(ForgetArgs),
    /// Bring an ended record (superseded, invalidated, archived) back.
    Restore(RestoreArgs),
    /// List records by filter, newest first.
    List(ListArgs),
    /// Counts per kind and status, and index health.
    Stats,
    /// Rebuild the index and vectors from the files.
    Reindex,
    /// Pick up files added, edited, renamed or deleted outside engram.
    Sync,
    /// Turn episodes into facts; summarise a session (--session).
    Consolidate(ConsolidateArgs),
    /// Merge duplicates, expire TTLs, archive decayed episodes, evict idle sessions.
    Prune(PruneArgs),
    /// Check every file and the index; --fix repairs what it can.
    Doctor(DoctorArgs),
    /// Keep the index live while files change (until Ctrl-C).
    Watch(WatchArgs),
    /// A record's past versions, from git; a key's past values (--key).
    History(HistoryArgs),
    /// Set a keyed fact: KEY holds VALUE in this scope (the old value is superseded).
    Set(SetArgs),
    /// Print a keyed fact's value (exit 1 when it has none in this scope).
    Get(GetArgs),
    /// Remove a keyed fact's value (it is invalidated, kept in history).
    Unset(UnsetArgs),
    /// Count how a procedure's run went: success or failure (--note keeps why).
    Outcome(OutcomeArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Serve the vault to agents over the Model Context Protocol (stdio).
    Mcp(McpArgs),
}

/// A record kind, as a flag value (and a tool argument of `engram mcp`).
#[derive(Debug, Clone, Copy, ValueEnum, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
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

/// The filters shared by `recall` and `list` (and their tools in `engram mcp`).
#[derive(Debug, Clone, Args, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct FilterArgs {
    /// Only this kind (repeat for several).
    #[arg(long, value_enum)]
    #[schemars(description = "Only these kinds (any of them).")]
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
    #[schemars(description = "Only records with all of these tags.")]
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
            exact_scope: false,
            attribute: None,
            key: None,
            since: time("--since", &self.since)?,
            until: time("--until", &self.until)?,
            validity,
        })
    }
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to make a vault of (default: --vault, $ENGRAM_VAULT, or the
    /// per-user default vault).
    pub dir: Option<PathBuf>,
    /// Also run `git init` in it.
    #[arg(long)]
    pub git: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum InputFormat {
    /// Prose.
    Text,
    /// A JSON array of {role, content} messages (the OpenAI shape).
    Chat,
    /// One JSON record per line: {"content", "kind"?, "subject"?, ...}.
    Jsonl,
    /// An agent's notes, one a line: each kept as written, then reconciled.
    Notes,
}

#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// What to remember (joined by spaces); else --file, else standard input.
    pub text: Vec<String>,
    /// Read the input from FILE (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// How to read the input.
    #[arg(long, value_enum, default_value_t = InputFormat::Text)]
    pub input: InputFormat,
    /// Whose memory this is: records get `user: NAME`, and recall,
    /// consolidate and prune keep one user's records apart from another's.
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// The agent that captures: records get `agent: NAME` (recall --agent
    /// filters on it).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// The conversation this comes from: working memory is kept per session,
    /// and consolidate turns a session's episodes into facts.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// The tier to write to (raw capture: episodic unless told).
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    /// Who or what the records are about (default: the user, or the person
    /// a sentence names).
    #[arg(long, value_name = "NAME")]
    pub subject: Option<String>,
    /// 0 to 1.
    #[arg(long)]
    pub importance: Option<f64>,
    /// Comma-separated tags.
    #[arg(long, value_name = "A,B")]
    pub tags: Option<String>,
    /// Expire after this long (30d, 12h, 2w).
    #[arg(long, value_name = "DURATION")]
    pub ttl: Option<String>,
    /// Store as given: no extraction, one record per input, JSONL line or chat
    /// message (with its role: a transcript, see recall --format transcript).
    #[arg(long)]
    pub raw: bool,
    /// Plan only: print what would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Say why each mutation happens.
    #[arg(long)]
    pub explain: bool,
    /// Characters of each assistant message read for facts with --input chat
    /// (--raw keeps every message whole, as a transcript).
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub assistant_chars: usize,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Text,
    Json,
    /// A prompt block: facts, then working memory, then recent episodes.
    Context,
    /// One absolute file path per line.
    Paths,
    /// A session's messages, oldest first, as a JSON array of {role, content}
    /// (needs --session).
    Transcript,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModeArg {
    Hybrid,
    Bm25,
    Vector,
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to look for (joined by spaces); none lists by salience and recency.
    pub query: Vec<String>,
    /// How many results (default 10, or recall.k in the config).
    #[arg(short = 'k', long = "limit", value_name = "N")]
    pub k: Option<usize>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Retrievers to use (default hybrid: BM25 plus vectors from the built-in
    /// embedder or the configured one; `embedder.provider: none` turns vectors
    /// off).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Output form (--json is the same as --format json, except with
    /// --format transcript, which is JSON already).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// With --format context: keep the block within about N tokens (4
    /// characters each), facts first; the last line says what was left out.
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// With --format transcript: only the last N messages.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Show the parts of each score.
    #[arg(long)]
    pub explain: bool,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
pub struct ShowArgs {
    /// The record: its id, the short id that ends its file name (c1b0ze), a
    /// unique prefix of either, a path in the vault (.md optional), or a
    /// wikilink ([[semantic/user/is-vegetarian-c1b0ze]]).
    #[arg(value_name = "ID")]
    pub id: String,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
pub struct ForgetArgs {
    /// The record: its id, the short id that ends its file name (c1b0ze), a
    /// unique prefix of either, a path in the vault (.md optional), or a
    /// wikilink ([[semantic/user/is-vegetarian-c1b0ze]]).
    #[arg(value_name = "ID")]
    pub id: String,
    /// Delete the file instead of marking it invalidated.
    #[arg(long)]
    #[serde(default)]
    pub hard: bool,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The record: its id, the short id that ends its file name (c1b0ze), a
    /// unique prefix of either, a path in the vault (.md optional), or a
    /// wikilink ([[semantic/user/is-vegetarian-c1b0ze]]).
    #[arg(value_name = "ID")]
    pub id: String,
    /// Why it comes back (kept in its `reason`; default "restored by engram
    /// restore").
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

#[derive(Debug, Args, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ListArgs {
    #[command(flatten)]
    #[serde(flatten)]
    pub filter: FilterArgs,
    /// At most N records (default: all; 50 through `engram mcp`).
    #[arg(short = 'k', long = "limit", value_name = "N")]
    #[serde(alias = "k")]
    pub limit: Option<usize>,
}

#[derive(Debug, Args, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ConsolidateArgs {
    /// Only this user's memories (every agent's, each scope on its own).
    #[arg(long)]
    pub user: Option<String>,
    /// Only this agent's memories (every user's, each scope on its own).
    #[arg(long)]
    pub agent: Option<String>,
    /// Also summarise this session's turns into one episode and archive them.
    #[arg(long)]
    pub session: Option<String>,
    /// With --session: the most recent turns left as they are (default 2).
    #[arg(long, value_name = "N", requires = "session")]
    pub keep: Option<usize>,
    /// Run even when the thresholds are not met.
    #[arg(long)]
    pub force: bool,
    /// Print the plan only; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PruneArgs {
    /// Only this user's memories (every agent's, each scope on its own).
    #[arg(long)]
    pub user: Option<String>,
    /// Only this agent's memories (every user's, each scope on its own).
    #[arg(long)]
    pub agent: Option<String>,
    /// Print the plan only; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Delete the files of what is pruned instead of archiving them.
    #[arg(long)]
    pub hard: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Repair what can be repaired (index drift, vectors, stray temporary files).
    #[arg(long)]
    pub fix: bool,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Sync once the vault has been quiet this long (milliseconds).
    #[arg(long, default_value_t = 300, value_name = "MS")]
    pub debounce: u64,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The record: its id, the short id that ends its file name (c1b0ze), a
    /// unique prefix of either, a path in the vault (.md optional), or a
    /// wikilink ([[semantic/user/is-vegetarian-c1b0ze]]); also the path or
    /// wikilink of a file deleted since.
    #[arg(value_name = "ID")]
    pub id: String,
    /// Show each version's diff.
    #[arg(short, long)]
    pub patch: bool,
    /// Read ID as a key: the values it held in the scope, oldest first (also
    /// taken when ID names no record and is a key that was set).
    #[arg(long)]
    pub key: bool,
    #[command(flatten)]
    pub scope: KeyScopeArgs,
}

/// The exact scope of a keyed fact: an absent flag means none, not any.
#[derive(Debug, Clone, Args, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct KeyScopeArgs {
    /// The user whose value this is.
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// The agent whose value this is.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// The session whose value this is.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
}

impl KeyScopeArgs {
    /// The exact scope these flags name.
    pub fn to_scope(&self) -> KeyScope {
        fn given(v: &Option<String>) -> Option<String> {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        }
        KeyScope {
            user: given(&self.user),
            agent: given(&self.agent),
            session: given(&self.session),
        }
    }
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
pub struct SetArgs {
    /// The key: letters, digits and . _ - / (deploy.last_sha, ci/build-number).
    #[arg(value_name = "KEY")]
    pub key: String,
    /// The value (else standard input).
    #[arg(value_name = "VALUE")]
    #[schemars(required)]
    pub value: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub scope: KeyScopeArgs,
    /// Expire after this long (30d, 12h, 2w): then `get` has no value.
    #[arg(long, value_name = "DURATION")]
    #[serde(default)]
    pub ttl: Option<String>,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
pub struct GetArgs {
    /// The key.
    #[arg(value_name = "KEY")]
    pub key: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub scope: KeyScopeArgs,
    /// The value the key held at TIME (RFC 3339, a date, or a duration ago like 7d).
    #[arg(long, value_name = "TIME")]
    #[serde(default)]
    pub as_of: Option<String>,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
pub struct UnsetArgs {
    /// The key.
    #[arg(value_name = "KEY")]
    pub key: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub scope: KeyScopeArgs,
}

/// How a run went.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunResult {
    Success,
    Failure,
}

#[derive(Debug, Args, Deserialize, JsonSchema)]
pub struct OutcomeArgs {
    /// The procedure: its id, short id, a unique prefix, a path or a wikilink.
    #[arg(value_name = "ID")]
    pub id: String,
    /// success or failure.
    #[arg(value_enum, value_name = "RESULT")]
    pub result: RunResult,
    /// What happened, kept as an episode linked to the procedure.
    #[arg(long, value_name = "TEXT")]
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve only this user's memories: what is remembered gets `user: NAME`,
    /// and no tool reads or changes another user's records.
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// Serve only this agent's memories, the same way.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
}

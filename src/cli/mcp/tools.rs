//! The tools of `engram mcp`: their names, descriptions, input schemas and
//! hints, and how a call becomes the command it mirrors.
//!
//! A call's arguments are checked here (unknown names, wrong types, a scope
//! the server does not serve) and read as the command's own flags
//! ([`crate::cli::args`]: show, list, forget, consolidate and prune take their
//! flag structs as they are; remember and recall have inputs of their own, for
//! text, messages and a query in one string). The command then runs as it does
//! from a shell, with `--json`, on the server's open store, so a tool and its
//! command cannot drift apart: same filters, same JSON. What the command
//! prints is the tool's result; its error is the tool's error, with the same
//! message.

use std::process::ExitCode;
use std::sync::{Arc, LazyLock};

use regex::Regex;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cli::args::{
    CaptureArgs, ConsolidateArgs, FilterArgs, ForgetArgs, Format, GetArgs, InputFormat, KindArg,
    ListArgs, ModeArg, OutcomeArgs, PruneArgs, RecallArgs, SetArgs, ShowArgs, UnsetArgs,
};
use crate::cli::context::Context;
use crate::cli::mcp::scope::ServedScope;
use crate::cli::output::{Output, message_of};
use crate::cli::{capture, consolidate, forget, keyed, list, outcome, prune, recall, show};
use crate::clock::{self, Timestamp};

/// Remember something: prose, or a conversation.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RememberInput {
    /// What to remember, as prose (facts are extracted from it unless `raw`).
    /// Give this or `messages`.
    #[serde(alias = "content")]
    pub text: Option<String>,
    /// A conversation to remember: {role, content} messages, oldest first (the
    /// OpenAI shape). Facts are extracted from what the user said unless
    /// `raw`, which keeps every message as one record. Give this or `text`.
    pub messages: Option<Vec<ChatMessage>>,
    /// Notes to remember, each kept as written and reconciled with what is
    /// known: one fact a sentence, in the third person, with names and dates
    /// ("The user is vegetarian.", "User's partner Marco is a chef.",
    /// "Caroline joined a choir on 2023-05-02."). Give this, `text` or
    /// `messages`.
    pub facts: Option<Vec<String>>,
    /// Store as given, one record per text or message, without extraction.
    pub raw: bool,
    /// Whose memory this is (records get `user`); the server's user when it
    /// was started with one.
    pub user: Option<String>,
    /// The agent that remembers (records get `agent`); the server's agent when
    /// it was started with one.
    pub agent: Option<String>,
    /// The conversation this comes from: working memory is kept per session,
    /// and consolidate turns a session's episodes into facts.
    pub session: Option<String>,
    /// The tier to write to (raw: episodic unless told).
    pub kind: Option<KindArg>,
    /// Who or what the records are about (default: the user, or the person a
    /// sentence names).
    pub subject: Option<String>,
    /// How much this matters, 0 to 1.
    pub importance: Option<f64>,
    /// Tags for the records.
    pub tags: Vec<String>,
    /// Expire after this long (30d, 12h, 2w).
    pub ttl: Option<String>,
    /// Plan only: say what would be written, write nothing.
    pub dry_run: bool,
    /// Say why each change happens.
    pub explain: bool,
}

/// One message of a conversation.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct ChatMessage {
    /// user, assistant, system or tool.
    pub role: String,
    /// What was said.
    pub content: String,
}

/// Find memories.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RecallInput {
    /// What to look for; leave it out to list by salience and recency.
    pub query: Option<String>,
    /// How many results (default 10, or recall.k in the config).
    #[serde(alias = "limit")]
    pub k: Option<usize>,
    #[serde(flatten)]
    pub filter: FilterArgs,
    /// Retrievers to use (default hybrid: BM25 plus vectors).
    pub mode: Option<ModeArg>,
    /// json (default): the results as records; context: a prompt block of
    /// facts, working memory, procedures and recent episodes; text: one line
    /// per result; paths: one file path per line; transcript: a session's
    /// messages as [{role, content}], oldest first (needs `session`).
    pub format: Option<Format>,
    /// With format context: keep the block within about this many tokens.
    pub budget: Option<usize>,
    /// With format transcript: only the last this many messages.
    pub last: Option<usize>,
    /// Show the parts of each score.
    pub explain: bool,
}

/// What an agent should know now: the context block.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ContextInput {
    /// What the conversation is about; leave it out at the start of a session
    /// (facts, the latest session summary, working memory and tips).
    pub query: Option<String>,
    /// A session: without `query`, whose working memory and summary open the
    /// block (facts and tips still come from the whole scope); with `query`,
    /// every section keeps to it.
    pub session: Option<String>,
    /// Whose memories (the server's user when it was started with one).
    pub user: Option<String>,
    /// Which agent's memories (the server's agent when it was started with one).
    pub agent: Option<String>,
    /// Keep the block within about this many tokens (4 characters each):
    /// facts first, then working memory, procedures and episodes.
    pub budget: Option<usize>,
}

/// How many records `list` gives when the call names no limit: a tool result
/// lands in a model's context, where the whole vault does not belong.
const LIST_LIMIT: usize = 50;

/// The tools, as `tools/list` shows them.
pub fn all() -> Vec<Tool> {
    let hints = |read_only: bool, destructive: bool, idempotent: bool| {
        ToolAnnotations::from_raw(
            None,
            Some(read_only),
            Some(destructive),
            Some(idempotent),
            Some(false),
        )
    };
    vec![
        tool::<RememberInput>(
            "remember",
            "Remember something (engram capture). Give `facts` (notes you wrote: one fact a \
             sentence, third person, names and dates, e.g. \"The user is vegetarian.\", \
             \"User's partner Marco is a chef.\"; each is kept as written), `text` (prose \
             or speech) or `messages` (a conversation). Each is reconciled with what is known: a new \
             fact is added, a changed one supersedes the old (which is kept, ended), a \
             restated one is reinforced. `raw` stores the input as given instead. Returns \
             the changes: {mutations, ended, evicted, maintenance, said, skipped, dry_run}.",
            hints(false, false, false),
        ),
        tool::<RecallInput>(
            "recall",
            "Find memories (engram recall): hybrid search (BM25 and vectors) over current \
             records, filtered by kind, user, agent, session, subject, category, tags and \
             time, ranked with recency and importance. Returns {results: [{id, path, kind, \
             content, status, created, score, ...}]}; `format: context` returns a prompt \
             block instead. `as_of` asks what was true at a past time.",
            hints(true, false, true),
        ),
        tool::<ShowArgs>(
            "show",
            "One record with all its fields (engram show --json): content, kind, status, \
             validity times, what it supersedes or was superseded by, sources.",
            hints(true, false, true),
        ),
        tool::<ListArgs>(
            "list",
            "Records by filter, newest first (engram list), without a query. Returns \
             {results: [...]} like recall, without scores.",
            hints(true, false, true),
        ),
        tool::<ForgetArgs>(
            "forget",
            "Forget a record and its copies in other tiers (engram forget): they are \
             marked invalidated and no longer recalled; `hard` deletes their files. \
             Returns {mutations}.",
            hints(false, true, true),
        ),
        tool::<ConsolidateArgs>(
            "consolidate",
            "Turn episodes into facts (engram consolidate); with `session`, also summarise \
             that session and archive its turns. Returns {actions, dry_run}.",
            hints(false, true, false),
        ),
        tool::<SetArgs>(
            "set",
            "Set a keyed fact (engram set): `key` holds `value` in the scope of `user`, \
             `agent` and `session` (each exact; absent means none); the old value is \
             superseded and kept as history; `ttl` (30d, 12h) makes it expire. Returns \
             {key, value, id, updated, mutations}.",
            hints(false, false, false),
        ),
        tool::<GetArgs>(
            "get",
            "Read a keyed fact (engram get): the current value of `key` in the scope, or \
             what it held at `as_of`. Returns {key, value, id, updated}; an error when the \
             key has no value there (never set, unset or expired).",
            hints(true, false, true),
        ),
        tool::<UnsetArgs>(
            "unset",
            "Remove a keyed fact's value in the scope (engram unset): it is invalidated, \
             kept in history. Returns {key, mutations}.",
            hints(false, true, true),
        ),
        tool::<OutcomeArgs>(
            "outcome",
            "Count how a run of a procedure went (engram outcome): `result` success or \
             failure, with a `note` on what happened (kept as an episode linked to it). \
             Procedures that work rank higher in recall and show as tips in context. \
             Returns {id, path, successes, failures, last_outcome, mutations}.",
            hints(false, false, false),
        ),
        tool::<ContextInput>(
            "context",
            "What you remember, as a prompt block (engram recall --format context): the \
             facts, working memory, procedures (as tips with how often they worked) and \
             recent episodes that match `query`. Without `query`, a session start: \
             facts, the last session's summary, the working memory of `session` and \
             tips. `budget` keeps it within about that many tokens, facts first, and \
             says what it left out. Returns text.",
            hints(true, false, true),
        ),
        tool::<PruneArgs>(
            "prune",
            "Merge duplicates, expire TTLs, archive decayed episodes, evict idle working \
             memory (engram prune); nothing is deleted unless `hard`. Returns {actions, \
             dry_run}.",
            hints(false, true, false),
        ),
    ]
}

fn tool<T: JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name, description, input_schema::<T>()).with_annotations(annotations)
}

/// The input schema of a tool's arguments (JSON Schema 2020-12, an object).
fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::tool::schema_for_type::<T>()
}

/// Runs a tool call; `None` when no tool has that name.
pub fn call(
    ctx: &mut Context,
    scope: &ServedScope,
    name: &str,
    arguments: JsonObject,
) -> Option<CallToolResult> {
    let result = match name {
        "remember" => parse::<RememberInput>(name, arguments, &["content"])
            .and_then(|input| remember(ctx, scope, input)),
        "recall" => parse_filtered::<RecallInput>(name, arguments, &["limit"])
            .and_then(|input| recall_tool(ctx, scope, input)),
        "show" => parse::<ShowArgs>(name, arguments, &[]).and_then(|args| {
            scope.check_record(ctx, &args.id)?;
            run(ctx, true, |ctx, _| show::run(ctx, args))
        }),
        "list" => parse_filtered::<ListArgs>(name, arguments, &["k"]).and_then(|mut args| {
            scope.narrow_filter(&mut args.filter)?;
            args.limit = Some(args.limit.unwrap_or(LIST_LIMIT));
            run(ctx, true, |ctx, now| list::run(ctx, args, now))
        }),
        "forget" => parse::<ForgetArgs>(name, arguments, &[]).and_then(|args| {
            scope.check_record(ctx, &args.id)?;
            run(ctx, true, |ctx, now| forget::run(ctx, args, now))
        }),
        "consolidate" => parse::<ConsolidateArgs>(name, arguments, &[]).and_then(|mut args| {
            scope.narrow(&mut args.user, &mut args.agent)?;
            run(ctx, true, |ctx, now| consolidate::run(ctx, args, now))
        }),
        "prune" => parse::<PruneArgs>(name, arguments, &[]).and_then(|mut args| {
            scope.narrow(&mut args.user, &mut args.agent)?;
            run(ctx, true, |ctx, now| prune::run(ctx, args, now))
        }),
        "set" => parse::<SetArgs>(name, arguments, &[]).and_then(|mut args| {
            scope.narrow(&mut args.scope.user, &mut args.scope.agent)?;
            if args.value.is_none() {
                // The command would read standard input, which carries the protocol.
                return Err("set: give `value`, the value the key holds".into());
            }
            run(ctx, true, |ctx, now| keyed::set(ctx, args, now))
        }),
        "get" => parse::<GetArgs>(name, arguments, &[]).and_then(|mut args| {
            scope.narrow(&mut args.scope.user, &mut args.scope.agent)?;
            run(ctx, true, |ctx, now| keyed::get(ctx, args, now))
        }),
        "unset" => parse::<UnsetArgs>(name, arguments, &[]).and_then(|mut args| {
            scope.narrow(&mut args.scope.user, &mut args.scope.agent)?;
            run(ctx, true, |ctx, now| keyed::unset(ctx, args, now))
        }),
        "outcome" => parse::<OutcomeArgs>(name, arguments, &[]).and_then(|args| {
            scope.check_record(ctx, &args.id)?;
            run(ctx, true, |ctx, now| outcome::run(ctx, args, now))
        }),
        "context" => parse::<ContextInput>(name, arguments, &[])
            .and_then(|input| context_tool(ctx, scope, input)),
        _ => return None,
    };
    Some(result.unwrap_or_else(|message| CallToolResult::error(vec![ContentBlock::text(message)])))
}

/// A tool's error: the message the caller (a model) reads, naming the fix.
pub type ToolError = String;

fn remember(
    ctx: &mut Context,
    scope: &ServedScope,
    mut input: RememberInput,
) -> Result<CallToolResult, ToolError> {
    scope.narrow(&mut input.user, &mut input.agent)?;
    let (text, format) = match (input.text, input.messages, input.facts) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => {
            return Err("remember: give one of `facts`, `text` or `messages`".into());
        }
        (None, None, Some(facts)) => {
            // One note a line: a line break inside a note is a space.
            let notes: Vec<String> = facts
                .iter()
                .map(|f| f.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|f| !f.is_empty())
                .collect();
            if notes.is_empty() {
                return Err("remember: `facts` is empty; give at least one note".into());
            }
            (notes.join("\n"), InputFormat::Notes)
        }
        (Some(text), None, None) => (text, InputFormat::Text),
        (None, Some(messages), None) => {
            if messages.is_empty() {
                return Err("remember: `messages` is empty; give at least one message".into());
            }
            let json = serde_json::to_string(&messages).expect("messages serialise");
            (json, InputFormat::Chat)
        }
        (None, None, None) => {
            return Err(
                "remember: nothing to remember; give `facts` (notes), `text` (prose) or \
                 `messages` ([{role, content}, ...])"
                    .into(),
            );
        }
    };
    if text.trim().is_empty() {
        return Err("remember: nothing to remember: `text` is empty".into());
    }
    let tags = (!input.tags.is_empty()).then(|| input.tags.join(","));
    let args = CaptureArgs {
        // Never empty (checked above), so the command never reads standard
        // input, which carries the protocol.
        text: vec![text],
        file: None,
        input: format,
        user: input.user,
        agent: input.agent,
        session: input.session,
        kind: input.kind,
        subject: input.subject,
        importance: input.importance,
        tags,
        ttl: input.ttl,
        raw: input.raw,
        dry_run: input.dry_run,
        explain: input.explain,
        assistant_chars: 500,
    };
    run(ctx, true, |ctx, now| capture::run(ctx, args, now))
}

fn recall_tool(
    ctx: &mut Context,
    scope: &ServedScope,
    mut input: RecallInput,
) -> Result<CallToolResult, ToolError> {
    scope.narrow_filter(&mut input.filter)?;
    let format = input.format.unwrap_or(Format::Json);
    let args = RecallArgs {
        query: input.query.into_iter().collect(),
        k: input.k,
        filter: input.filter,
        mode: input.mode,
        format,
        budget: input.budget,
        last: input.last,
        explain: input.explain,
    };
    run(ctx, format == Format::Json, |ctx, now| {
        recall::run(ctx, args, now)
    })
}

fn context_tool(
    ctx: &mut Context,
    scope: &ServedScope,
    input: ContextInput,
) -> Result<CallToolResult, ToolError> {
    let mut filter = FilterArgs {
        user: input.user,
        agent: input.agent,
        session: input.session,
        ..FilterArgs::default()
    };
    scope.narrow_filter(&mut filter)?;
    let args = RecallArgs {
        query: input.query.into_iter().collect(),
        k: None,
        filter,
        mode: None,
        format: Format::Context,
        budget: input.budget,
        last: None,
        explain: false,
    };
    run(ctx, false, |ctx, now| recall::run(ctx, args, now))
}

/// Reads a call's arguments as `T`: an unknown name or a wrong type is an
/// error that names the argument and what it takes.
fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    arguments: JsonObject,
    aliases: &[&str],
) -> Result<T, ToolError> {
    let schema = input_schema::<T>();
    let known: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if let Some(unknown) = arguments
        .keys()
        .find(|k| !known.contains(&k.as_str()) && !aliases.contains(&k.as_str()))
    {
        return Err(format!(
            "{tool}: unknown argument `{unknown}`; it takes {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            format!("{tool}: {inner}; see its input schema (tools/list)")
        } else {
            format!("{tool}: argument `{path}`: {inner}; see its input schema (tools/list)")
        }
    })
}

/// [`parse`] for a tool whose arguments include the filters of recall and
/// list (flattened): the filters are read on their own first, so that an error
/// names the filter (serde loses the path through a flattened struct).
fn parse_filtered<T: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    arguments: JsonObject,
    aliases: &[&str],
) -> Result<T, ToolError> {
    let filter_schema = input_schema::<FilterArgs>();
    let filter_names = filter_schema.get("properties").and_then(Value::as_object);
    let filters: JsonObject = arguments
        .iter()
        .filter(|(key, _)| filter_names.is_some_and(|p| p.contains_key(*key)))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    parse::<FilterArgs>(tool, filters, &[])?;
    parse::<T>(tool, arguments, aliases)
}

/// Runs a command on the server's store as the shell would with `--json`
/// (`json`) or without, keeping what it prints: a JSON document becomes the
/// structured result, text the text result, warnings follow as more text. A
/// failed command's changes are not committed, and an error that is not the
/// caller's (a failed write) reopens the store for the next call.
fn run(
    ctx: &mut Context,
    json: bool,
    command: impl FnOnce(&Context, Timestamp) -> anyhow::Result<ExitCode>,
) -> Result<CallToolResult, ToolError> {
    ctx.out = Output::capturing(json, ctx.out.verbose);
    let outcome = clock::now()
        .map_err(anyhow::Error::from)
        .and_then(|now| command(ctx, now));
    let kept = ctx.out.take_kept();
    if let Err(e) = outcome {
        ctx.discard_changes();
        if !is_callers(&e) {
            ctx.close_store();
        }
        return Err(in_tool_words(&message_of(&ctx.naming_vault(e))));
    }
    ctx.commit_changes();
    let mut result = if json {
        match serde_json::from_str::<Value>(&kept.stdout) {
            Ok(value) => CallToolResult::structured(value),
            Err(_) => CallToolResult::success(vec![ContentBlock::text(kept.stdout)]),
        }
    } else {
        CallToolResult::success(vec![ContentBlock::text(kept.stdout)])
    };
    for w in kept.warnings {
        result
            .content
            .push(ContentBlock::text(format!("warning: {w}")));
    }
    Ok(result)
}

/// A command's message in the words of its tools: the flag `--as-of` is the
/// argument `as_of`, and `engram list` is the `list` tool.
fn in_tool_words(message: &str) -> String {
    static FLAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"--([a-z][a-z-]*)").expect("a valid pattern"));
    static COMMAND: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"`engram (capture|remember|recall|show|list|forget|consolidate|prune|set|get|unset|outcome)( [^`]*)?`",
        )
            .expect("a valid pattern")
    });
    let message = COMMAND.replace_all(message, |c: &regex::Captures| {
        let tool = if &c[1] == "capture" {
            "remember"
        } else {
            &c[1]
        };
        format!("the `{tool}` tool")
    });
    FLAG.replace_all(&message, |c: &regex::Captures| {
        format!("`{}`", c[1].replace('-', "_"))
    })
    .into_owned()
}

/// Whether an error is the caller's (bad input, an unknown record), which
/// leaves the store as it was.
fn is_callers(e: &anyhow::Error) -> bool {
    use crate::error::Error;
    matches!(
        e.downcast_ref::<Error>(),
        Some(Error::Input(_) | Error::NotFound(_) | Error::Ambiguous { .. })
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(v: Value) -> JsonObject {
        v.as_object().cloned().expect("an object")
    }

    #[test]
    fn every_tool_has_an_object_schema_with_described_properties() {
        for tool in all() {
            assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
            let props = tool.input_schema["properties"]
                .as_object()
                .unwrap_or_else(|| panic!("{} has properties", tool.name));
            for (name, prop) in props {
                assert!(
                    prop.get("description").is_some() || prop.get("$ref").is_some(),
                    "{}.{name} is described",
                    tool.name
                );
            }
            let hints = tool.annotations.as_ref().expect("hints");
            assert!(hints.read_only_hint.is_some() && hints.destructive_hint.is_some());
        }
    }

    #[test]
    fn recall_takes_the_filters_of_the_command() {
        let input: RecallInput = parse(
            "recall",
            object(serde_json::json!({
                "query": "where does she live",
                "k": 3,
                "kind": ["semantic"],
                "subject": "Ana",
                "include_superseded": true,
                "format": "context"
            })),
            &[],
        )
        .unwrap();
        assert_eq!(input.k, Some(3));
        assert_eq!(input.filter.subject.as_deref(), Some("Ana"));
        assert!(input.filter.include_superseded);
        assert_eq!(input.format, Some(Format::Context));
    }

    #[test]
    fn a_wrong_type_names_the_argument() {
        let err = parse::<RecallInput>("recall", object(serde_json::json!({"k": "ten"})), &[])
            .unwrap_err();
        assert!(err.contains("`k`"), "{err}");
        let err = parse::<ForgetArgs>("forget", object(serde_json::json!({})), &[]).unwrap_err();
        assert!(err.contains("id"), "{err}");
    }

    #[test]
    fn a_commands_message_names_the_tools_arguments() {
        assert_eq!(
            in_tool_words("--as-of: not a time; `engram list` shows the ids"),
            "`as_of`: not a time; the `list` tool shows the ids"
        );
        assert_eq!(
            in_tool_words("see `engram capture` and `engram reindex`"),
            "see the `remember` tool and `engram reindex`"
        );
    }

    #[test]
    fn an_unknown_argument_is_refused_with_the_known_ones() {
        let err = parse::<RecallInput>("recall", object(serde_json::json!({"usr": "bob"})), &[])
            .unwrap_err();
        assert!(err.contains("`usr`") && err.contains("`user`"), "{err}");
    }
}

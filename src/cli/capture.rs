//! `engram capture` (alias `remember`).

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use serde_json::json;

use crate::cli::args::{CaptureArgs, InputFormat};
use crate::cli::context::Context;
use crate::clock::{self, Timestamp};
use crate::error::Error;
use crate::memory::capture::{self, CaptureDefaults, CaptureItem};
use crate::storage::store::NoProgress;

pub fn run(ctx: &Context, args: CaptureArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let defaults = defaults(&args, now)?;
    let input = read_input(ctx, &args)?;
    if !args.raw {
        return run_extracting(ctx, &args, &input, defaults, now);
    }
    let items = match args.input {
        InputFormat::Jsonl => capture::parse_jsonl(&input)?,
        // A transcript: every message whole, with its role.
        InputFormat::Chat => capture::parse_chat(&input, None)?,
        InputFormat::Text => {
            if input.trim().is_empty() {
                return Err(Error::Input("nothing to capture: the input is empty".into()).into());
            }
            vec![CaptureItem {
                content: input.trim().to_string(),
                ..CaptureItem::default()
            }]
        }
        // One record per note.
        InputFormat::Notes => {
            let items: Vec<CaptureItem> = input
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| CaptureItem {
                    content: l.to_string(),
                    ..CaptureItem::default()
                })
                .collect();
            if items.is_empty() {
                return Err(Error::Input("nothing to capture: the input is empty".into()).into());
            }
            items
        }
    };
    let mut store = ctx.store_for_write()?;
    let lock = store.vault().lock()?;
    let progress = ctx.out.progress();
    let report = store.sync_locked(&lock, &progress)?;
    ctx.out.sync_warnings(&report);
    let (mutations, warnings) = capture::capture_raw(
        &mut store,
        &lock,
        &items,
        &defaults,
        now,
        args.dry_run,
        &progress,
    )?;
    drop(lock);
    if !args.dry_run {
        ctx.record_mutations(&store, "capture", &mutations, args.session.as_deref());
    }
    for w in &warnings {
        ctx.out.warn(w);
    }
    if ctx.out.json {
        let mut list = serde_json::to_value(&mutations)?;
        if !args.explain {
            for m in list.as_array_mut().into_iter().flatten() {
                m.as_object_mut().map(|o| o.remove("reason"));
            }
        }
        ctx.out
            .json(&json!({ "mutations": list, "dry_run": args.dry_run }));
    } else if !ctx.out.quiet || args.dry_run {
        let prefix = if args.dry_run { "would " } else { "" };
        let mut text = String::new();
        for m in &mutations {
            text.push_str(&format!(
                "{prefix}{:<6} {:<10} {}  {}\n",
                m.op, m.kind, m.id, m.path
            ));
            if let Some(r) = m.reason.as_ref().filter(|_| args.explain) {
                text.push_str(&format!("       because: {r}\n"));
            }
        }
        ctx.out.print(&text);
    }
    Ok(ExitCode::SUCCESS)
}

/// One line for the consolidate and prune that ran on the way: how many of
/// each action ("maintenance: 2 merge, 1 new, 5 mark; --explain lists them").
fn maintenance_summary(actions: &[crate::memory::maintain::plan::Action]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for a in actions {
        match counts.iter_mut().find(|(name, _)| *name == a.action) {
            Some((_, n)) => *n += 1,
            None => counts.push((a.action, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(a, n)| format!("{n} {a}")).collect();
    format!("maintenance: {}; --explain lists them\n", parts.join(", "))
}

/// "semantic, episode, working; supersedes \"Lives in Krakow\"; 2 older copies ended".
fn statement_details(st: &capture::StatementOutcome) -> String {
    let mut parts = vec![if st.tiers.is_empty() {
        "no new file".to_string()
    } else {
        st.tiers.join(", ")
    }];
    match (st.op, &st.previous) {
        ("UPDATE", Some(p)) => parts.push(format!("supersedes \"{p}\"")),
        ("DELETE", Some(p)) => parts.push(format!("retracts \"{p}\"")),
        ("NOOP", _) => parts.push("restated, reinforced".into()),
        _ => {}
    }
    let others = st
        .ended
        .saturating_sub(usize::from(st.op == "UPDATE" || st.op == "DELETE"));
    if others > 0 {
        parts.push(format!(
            "{others} other record{} ended with it",
            if others == 1 { "" } else { "s" }
        ));
    }
    parts.join("; ")
}

fn defaults(args: &CaptureArgs, now: Timestamp) -> Result<CaptureDefaults, Error> {
    if let Some(i) = args.importance.filter(|i| !(0.0..=1.0).contains(i)) {
        return Err(Error::Input(format!(
            "--importance {i}: give a number from 0 to 1"
        )));
    }
    let ttl = args
        .ttl
        .as_deref()
        .map(|t| {
            let ttl = clock::parse_duration(t).map_err(|e| Error::Input(format!("--ttl: {e}")))?;
            clock::shift(now, ttl)
                .map_err(|why| Error::Input(format!("--ttl {t}: the expiry {why}")))?;
            Ok::<_, Error>(ttl)
        })
        .transpose()?;
    Ok(CaptureDefaults {
        kind: args.kind.map(Into::into),
        subject: args.subject.clone(),
        user: args.user.clone(),
        agent: args.agent.clone(),
        session: args.session.clone(),
        importance: args.importance,
        tags: args
            .tags
            .as_deref()
            .map(capture::split_tags)
            .unwrap_or_default(),
        ttl,
    })
}

/// Reads the input: TEXT, --file or standard input, no more than the limit
/// for what is done with it (so 50 MB piped in costs 1 MB of memory, not a
/// gigabyte), without NUL and other control characters (which would make git
/// treat the record as binary); a warning says how many were removed.
fn read_input(ctx: &Context, args: &CaptureArgs) -> Result<String, Error> {
    let limit = input_limit(args);
    let text = if !args.text.is_empty() {
        if args.file.is_some() {
            return Err(Error::Input("give TEXT or --file, not both".into()));
        }
        let text = args.text.join(" ");
        if text.len() as u64 > limit {
            return Err(too_big(args, text.len() as u64));
        }
        text
    } else {
        match &args.file {
            Some(p) if p.as_os_str() == "-" => {
                read_capped(std::io::stdin(), args, "standard input")?
            }
            Some(p) => {
                let file = std::fs::File::open(p)
                    .map_err(|e| Error::Input(format!("--file {}: {e}", p.display())))?;
                read_capped(file, args, &format!("--file {}", p.display()))?
            }
            None if std::io::stdin().is_terminal() => {
                return Err(Error::Input(
                    "nothing to capture: give TEXT, --file FILE, or pipe the input on standard input"
                        .into(),
                ));
            }
            None => read_capped(std::io::stdin(), args, "standard input")?,
        }
    };
    let (clean, removed) = capture::without_controls(&text);
    if removed > 0 {
        ctx.out.warn(&format!(
            "removed {removed} control character(s) (such as NUL) from the input; records hold text"
        ));
    }
    Ok(clean)
}

/// The most input capture reads for these flags, in bytes.
fn input_limit(args: &CaptureArgs) -> u64 {
    match (args.raw, args.input) {
        (true, InputFormat::Jsonl | InputFormat::Chat | InputFormat::Notes)
        | (false, InputFormat::Chat) => capture::MAX_BULK_INPUT_BYTES,
        (true, InputFormat::Text) => capture::MAX_RECORD_BYTES,
        (false, _) => capture::MAX_EXTRACT_BYTES,
    }
}

/// Reads at most the limit (and one byte more, to know it was passed).
fn read_capped(reader: impl Read, args: &CaptureArgs, what: &str) -> Result<String, Error> {
    let limit = input_limit(args);
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Input(format!("could not read {what}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(args, bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::Input(format!(
            "{what} is not UTF-8 text (invalid byte at offset {}); convert it, e.g. with iconv -t UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// A size as people read it: `64 KiB`, `1 MiB`.
fn size_text(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.0} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

/// The error for input over its limit, naming the limit and the way around it.
fn too_big(args: &CaptureArgs, seen: u64) -> Error {
    let limit = input_limit(args);
    let over = if seen > limit {
        format!("more than {}", size_text(limit))
    } else {
        size_text(seen)
    };
    let way = match (args.raw, args.input) {
        (false, InputFormat::Text) => format!(
            "capture extracts facts from at most {} of text at a time: split it and capture \
             each part (--file PART), or store it unread with --raw (at most {} a record; \
             --raw --input jsonl takes one record per line)",
            size_text(capture::MAX_EXTRACT_BYTES),
            size_text(capture::MAX_RECORD_BYTES)
        ),
        (true, InputFormat::Text) => format!(
            "one record holds at most {}: split the text into parts and capture each \
             (--raw --file PART), or one record per line with --raw --input jsonl",
            size_text(capture::MAX_RECORD_BYTES)
        ),
        _ => format!(
            "capture reads at most {} of --input {} at once: split the file and capture \
             each part with --file",
            size_text(limit),
            if args.input == InputFormat::Chat {
                "chat"
            } else {
                "jsonl"
            }
        ),
    };
    Error::Input(format!("the input is {over}; {way}; nothing was captured"))
}

/// Capture with extraction: the rule engine, or the configured LLM.
fn run_extracting(
    ctx: &Context,
    args: &CaptureArgs,
    input: &str,
    defaults: CaptureDefaults,
    now: Timestamp,
) -> anyhow::Result<ExitCode> {
    let texts: Vec<String> = match args.input {
        InputFormat::Text | InputFormat::Notes => vec![input.to_string()],
        // The rules read what the user said; the assistant's words (cut to
        // --assistant-chars) are context for a model, not facts about the user.
        InputFormat::Chat => capture::parse_chat(input, Some(args.assistant_chars))?
            .into_iter()
            .filter(|i| i.role.as_deref() == Some("user"))
            .map(|i| i.content)
            .collect(),
        InputFormat::Jsonl => {
            return Err(Error::Input(
                "--input jsonl stores records as given; add --raw (extraction reads text or chat)"
                    .into(),
            )
            .into());
        }
    };
    let said: usize = texts.iter().map(String::len).sum();
    if said as u64 > capture::MAX_EXTRACT_BYTES {
        return Err(Error::Input(format!(
            "the chat's user messages hold {}; capture extracts facts from at most {} \
             at a time: split the chat and capture each part (--file PART), or keep every \
             message as said with --raw; nothing was captured",
            size_text(said as u64),
            size_text(capture::MAX_EXTRACT_BYTES)
        ))
        .into());
    }
    if texts.iter().all(|t| t.trim().is_empty()) {
        return Err(Error::Input("nothing to capture: the input is empty".into()).into());
    }
    let mut store = ctx.store_for_write()?;
    let lock = store.vault().lock()?;
    let report = store.sync_locked(&lock, &NoProgress)?;
    ctx.out.sync_warnings(&report);
    let config = store.vault().config().clone();
    let model = crate::models::llm::ChatModel::from_config(&config.llm, 60.0);
    let outcome = capture::capture_facts(
        &mut store,
        &lock,
        &texts,
        &defaults,
        now,
        args.dry_run,
        model.as_ref(),
        args.input == InputFormat::Notes,
    )?;
    drop(lock);
    if !args.dry_run {
        let mut all: Vec<crate::storage::writer::Mutation> = outcome
            .mutations
            .iter()
            .chain(&outcome.ended)
            .chain(&outcome.evicted)
            .chain(&outcome.said)
            .cloned()
            .collect();
        // What consolidate and prune changed on the way belongs to this commit too.
        all.extend(crate::cli::plan::action_mutations(&outcome.maintenance));
        ctx.record_mutations(&store, "capture", &all, args.session.as_deref());
    }
    for w in &outcome.warnings {
        ctx.out.warn(w);
    }
    if ctx.out.json {
        let strip = |list: &[crate::storage::writer::Mutation]| {
            let mut v = serde_json::to_value(list).expect("mutations serialise");
            if !args.explain {
                for m in v.as_array_mut().into_iter().flatten() {
                    m.as_object_mut().map(|o| o.remove("reason"));
                }
            }
            v
        };
        ctx.out.json(&json!({
            "mutations": strip(&outcome.mutations),
            "ended": strip(&outcome.ended),
            "evicted": strip(&outcome.evicted),
            "maintenance": outcome.maintenance,
            "said": strip(&outcome.said),
            "skipped": outcome.skipped,
            "dry_run": args.dry_run,
        }));
        return Ok(ExitCode::SUCCESS);
    }
    if ctx.out.quiet && !args.dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    let prefix = if args.dry_run { "would " } else { "" };
    let mut text = String::new();
    if outcome.statements.is_empty() {
        text.push_str("nothing to remember in that\n");
    }
    for st in &outcome.statements {
        text.push_str(&format!(
            "{prefix}{:<7} {}  ({})\n",
            st.op,
            st.content,
            statement_details(st)
        ));
    }
    for s in &outcome.skipped {
        text.push_str(&format!("kept no fact from \"{}\" ({})\n", s.text, s.why));
    }
    if args.explain {
        for m in outcome
            .said
            .iter()
            .chain(&outcome.mutations)
            .chain(&outcome.ended)
        {
            text.push_str(&format!("        {:<10} {:<10} {}\n", m.op, m.kind, m.path));
            if let Some(r) = &m.reason {
                text.push_str(&format!("          because: {r}\n"));
            }
        }
    }
    for m in &outcome.evicted {
        text.push_str(&format!(
            "{prefix}{:<7} {}  (working: evicted)\n",
            m.op, m.content
        ));
    }
    if args.explain {
        for a in &outcome.maintenance {
            text.push_str(&format!(
                "{:<7} {} [{}]\n",
                a.action,
                a.content.as_deref().unwrap_or(""),
                a.ids.join(", ")
            ));
        }
    } else if !outcome.maintenance.is_empty() {
        text.push_str(&maintenance_summary(&outcome.maintenance));
    }
    ctx.out.print(&text);
    Ok(ExitCode::SUCCESS)
}

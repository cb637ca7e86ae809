//! `engram recall [QUERY]`.

use std::process::ExitCode;

use serde_json::{Value, json};

use crate::cli::args::{Format, ModeArg, RecallArgs};
use crate::cli::context::Context;
use crate::cli::output::{doc_json, one_line};
use crate::clock::Timestamp;
use crate::error::Error;
use crate::memory::recall::context::{self, ContextRequest};
use crate::memory::recall::{self, Hit, Mode, RecallRequest, transcript};
use crate::storage::git::Repo;

pub fn run(ctx: &Context, args: RecallArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let filter = args.filter.to_filter(now)?;
    let mut store = ctx.store()?;
    let cfg = &store.vault().config().recall.clone();
    let mode = match args.mode {
        Some(ModeArg::Hybrid) => Mode::Hybrid,
        Some(ModeArg::Bm25) => Mode::Bm25,
        Some(ModeArg::Vector) => Mode::Vector,
        None => cfg.mode.parse().map_err(|e: String| Error::Config {
            path: store.vault().engram_dir().join("config.yaml"),
            message: format!("recall.mode: {e}"),
        })?,
    };
    let query = args.query.join(" ");
    let request = RecallRequest {
        query: Some(query).filter(|q| !q.trim().is_empty()),
        filter,
        // A prompt block wants the whole picture, not a top ten.
        k: args.k.unwrap_or(if args.format == Format::Context {
            cfg.k.max(30)
        } else {
            cfg.k
        }),
        mode,
        now,
        one_per_statement: true,
        min_cosine: None,
    };
    let format = match (ctx.out.json, args.format) {
        // A transcript is JSON already; a context block becomes a JSON document.
        (_, Format::Transcript | Format::Context) => args.format,
        (true, _) => Format::Json,
        (false, format) => format,
    };
    if args.budget.is_some() && format != Format::Context {
        return Err(
            Error::Input("--budget sizes the context block: add --format context".into()).into(),
        );
    }
    if args.last.is_some() && format != Format::Transcript {
        return Err(Error::Input(
            "--last N takes a transcript's last messages: add --format transcript".into(),
        )
        .into());
    }
    if format == Format::Transcript {
        if request.query.is_some() {
            return Err(Error::Input(
                "--format transcript prints a whole session in order; leave out the query".into(),
            )
            .into());
        }
        let (report, messages) =
            store.sync_while(|s| transcript::transcript(s, &request.filter, args.last))?;
        ctx.out.sync_warnings(&report);
        ctx.out.json(&serde_json::to_value(&messages)?);
        return Ok(ExitCode::SUCCESS);
    }
    if format == Format::Context {
        let request = ContextRequest {
            recall: request,
            budget: args.budget,
        };
        let (report, block) = store.sync_while(|s| context::build(s, &request))?;
        ctx.out.sync_warnings(&report);
        for w in &block.warnings {
            ctx.out.warn(w);
        }
        if ctx.out.json {
            ctx.out.json(&json!({
                "context": block.text,
                "budget": args.budget,
                "sections": block.sections,
            }));
        } else {
            ctx.out.print(&block.text);
        }
        return Ok(ExitCode::SUCCESS);
    }
    // The search runs while the vault is compared with the index.
    let (report, outcome) = store.sync_while(|s| recall::recall(s, &request))?;
    ctx.out.sync_warnings(&report);
    for w in &outcome.warnings {
        ctx.out.warn(w);
    }
    let changes = if args.explain {
        last_changes(store.vault().root(), &outcome.hits)
    } else {
        Vec::new()
    };
    match format {
        Format::Json => {
            let results: Vec<_> = outcome
                .hits
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    let mut v = doc_json(&h.doc, Some(h.score), args.explain.then_some(&h.parts));
                    if let (Some(explain), Some(change)) = (
                        v.get_mut("explain").and_then(Value::as_object_mut),
                        changes.get(i),
                    ) {
                        explain.insert("git".into(), change.clone());
                    }
                    v
                })
                .collect();
            ctx.out.json(&json!({ "results": results }));
        }
        Format::Paths => {
            let text: String = outcome
                .hits
                .iter()
                .map(|h| format!("{}\n", store.vault().abs(&h.doc.path).display()))
                .collect();
            ctx.out.print(&text);
        }
        Format::Context | Format::Transcript => unreachable!("printed above"),
        Format::Text => {
            let mut text = String::new();
            for (i, h) in outcome.hits.iter().enumerate() {
                text.push_str(&format!(
                    "{:.3}  {}\n",
                    h.score,
                    one_line(&h.doc.content, 100)
                ));
                text.push_str(&format!(
                    "       {} {} {}\n",
                    h.doc.kind, h.doc.id, h.doc.path
                ));
                if args.explain {
                    text.push_str(&format!("       {}\n", explain_line(h)));
                    if let Some(line) = changes.get(i).and_then(git_line) {
                        text.push_str(&format!("       {line}\n"));
                    }
                }
            }
            if outcome.hits.is_empty() && !ctx.out.quiet {
                eprintln!("engram: no memories match");
            }
            ctx.out.print(&text);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// When and by which commit each hit's file last changed (`--explain`): per
/// hit `{"commit", "date", "subject", "uncommitted"}`, `commit` null when the
/// file was never committed. Empty when the vault is not in a git work tree.
fn last_changes(root: &std::path::Path, hits: &[Hit]) -> Vec<Value> {
    let Some(repo) = Repo::discover(root) else {
        return Vec::new();
    };
    let paths: Vec<&str> = hits.iter().map(|h| h.doc.path.as_str()).collect();
    let dirty = repo.uncommitted(&paths).unwrap_or_default();
    hits.iter()
        .map(|h| {
            let uncommitted = dirty.contains(&h.doc.path);
            match repo.last_change(&h.doc.path) {
                Ok(Some(v)) => json!({
                    "commit": v.commit,
                    "date": v.date,
                    "subject": v.subject,
                    "uncommitted": uncommitted,
                }),
                _ => json!({ "commit": null, "uncommitted": uncommitted }),
            }
        })
        .collect()
}

/// The human line of a hit's last git change.
fn git_line(change: &Value) -> Option<String> {
    let dirty = change["uncommitted"].as_bool().unwrap_or(false);
    let Some(commit) = change["commit"].as_str() else {
        return Some("git: never committed".into());
    };
    let mut line = format!(
        "git: last changed {} in {} ({})",
        change["date"].as_str().unwrap_or(""),
        &commit[..commit.len().min(10)],
        change["subject"].as_str().unwrap_or("")
    );
    if dirty {
        line.push_str("; uncommitted changes since");
    }
    Some(line)
}

fn explain_line(h: &Hit) -> String {
    let p = &h.parts;
    let opt = |v: Option<f32>, r: Option<usize>| match (v, r) {
        (Some(v), Some(r)) => format!("{v:.3} (#{r})"),
        _ => "-".into(),
    };
    format!(
        "bm25 {} · cosine {} · {} relevance {:.3} · recency {:.3} · importance {:.2} · confidence {:.2} → {:.3}",
        opt(p.bm25, p.bm25_rank),
        opt(p.cosine, p.vector_rank),
        p.fusion,
        p.relevance,
        p.recency,
        p.importance,
        p.confidence,
        h.score
    )
}

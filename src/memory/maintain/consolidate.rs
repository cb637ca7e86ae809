//! Consolidate: episodes become facts (guard → generate → persist).
//!
//! The guard says whether a run is due (enough unconsolidated episodes, far
//! enough apart in turns, or a lasting working entry evicted); `--force` skips
//! it. A run works in one scope (user, agent) at a time: the one given, else
//! each scope of the vault in turn; nothing it reads, links or writes crosses
//! scopes. Generation by the rules: unconsolidated episodes of the scope are
//! grouped by similarity; a group of `pattern_min` or more becomes a pattern
//! fact ("Runs 5k regularly") or reinforces the fact that already says it; an
//! episode that contradicts a fact updates or invalidates it as capture does.
//! With an LLM, one call sees the facts by subject and the episodes under
//! temporary ids and answers new / reinforce / update / invalidate. Persisting
//! links every fact it makes or changes to its episodes (`sources`, as
//! wikilinks), every ending to what caused it, and marks the episodes
//! `consolidated: true`; each action names the files it wrote. With a session,
//! the session's turns get an extractive summary episode that links them, and
//! are archived.

use std::collections::HashMap;

use crate::clock::{Timestamp, format_time};
use crate::error::Result;
use crate::memory::maintain::plan::{self, Action};
use crate::memory::reconcile::{self, Op};
use crate::memory::scope::Scope;
use crate::models::llm;
use crate::models::rules::{self, Fact};
use crate::storage::index::{Filter, IndexedDoc, Validity};
use crate::storage::naming;
use crate::storage::record::{Kind, Record};
use crate::storage::store::{Change, Store};
use crate::storage::vault::VaultLock;
use crate::storage::writer;

/// A new record of a scope, about a subject.
fn scoped_record(
    id: String,
    kind: Kind,
    content: &str,
    subject: &str,
    category: &str,
    scope: &Scope,
    now: Timestamp,
) -> Record {
    let mut r = Record::new(id, kind, now, content);
    r.subject = Some(subject.to_string());
    r.category = Some(category.to_string());
    r.user = scope.user.clone();
    r.agent = scope.agent.clone();
    r
}

/// What to consolidate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The scope to consolidate (exact: no user means the records with no
    /// user); `None`: every scope of the vault, each on its own.
    pub scope: Option<Scope>,
    pub session: Option<String>,
    pub dry_run: bool,
    /// A scope with fewer unconsolidated episodes than this is left alone (0:
    /// none is). Its session turns are summarised all the same.
    pub min_pending: usize,
}

/// The unconsolidated filter of a scope's current episodes.
fn pending_filter(scope: &Scope, now: Timestamp) -> Filter {
    Filter {
        unconsolidated: true,
        ..scope.filter(vec![Kind::Episodic], Validity::CurrentAt(now))
    }
}

/// Unconsolidated active episodes of a scope, oldest first.
pub fn pending_episodes(store: &Store, scope: &Scope, now: Timestamp) -> Result<Vec<IndexedDoc>> {
    let mut episodes = store
        .index()
        .fetch_newest(&pending_filter(scope, now), 10_000)?;
    episodes.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
    Ok(episodes)
}

/// The guard: whether an automatic run is due after a capture.
pub fn is_due(
    store: &Store,
    scope: &Scope,
    now: Timestamp,
    turn: u64,
    last_turn: u64,
    evicted_lasting: bool,
) -> Result<bool> {
    let cfg = &store.vault().config().consolidate;
    if evicted_lasting {
        return Ok(true);
    }
    if turn.saturating_sub(last_turn) < cfg.min_turns {
        return Ok(false);
    }
    Ok(pending_count(store, scope, now)? >= cfg.min_episodes)
}

/// How many active episodes of a scope wait for consolidation: one index
/// count, so a guard that says no costs nothing measurable.
pub fn pending_count(store: &Store, scope: &Scope, now: Timestamp) -> Result<usize> {
    store.index().count(&pending_filter(scope, now))
}

/// How many episodes wait in each scope a run would work in (the one given,
/// else every scope of the vault).
pub fn pending_by_scope(
    store: &Store,
    scope: Option<&Scope>,
    now: Timestamp,
) -> Result<Vec<(Scope, usize)>> {
    plan::scopes(store, scope)?
        .into_iter()
        .map(|s| {
            let n = pending_count(store, &s, now)?;
            Ok((s, n))
        })
        .collect()
}

/// Text of an episode without its time cues, for grouping.
fn without_time(content: &str) -> String {
    let mut s = content.to_string();
    if let Some(i) = s.rfind(" (").filter(|_| s.ends_with(')')) {
        s.truncate(i);
    }
    s
}

/// The present-tense pattern an episode stands for: "Ran 5k this morning" →
/// "Runs 5k regularly".
pub fn pattern_text(episode: &str) -> String {
    let base = without_time(episode);
    let (verb, rest) = base.split_once(' ').unwrap_or((base.as_str(), ""));
    let irregular: HashMap<&str, &str> = [
        ("ran", "runs"),
        ("went", "goes"),
        ("had", "has"),
        ("made", "makes"),
        ("took", "takes"),
        ("saw", "sees"),
        ("met", "meets"),
        ("bought", "buys"),
        ("ate", "eats"),
        ("drank", "drinks"),
        ("swam", "swims"),
        ("read", "reads"),
        ("wrote", "writes"),
        ("drove", "drives"),
        ("flew", "flies"),
        ("did", "does"),
        ("got", "gets"),
        ("began", "begins"),
        ("spoke", "speaks"),
        ("gave", "gives"),
        ("sang", "sings"),
        ("rode", "rides"),
        ("cooked", "cooks"),
        ("baked", "bakes"),
        ("hiked", "hikes"),
        ("visited", "visits"),
        ("played", "plays"),
        ("watched", "watches"),
        ("cycled", "cycles"),
        ("biked", "bikes"),
        ("climbed", "climbs"),
        ("attended", "attends"),
        ("practiced", "practices"),
        ("practised", "practises"),
        ("studied", "studies"),
    ]
    .into_iter()
    .collect();
    let lower = verb.to_lowercase();
    let present = match irregular.get(lower.as_str()) {
        Some(p) => p.to_string(),
        None if lower.ends_with("ied") => format!("{}ies", &lower[..lower.len() - 3]),
        None if lower.ends_with("ed") && lower.len() > 4 => {
            rules::conjugate(&lower[..lower.len() - 2])
        }
        None => lower.clone(),
    };
    let rest = strip_time_words(rest);
    let mut chars = present.chars();
    let head: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    format!("{head} {rest} regularly")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn strip_time_words(text: &str) -> String {
    let re = regex::Regex::new(
        r"(?i)\s*\b(?:this|last|yesterday|today|tonight|on)\s*(?:morning|evening|night|afternoon|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)?\b|\s*\b(?:again|before work|after work|yesterday|today)\b",
    )
    .expect("valid regex");
    re.replace_all(text, "").trim().to_string()
}

/// Groups texts by similarity (greedy, against each group's first member).
fn group(store: &Store, texts: &[String], threshold: f64) -> Vec<Vec<usize>> {
    let vectors = store.embedder().and_then(|e| e.embed(texts).ok());
    let sim = |a: usize, b: usize| -> f64 {
        match &vectors {
            Some(v) => f64::from(v[a].iter().zip(&v[b]).map(|(x, y)| x * y).sum::<f32>()),
            None => reconcile::similarity(store, &texts[a], &texts[b]),
        }
    };
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..texts.len() {
        match groups.iter_mut().find(|g| sim(g[0], i) >= threshold) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

fn link(doc: &IndexedDoc) -> String {
    naming::wikilink(&doc.path)
}

/// Runs consolidation in each scope it covers (the caller holds the lock and
/// has synced). Returns the plan carried out (or, in a dry run, only
/// planned) and warnings.
pub fn consolidate(
    store: &mut Store,
    lock: &VaultLock,
    options: &Options,
    now: Timestamp,
    model: Option<&llm::ChatModel>,
    progress: &dyn crate::storage::store::Progress,
) -> Result<(Vec<Action>, Vec<String>)> {
    let mut actions = Vec::new();
    let mut warnings = Vec::new();
    for scope in plan::scopes(store, options.scope.as_ref())? {
        let (a, w) = consolidate_scope(store, lock, &scope, options, now, model, progress)?;
        actions.extend(a);
        warnings.extend(w);
    }
    Ok((actions, warnings))
}

/// Consolidation of one scope.
fn consolidate_scope(
    store: &mut Store,
    lock: &VaultLock,
    scope: &Scope,
    options: &Options,
    now: Timestamp,
    model: Option<&llm::ChatModel>,
    progress: &dyn crate::storage::store::Progress,
) -> Result<(Vec<Action>, Vec<String>)> {
    let mut actions = Vec::new();
    let mut warnings = Vec::new();
    if let Some(session) = &options.session {
        actions.extend(summarize_session(
            store,
            lock,
            scope,
            options.dry_run,
            session,
            now,
        )?);
    }
    let episodes = pending_episodes(store, scope, now)?;
    if episodes.is_empty() || episodes.len() < options.min_pending {
        return Ok((actions, warnings));
    }
    let plan = match model {
        Some(m) => {
            let facts = store.index().fetch_newest(
                &scope.filter(vec![Kind::Semantic], Validity::CurrentAt(now)),
                10_000,
            )?;
            match plan_with_model(m, &facts, &episodes) {
                Ok(plan) => plan,
                Err(e) => {
                    warnings.push(format!("{e}; the rule engine consolidated instead"));
                    plan_with_rules(store, &episodes, now, scope)?
                }
            }
        }
        None => plan_with_rules(store, &episodes, now, scope)?,
    };
    let mut changes = Vec::new();
    let mut generator = ulid::Generator::new();
    for step in plan {
        let sources: Vec<String> = step.episodes.iter().map(|i| link(&episodes[*i])).collect();
        let source_ids: Vec<String> = step
            .episodes
            .iter()
            .map(|i| episodes[*i].id.clone())
            .collect();
        let subject = step.subject.clone().unwrap_or_else(|| "user".into());
        let new_fact = |generator: &mut ulid::Generator, content: &str| {
            let mut r = scoped_record(
                naming::new_id(generator, now),
                Kind::Semantic,
                content,
                &subject,
                step.category,
                scope,
                now,
            );
            r.importance = Some(step.importance);
            r.durability = Some("persistent".into());
            r.valid_from = Some(now);
            r.sources = sources.clone();
            r
        };
        let evidence = newest_evidence(&episodes, &step)
            .map(|e| format!("episode '{}' of {}", e.content, format_time(&e.created)))
            .unwrap_or_else(|| "no episode".into());
        match (step.action, &step.target) {
            ("new", _) => {
                let r = new_fact(&mut generator, &step.content);
                let id = r.id.clone();
                let written = writer::write_new(store, r, options.dry_run, &mut changes, None)?;
                actions.push(Action {
                    action: "new",
                    ids: [vec![id], source_ids].concat(),
                    content: Some(step.content.clone()),
                    reason: step.reason.clone(),
                    paths: vec![written.path],
                });
            }
            ("reinforce", Some(target)) => {
                writer::rewrite(store, target, options.dry_run, &mut changes, |rec| {
                    rec.reinforce(now);
                    for s in &sources {
                        if !rec.sources.contains(s) {
                            rec.sources.push(s.clone());
                        }
                    }
                })?;
                actions.push(Action {
                    action: "reinforce",
                    ids: [vec![target.id.clone()], source_ids].concat(),
                    content: Some(target.content.clone()),
                    reason: step.reason.clone(),
                    paths: vec![target.path.clone()],
                });
            }
            ("update", Some(target)) => {
                let mut r = new_fact(&mut generator, &step.content);
                r.supersedes = Some(naming::wikilink(&target.path));
                let new_id = r.id.clone();
                let written = writer::write_new(store, r, options.dry_run, &mut changes, None)?;
                let reason = format!(
                    "consolidate: superseded by '{}', as {evidence} says ({})",
                    step.content, step.reason
                );
                writer::rewrite(store, target, options.dry_run, &mut changes, |rec| {
                    rec.supersede(naming::wikilink(&written.path), reason, now)
                })?;
                actions.push(Action {
                    action: "update",
                    ids: [vec![new_id, target.id.clone()], source_ids].concat(),
                    content: Some(step.content.clone()),
                    reason: step.reason.clone(),
                    paths: vec![written.path, target.path.clone()],
                });
            }
            ("invalidate", Some(target)) => {
                // The newest episode is the record that ended it.
                let by = newest_evidence(&episodes, &step)
                    .map(link)
                    .unwrap_or_else(|| "engram consolidate".into());
                let reason = format!(
                    "consolidate: no longer true, as {evidence} says ({})",
                    step.reason
                );
                writer::rewrite(store, target, options.dry_run, &mut changes, |rec| {
                    rec.invalidate(by, reason, now)
                })?;
                actions.push(Action {
                    action: "invalidate",
                    ids: [vec![target.id.clone()], source_ids].concat(),
                    content: Some(target.content.clone()),
                    reason: step.reason.clone(),
                    paths: vec![target.path.clone()],
                });
            }
            _ => {}
        }
    }
    // Every episode read is marked, so it is not read again.
    progress.start(episodes.len() as u64, "consolidating");
    for episode in &episodes {
        progress.advance(1);
        writer::rewrite(store, episode, options.dry_run, &mut changes, |rec| {
            rec.consolidated = Some(true)
        })?;
    }
    progress.finish();
    actions.push(Action {
        action: "mark",
        ids: episodes.iter().map(|e| e.id.clone()).collect(),
        content: None,
        reason: format!(
            "{} episodes read: marked consolidated, so they are not read again",
            episodes.len()
        ),
        paths: episodes.iter().map(|e| e.path.clone()).collect(),
    });
    if !options.dry_run {
        let (_, w) = store.apply(changes, false)?;
        warnings.extend(w);
    }
    Ok((actions, warnings))
}

/// One step of a consolidation plan, before it is carried out.
#[derive(Debug, Clone)]
struct Step {
    action: &'static str,
    target: Option<IndexedDoc>,
    content: String,
    subject: Option<String>,
    category: &'static str,
    importance: f64,
    /// Indexes into the episodes.
    episodes: Vec<usize>,
    reason: String,
}

/// The newest episode a step rests on.
fn newest_evidence<'a>(episodes: &'a [IndexedDoc], step: &Step) -> Option<&'a IndexedDoc> {
    step.episodes
        .iter()
        .filter_map(|i| episodes.get(*i))
        .max_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)))
}

fn plan_with_rules(
    store: &Store,
    episodes: &[IndexedDoc],
    now: Timestamp,
    scope: &Scope,
) -> Result<Vec<Step>> {
    let cfg = &store.vault().config().consolidate;
    let mut plan = Vec::new();
    let texts: Vec<String> = episodes.iter().map(|e| without_time(&e.content)).collect();
    for members in group(store, &texts, cfg.similarity) {
        if members.len() < cfg.pattern_min {
            continue;
        }
        let content = pattern_text(&episodes[members[0]].content);
        let subject = episodes[members[0]]
            .subject
            .clone()
            .unwrap_or_else(|| "user".into());
        let fact = Fact {
            content: content.clone(),
            subject: subject.clone(),
            category: "pattern",
            durability: "persistent",
            importance: members
                .iter()
                .map(|i| episodes[*i].importance.unwrap_or(0.5))
                .fold(0.0, f64::max)
                .max(0.6),
            attribute: None,
            retraction: false,
            rule: "pattern",
        };
        let candidates = reconcile::candidates(store, &fact, scope, now)?;
        let decision = reconcile::decide(&fact, &candidates);
        let (action, target) = match decision.op {
            Op::Noop => ("reinforce", decision.target),
            _ => ("new", None),
        };
        plan.push(Step {
            action,
            target,
            content,
            subject: Some(subject),
            category: "pattern",
            importance: fact.importance,
            episodes: members.clone(),
            reason: format!(
                "seen in {} episodes (similarity ≥ {:.2}); {}",
                members.len(),
                cfg.similarity,
                decision.reason
            ),
        });
    }
    // Episodes that contradict a fact update or invalidate it, as capture does.
    for (i, episode) in episodes.iter().enumerate() {
        let retraction = episode.content.starts_with("No longer ")
            || episode.content.starts_with("Is no longer ");
        let positive = if retraction {
            episode
                .content
                .replacen("Is no longer ", "Is ", 1)
                .replacen("No longer ", "", 1)
        } else {
            episode.content.clone()
        };
        let positive = {
            let mut c = positive.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        };
        let Some((rule, Some(attribute))) = rules::classify(&positive) else {
            continue;
        };
        let fact = Fact {
            content: positive.clone(),
            subject: episode.subject.clone().unwrap_or_else(|| "user".into()),
            category: "attribute",
            durability: "persistent",
            importance: episode.importance.unwrap_or(0.6),
            attribute: Some(attribute),
            retraction,
            rule,
        };
        let candidates: Vec<(IndexedDoc, f64)> = reconcile::candidates(store, &fact, scope, now)?
            .into_iter()
            .filter(|(d, _)| d.created <= episode.created)
            .collect();
        let decision = reconcile::decide(&fact, &candidates);
        let step = |action, target: Option<IndexedDoc>| Step {
            action,
            target,
            content: positive.clone(),
            subject: Some(fact.subject.clone()),
            category: "attribute",
            importance: fact.importance,
            episodes: vec![i],
            reason: format!(
                "episode {} contradicts a fact: {}",
                episode.id, decision.reason
            ),
        };
        match (decision.op, decision.target.clone()) {
            (Op::Update, Some(t)) => plan.push(step("update", Some(t))),
            (Op::Delete, Some(t)) => plan.push(step("invalidate", Some(t))),
            _ => {}
        }
    }
    Ok(plan)
}

const CONSOLIDATE_PROMPT: &str = "You consolidate an AI agent's memory. You get the known facts, \
grouped by subject, each with an id F<n>, and recent episodes, each with an id E<n>. Answer JSON \
{\"actions\": [{\"action\": \"new\"|\"reinforce\"|\"update\"|\"invalidate\", \"fact\": <n of F<n>, \
for reinforce/update/invalidate>, \"content\": <the fact's text, for new/update: short, standalone, \
third person without the subject's name, e.g. \"Runs 5k most mornings\">, \"subject\": <subject for new>, \
\"episodes\": [<n of E<n> that support it>], \"reason\": <short>}]}. Make a new fact only from a \
pattern seen in several episodes or a lasting fact an episode states; reinforce a fact the episodes \
repeat; update a fact an episode changes; invalidate a fact an episode retracts. Use only the ids given.";

fn plan_with_model(
    model: &llm::ChatModel,
    facts: &[IndexedDoc],
    episodes: &[IndexedDoc],
) -> std::result::Result<Vec<Step>, llm::LlmError> {
    let mut by_subject: std::collections::BTreeMap<&str, Vec<(usize, &IndexedDoc)>> =
        std::collections::BTreeMap::new();
    for (i, f) in facts.iter().enumerate() {
        by_subject
            .entry(f.subject.as_deref().unwrap_or("user"))
            .or_default()
            .push((i + 1, f));
    }
    let mut prompt = String::from("Facts:\n");
    for (subject, list) in &by_subject {
        prompt.push_str(&format!("{subject}:\n"));
        for (n, f) in list {
            prompt.push_str(&format!("  F{n}: {}\n", f.content));
        }
    }
    prompt.push_str("Episodes:\n");
    for (i, e) in episodes.iter().enumerate() {
        prompt.push_str(&format!("  E{}: {}\n", i + 1, e.content));
    }
    let answer = model.complete_json(CONSOLIDATE_PROMPT, &prompt)?;
    let list = answer
        .get("actions")
        .and_then(|a| a.as_array())
        .ok_or_else(|| llm::LlmError::Garbage {
            endpoint: model.endpoint().to_string(),
            message: "no `actions` array".into(),
        })?;
    let mut plan = Vec::new();
    for item in list {
        let action = match item
            .get("action")
            .and_then(|a| a.as_str())
            .map(str::to_lowercase)
            .as_deref()
        {
            Some("new") => "new",
            Some("reinforce") => "reinforce",
            Some("update") => "update",
            Some("invalidate") => "invalidate",
            _ => continue,
        };
        let number = |v: &serde_json::Value| {
            v.as_u64().or_else(|| {
                v.as_str()
                    .and_then(|s| s.trim_start_matches(['F', 'E']).parse().ok())
            })
        };
        // Ids the model invents are dropped.
        let target = item
            .get("fact")
            .and_then(number)
            .and_then(|n| facts.get((n as usize).wrapping_sub(1)))
            .cloned();
        let sources: Vec<usize> = item
            .get("episodes")
            .and_then(|e| e.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(number)
                    .map(|n| n as usize)
                    .filter(|n| *n >= 1 && *n <= episodes.len())
                    .map(|n| n - 1)
                    .collect()
            })
            .unwrap_or_default();
        let content = item
            .get("content")
            .and_then(|c| c.as_str())
            .unwrap_or("")
            .trim()
            .to_string();
        if (action == "new" || action == "update") && content.is_empty()
            || action != "new" && target.is_none()
        {
            continue;
        }
        plan.push(Step {
            action,
            target,
            content,
            subject: item
                .get("subject")
                .and_then(|s| s.as_str())
                .map(rules::subject_name),
            category: "pattern",
            importance: 0.7,
            episodes: sources,
            reason: format!(
                "model {}: {}",
                model.name(),
                item.get("reason").and_then(|r| r.as_str()).unwrap_or("")
            ),
        });
    }
    Ok(plan)
}

/// A session's turns become one summary episode (extractive: the most salient
/// entries, in order, and the names mentioned) that links them; the turns are
/// archived, never deleted.
fn summarize_session(
    store: &mut Store,
    _lock: &VaultLock,
    scope: &Scope,
    dry_run: bool,
    session: &str,
    now: Timestamp,
) -> Result<Vec<Action>> {
    let filter = Filter {
        session: Some(session.to_string()),
        ..scope.filter(vec![Kind::Working], Validity::Any)
    };
    let mut turns: Vec<IndexedDoc> = store
        .index()
        .fetch_newest(&filter, 10_000)?
        .into_iter()
        .filter(|d| {
            d.status != "superseded"
                && d.status != "invalidated"
                && !(d.status == "archived"
                    && d.meta
                        .as_ref()
                        .is_some_and(|m| m.contains_key("summarized")))
        })
        .collect();
    if turns.is_empty() {
        return Ok(Vec::new());
    }
    turns.sort_by(|a, b| a.turn.cmp(&b.turn).then(a.created.cmp(&b.created)));
    let mut ranked: Vec<usize> = (0..turns.len()).collect();
    ranked.sort_by(|a, b| {
        turns[*b]
            .importance
            .unwrap_or(0.5)
            .total_cmp(&turns[*a].importance.unwrap_or(0.5))
    });
    let mut keep: Vec<usize> = ranked.into_iter().take(5).collect();
    keep.sort();
    let mut seen = std::collections::HashSet::new();
    let points: Vec<String> = keep
        .iter()
        .map(|i| turns[*i].content.trim_end_matches('.').to_string())
        .filter(|p| seen.insert(p.to_lowercase()))
        .collect();
    let mut entities: Vec<String> = Vec::new();
    for t in &turns {
        for word in t
            .content
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .skip(1)
        {
            if word.chars().next().is_some_and(char::is_uppercase)
                && !entities.iter().any(|e| e == word)
            {
                entities.push(word.to_string());
            }
        }
    }
    let mut content = format!("Session {session}: {}.", points.join("; "));
    if !entities.is_empty() {
        content.push_str(&format!(" Mentions: {}.", entities.join(", ")));
    }
    let mut generator = ulid::Generator::new();
    let mut summary = scoped_record(
        naming::new_id(&mut generator, now),
        Kind::Episodic,
        &content,
        "user",
        "event",
        scope,
        now,
    );
    summary.session = Some(session.to_string());
    summary.importance = Some(
        turns
            .iter()
            .map(|t| t.importance.unwrap_or(0.5))
            .fold(0.0, f64::max),
    );
    summary.sources = turns.iter().map(link).collect();
    let summary_id = summary.id.clone();
    let mut changes: Vec<Change> = Vec::new();
    let written = writer::write_new(store, summary, dry_run, &mut changes, None)?;
    let summary_link = naming::wikilink(&written.path);
    let mut archived = Vec::new();
    for t in &turns {
        writer::rewrite(store, t, dry_run, &mut changes, |rec| {
            rec.archive(
                format!(
                    "consolidate: a turn of session {session}, kept in its summary {summary_link}"
                ),
                now,
            );
            rec.meta.insert("summarized".into(), summary_id.clone());
        })?;
        archived.push(t.id.clone());
    }
    if !dry_run {
        store.apply(changes, false)?;
    }
    let turn_paths: Vec<String> = turns.iter().map(|t| t.path.clone()).collect();
    Ok(vec![
        Action {
            action: "summarize",
            ids: [vec![summary_id], archived.clone()].concat(),
            content: Some(content),
            reason: format!("session {session}: {} turns summarised", turns.len()),
            paths: vec![written.path],
        },
        Action {
            action: "archive",
            ids: archived,
            content: None,
            reason: format!("turns of session {session}, kept in the summary's sources"),
            paths: turn_paths,
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_read_in_the_present() {
        assert_eq!(pattern_text("Ran 5k this morning"), "Runs 5k regularly");
        assert_eq!(
            pattern_text("Went swimming at the lido (yesterday)"),
            "Goes swimming at the lido regularly"
        );
        assert_eq!(
            pattern_text("Baked sourdough bread again"),
            "Bakes sourdough bread regularly"
        );
        assert_eq!(
            pattern_text("Studied Japanese after work"),
            "Studies Japanese regularly"
        );
    }
}

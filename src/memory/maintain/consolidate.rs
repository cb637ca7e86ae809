//! Consolidate: episodes become facts (guard → generate → vet → persist).
//!
//! The guard says whether a run is due (enough unconsolidated episodes, far
//! enough apart in turns, or a lasting working entry evicted); `--force` skips
//! it. A run works in one scope (user, agent) at a time: the one given, else
//! each scope of the vault in turn; nothing it reads, links or writes crosses
//! scopes.
//!
//! Generation by the rules: unconsolidated episodes of the scope that state no
//! attribute (where someone lives or works is a state, not a habit) are grouped
//! by similarity; a group of `pattern_min` or more that contradict nothing
//! among themselves becomes a pattern fact ("Runs 5k regularly", see
//! [`pattern`]) or reinforces the fact that already says it; an episode that
//! contradicts a fact updates or invalidates it as capture does. With an LLM,
//! one call sees the facts by subject and the episodes under temporary ids and
//! answers new / reinforce / update / invalidate.
//!
//! Vetting keeps the truth: a fact is ended (updated, invalidated) only by an
//! episode newer than the fact (its `valid_from`, else `created`); a new fact
//! never brings back a value that was superseded or invalidated after its
//! episodes, nor contradicts the current value of its attribute.
//!
//! Persisting links every fact it makes or changes to its episodes (`sources`,
//! as wikilinks), every ending to what caused it, and marks the episodes
//! `consolidated: true`; each action names the files it wrote. With a session,
//! the session's turns get an extractive summary episode that links them, and
//! are archived.

use std::collections::HashMap;

use crate::clock::{Timestamp, format_time};
use crate::error::Result;
use crate::memory::maintain::pattern::{self, without_time};
use crate::memory::maintain::plan::{self, Action};
use crate::memory::reconcile::{self, Op};
use crate::memory::scope::{Covers, Scope};
use crate::models::llm;
use crate::models::rules::{self, Fact};
use crate::storage::index::{Filter, IndexedDoc, Validity};
use crate::storage::naming;
use crate::storage::record::{Kind, Record, SUMMARY_TAG, Status};
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
    /// The scopes to consolidate, each on its own.
    pub scope: Covers,
    pub session: Option<String>,
    /// With a session: its most recent turns left as they are.
    pub keep: usize,
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
    scope: &Covers,
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
    plan::per_scope(store, &options.scope, |store, scope| {
        consolidate_scope(store, lock, scope, options, now, model, progress)
    })
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
            options.keep,
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
    let plan = vet(store, scope, plan, &episodes, now)?;
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
                // Vetting keeps only endings with evidence: the newest episode
                // is the record that ended it.
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

/// When a fact started to hold: its `valid_from` (in the file), else when it
/// was created.
fn fact_start(store: &Store, doc: &IndexedDoc) -> Timestamp {
    store
        .vault()
        .read(&doc.path)
        .ok()
        .and_then(|l| l.record.valid_from)
        .unwrap_or(doc.created)
}

/// What a text states, by the rules: "Lives in Lisbon" → residence = lisbon
/// (a pattern's "regularly" aside).
fn attribute_of_text(content: &str) -> Option<rules::Attribute> {
    let core = content.trim().trim_end_matches('.');
    let core = core.strip_suffix(" regularly").unwrap_or(core);
    rules::classify(core).and_then(|(_, a)| a)
}

/// The attribute a record states: its `attribute` key when the file names
/// one, with the value its text gives.
fn attribute_of(doc: &IndexedDoc) -> Option<rules::Attribute> {
    let read = attribute_of_text(&doc.content);
    match (&doc.attribute, read) {
        (Some(key), Some(a)) if &a.key == key => Some(a),
        (Some(key), _) => Some(rules::Attribute {
            key: key.clone(),
            value: rules::norm(&doc.content),
        }),
        (None, read) => read,
    }
}

/// Whether an episode states an attribute (a state such as where someone lives
/// or works): never the stuff of a pattern.
fn states_attribute(episode: &IndexedDoc) -> bool {
    episode.attribute.is_some() || attribute_of_text(&without_time(&episode.content)).is_some()
}

/// Drops the steps that would break the truth (SPEC "One truth per
/// statement"):
/// - an update or invalidation whose newest episode is not newer than the
///   fact it ends (or that has no episode at all); of several endings of one
///   fact, only the one with the newest evidence;
/// - a new fact that brings back a value superseded or invalidated after its
///   evidence, or near-identical to such a record, or that gives an attribute
///   another value than its current fact.
fn vet(
    store: &Store,
    scope: &Scope,
    plan: Vec<Step>,
    episodes: &[IndexedDoc],
    now: Timestamp,
) -> Result<Vec<Step>> {
    let ending = |s: &Step| matches!(s.action, "update" | "invalidate");
    // The newest evidence among the endings of each fact.
    let mut newest: HashMap<String, Timestamp> = HashMap::new();
    for step in plan.iter().filter(|s| ending(s)) {
        if let (Some(t), Some(e)) = (&step.target, newest_evidence(episodes, step)) {
            let at = newest.entry(t.id.clone()).or_insert(e.created);
            *at = (*at).max(e.created);
        }
    }
    let latest_episode = episodes.iter().map(|e| e.created).max();
    let mut kept: Vec<Step> = Vec::new();
    for step in plan {
        if ending(&step) {
            let (Some(target), Some(evidence)) = (&step.target, newest_evidence(episodes, &step))
            else {
                continue;
            };
            let duplicate = kept
                .iter()
                .any(|k| ending(k) && k.target.as_ref().is_some_and(|t| t.id == target.id));
            if evidence.created <= fact_start(store, target)
                || newest.get(&target.id) != Some(&evidence.created)
                || duplicate
            {
                continue;
            }
        }
        if step.action == "new" {
            let subject = step.subject.as_deref().unwrap_or("user");
            let evidence = newest_evidence(episodes, &step)
                .map(|e| e.created)
                .or(latest_episode)
                .unwrap_or(now);
            if conflicts_with_history(store, scope, subject, &step.content, evidence, now)?
                .is_some()
            {
                continue;
            }
        }
        kept.push(step);
    }
    Ok(kept)
}

/// Why a new fact about `subject` would break the truth of its scope, if it
/// would: it states the value of an attribute that a record ended at or after
/// `evidence` (the newest episode behind the fact) held, or its text is
/// near-identical to such a record's; or the attribute's current fact holds
/// another value.
fn conflicts_with_history(
    store: &Store,
    scope: &Scope,
    subject: &str,
    content: &str,
    evidence: Timestamp,
    now: Timestamp,
) -> Result<Option<String>> {
    let attr = attribute_of_text(content);
    if let Some(a) = &attr {
        let current = Filter {
            subject: Some(subject.to_string()),
            ..scope.filter(vec![Kind::Semantic], Validity::CurrentAt(now))
        };
        for doc in store.index().fetch_newest(&current, 500)? {
            if let Some(b) = attribute_of(&doc).filter(|b| b.key == a.key && b.value != a.value) {
                return Ok(Some(format!(
                    "{} is '{}' now ({})",
                    a.key,
                    b.value,
                    link(&doc)
                )));
            }
        }
    }
    // Records ended after the evidence: of the subject, and the nearest of
    // the scope by text.
    let mut ended: Vec<IndexedDoc> = Vec::new();
    for status in [Status::Superseded, Status::Invalidated] {
        let filter = Filter {
            status: Some(status),
            ..scope.filter(vec![Kind::Semantic], Validity::Any)
        };
        let of_subject = Filter {
            subject: Some(subject.to_string()),
            ..filter.clone()
        };
        ended.extend(store.index().fetch_newest(&of_subject, 1_000)?);
        for (_, addr) in store.index().search(content, &filter, 5)? {
            let doc = store.index().fetch(addr)?;
            if ended.iter().all(|d| d.id != doc.id) {
                ended.push(doc);
            }
        }
    }
    ended.retain(|d| d.valid_to.or(d.updated).is_none_or(|end| end >= evidence));
    if ended.is_empty() {
        return Ok(None);
    }
    let core = content.trim_end_matches(" regularly");
    for doc in &ended {
        let same_value = matches!((&attr, attribute_of(doc)), (Some(a), Some(b))
            if a.key == b.key && a.value == b.value && doc.subject.as_deref().unwrap_or("user") == subject);
        let same_text = [content, core]
            .iter()
            .any(|c| rules::norm(c) == rules::norm(&doc.content));
        if same_value || same_text {
            return Ok(Some(format!(
                "it would bring back {} {}",
                doc.status,
                link(doc)
            )));
        }
    }
    let threshold = store.vault().config().prune.duplicate_similarity;
    let mut texts = vec![content.to_string()];
    texts.extend(ended.iter().map(|d| d.content.clone()));
    let sims: Vec<f64> = match store.embedder().and_then(|e| e.embed(&texts).ok()) {
        Some(v) => v[1..]
            .iter()
            .map(|d| f64::from(v[0].iter().zip(d).map(|(x, y)| x * y).sum::<f32>()))
            .collect(),
        None => ended
            .iter()
            .map(|d| reconcile::similarity(store, content, &d.content))
            .collect(),
    };
    Ok(ended
        .iter()
        .zip(sims)
        .find(|(_, s)| *s >= threshold)
        .map(|(doc, s)| {
            format!(
                "near-identical (similarity {s:.2}) to {} {}",
                doc.status,
                link(doc)
            )
        }))
}

fn plan_with_rules(
    store: &Store,
    episodes: &[IndexedDoc],
    now: Timestamp,
    scope: &Scope,
) -> Result<Vec<Step>> {
    let cfg = &store.vault().config().consolidate;
    let mut plan = Vec::new();
    // Patterns come from episodes of doing, never from states.
    let eligible: Vec<usize> = (0..episodes.len())
        .filter(|i| !states_attribute(&episodes[*i]))
        .collect();
    let texts: Vec<String> = eligible
        .iter()
        .map(|i| without_time(&episodes[*i].content))
        .collect();
    for group in group(store, &texts, cfg.similarity) {
        if group.len() < cfg.pattern_min {
            continue;
        }
        let members: Vec<usize> = group.iter().map(|g| eligible[*g]).collect();
        let contents: Vec<&str> = members
            .iter()
            .map(|i| episodes[*i].content.as_str())
            .collect();
        let Some((content, support)) = pattern::pattern_of(&contents, cfg.pattern_min) else {
            continue;
        };
        let members: Vec<usize> = support.iter().map(|s| members[*s]).collect();
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
            ..Fact::default()
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
    // Episodes that contradict a fact update or invalidate it, as capture
    // does; an episode that restates a fact confirms it, and an older
    // contradiction of a fact confirmed since is stale.
    let mut confirmed: HashMap<String, Timestamp> = HashMap::new();
    let mut endings = Vec::new();
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
            attribute: Some(attribute.clone()),
            retraction,
            rule,
            ..Fact::default()
        };
        let candidates = reconcile::candidates(store, &fact, scope, now)?;
        let decision = reconcile::decide(&fact, &candidates);
        let Some(target) = decision.target.clone() else {
            continue;
        };
        if decision.op == Op::Noop {
            let at = confirmed
                .entry(target.id.clone())
                .or_insert(episode.created);
            *at = (*at).max(episode.created);
            continue;
        }
        // Only the fact of the attribute the episode speaks of ends.
        if attribute_of(&target).is_none_or(|a| a.key != attribute.key) {
            continue;
        }
        let action = match decision.op {
            Op::Update => "update",
            Op::Delete => "invalidate",
            _ => continue,
        };
        endings.push(Step {
            action,
            target: Some(target),
            content: positive.clone(),
            subject: Some(fact.subject.clone()),
            category: "attribute",
            importance: fact.importance,
            episodes: vec![i],
            reason: format!(
                "episode '{}' of {} contradicts it: {}",
                episode.content,
                format_time(&episode.created),
                decision.reason
            ),
        });
    }
    plan.extend(endings.into_iter().filter(|s| {
        let target = s.target.as_ref().map(|t| t.id.as_str()).unwrap_or("");
        let evidence = s.episodes.iter().map(|i| episodes[*i].created).max();
        confirmed.get(target).is_none_or(|c| evidence > Some(*c))
    }));
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
        .ok_or_else(|| model.garbage("no `actions` array"))?;
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

/// How many of a session's most recent turns `consolidate --session` leaves
/// as they are unless told (`--keep`).
pub const DEFAULT_KEEP: usize = 2;

/// How many points a summary states of what it summarises.
const SUMMARY_POINTS: usize = 5;

/// A session's turns (its working entries and its messages, in order) but the
/// most recent `keep` become one summary episode that links them, and are
/// archived, never deleted. The points are the session's facts in working
/// memory, else the facts the rules read in what the user said, and the names
/// mentioned. A summary of the session already there is superseded by the new
/// one, which keeps its points first.
fn summarize_session(
    store: &mut Store,
    _lock: &VaultLock,
    scope: &Scope,
    dry_run: bool,
    session: &str,
    keep: usize,
    now: Timestamp,
) -> Result<Vec<Action>> {
    let filter = Filter {
        session: Some(session.to_string()),
        ..scope.filter(Vec::new(), Validity::Any)
    };
    let docs = store.index().fetch_newest(&filter, usize::MAX)?;
    let previous = docs
        .iter()
        .filter(|d| d.is_current_at(now) && d.tags.iter().any(|t| t == SUMMARY_TAG))
        .max_by_key(|d| d.created)
        .cloned();
    let mut turns: Vec<IndexedDoc> = docs
        .into_iter()
        .filter(|d| d.kind == Kind::Working.as_str() || d.role.is_some())
        .filter(|d| {
            d.status != "superseded"
                && d.status != "invalidated"
                && !d
                    .meta
                    .as_ref()
                    .is_some_and(|m| m.contains_key("summarized"))
        })
        .collect();
    turns.sort_by(|a, b| (a.turn, a.created, &a.id).cmp(&(b.turn, b.created, &b.id)));
    // The most recent `keep` turns stay (a turn: one message, or what one
    // capture put in working memory); what came before them (and the words
    // kept as said, archived from birth) is summarised.
    let mut current: Vec<(Option<u64>, usize)> = Vec::new();
    for (i, t) in turns.iter().enumerate() {
        if !t.is_current_at(now) {
            continue;
        }
        match current.last_mut() {
            Some((turn, last)) if turn.is_some() && *turn == t.turn => *last = i,
            _ => current.push((t.turn, i)),
        }
    }
    let Some(cut) = current.len().checked_sub(keep).filter(|n| *n > 0) else {
        return Ok(Vec::new());
    };
    let last_archived = current[cut - 1].1;
    turns.truncate(last_archived + 1);
    let turns: Vec<IndexedDoc> = turns
        .into_iter()
        .filter(|t| t.is_current_at(now) || t.role.is_some())
        .collect();
    let mut points: Vec<String> = previous
        .as_ref()
        .map(|p| summary_points(&p.content, session))
        .unwrap_or_default();
    let mut seen: std::collections::HashSet<String> =
        points.iter().map(|p| p.to_lowercase()).collect();
    let mut ranked: Vec<usize> = (0..turns.len())
        .filter(|i| turns[*i].role.is_none())
        .collect();
    ranked.sort_by(|a, b| {
        turns[*b]
            .importance
            .unwrap_or(0.5)
            .total_cmp(&turns[*a].importance.unwrap_or(0.5))
    });
    let mut chosen: Vec<usize> = ranked.into_iter().take(SUMMARY_POINTS).collect();
    chosen.sort();
    let mut new_points: Vec<String> = chosen
        .iter()
        .map(|i| turns[*i].content.trim_end_matches('.').to_string())
        .collect();
    if new_points.is_empty() {
        // Messages kept as said: the facts in the user's words, their times
        // read from when each was said.
        for t in turns
            .iter()
            .filter(|t| t.role.as_deref() == Some("user") && t.is_current_at(now))
        {
            for fact in rules::read(&t.content, Some(t.created)).facts {
                if new_points.len() < SUMMARY_POINTS {
                    new_points.push(fact.content.trim_end_matches('.').to_string());
                }
            }
        }
    }
    for p in new_points {
        if seen.insert(p.to_lowercase()) {
            points.push(p);
        }
    }
    let messages = turns.iter().filter(|t| t.role.is_some()).count();
    let mut content = if points.is_empty() {
        format!(
            "Session {session}: {messages} messages from {} to {}.",
            format_time(&turns[0].created),
            format_time(&turns[turns.len() - 1].created)
        )
    } else {
        format!("Session {session}: {}.", points.join("; "))
    };
    let mut entities: Vec<String> = Vec::new();
    for t in &turns {
        // A capitalised word inside a sentence is a name ("I", "I'm" are not).
        let mut opens_sentence = true;
        for token in t.content.split_whitespace() {
            let word = token.trim_matches(|c: char| !(c.is_alphanumeric() || c == '-'));
            if !opens_sentence
                && word.chars().count() > 1
                && !word.starts_with("I'")
                && !word.starts_with("I\u{2019}")
                && word.chars().next().is_some_and(char::is_uppercase)
                && !entities.iter().any(|e| e == word)
                && entities.len() < 12
            {
                entities.push(word.to_string());
            }
            opens_sentence = token.ends_with(['.', ':', '!', '?']);
        }
    }
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
    // An episode of when the session happened: dated by its last turn.
    if let Some(last) = turns.iter().map(|t| t.created).max() {
        summary.created = last.min(now);
    }
    summary.turn = turns.iter().filter_map(|t| t.turn).max();
    summary.tags = vec![SUMMARY_TAG.into()];
    summary.importance = Some(
        turns
            .iter()
            .map(|t| t.importance.unwrap_or(0.5))
            .fold(0.0, f64::max),
    );
    summary.sources = turns.iter().map(link).collect();
    if let Some(p) = &previous {
        summary.sources.insert(0, link(p));
        summary.supersedes = Some(link(p));
    }
    let summary_id = summary.id.clone();
    let mut changes: Vec<Change> = Vec::new();
    let written = writer::write_new(store, summary, dry_run, &mut changes, None)?;
    let summary_link = naming::wikilink(&written.path);
    if let Some(p) = &previous {
        writer::rewrite(store, p, dry_run, &mut changes, |rec| {
            rec.supersede(
                summary_link.clone(),
                format!("consolidate: session {session} summarised again"),
                now,
            )
        })?;
    }
    let mut archived = Vec::new();
    let reason =
        format!("consolidate: a turn of session {session}, kept in its summary {summary_link}");
    for t in &turns {
        writer::rewrite(store, t, dry_run, &mut changes, |rec| {
            if rec.status == Status::Active {
                rec.archive(reason.clone(), now);
            }
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
            reason: format!(
                "session {session}: {} turns summarised, the last {keep} kept",
                turns.len()
            ),
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

/// The points a summary states: its text without the "Session S: " opening,
/// the names mentioned and the closing stop.
fn summary_points(content: &str, session: &str) -> Vec<String> {
    let body = content
        .strip_prefix(&format!("Session {session}: "))
        .unwrap_or(content);
    let body = body.split(" Mentions: ").next().unwrap_or(body);
    if body.contains(" messages from ") {
        return Vec::new();
    }
    body.trim_end_matches('.')
        .split("; ")
        .map(str::to_string)
        .filter(|p| !p.trim().is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_states_the_attribute_of_its_words() {
        let employer =
            attribute_of_text("Works at Acme Corp in the finance team regularly").unwrap();
        assert_eq!(employer.key, "employer");
        assert_eq!(employer.value, "acme corp in finance team");
        assert_eq!(
            attribute_of_text("Lives in Lisbon.").map(|a| (a.key, a.value)),
            Some(("residence".into(), "lisbon".into()))
        );
        assert_eq!(attribute_of_text("Runs 5k regularly"), None);
    }
}

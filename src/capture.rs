//! Capture: turn input into records and write them.
//!
//! This module owns the raw path (`capture --raw`, mem0's `infer=false`): one
//! record per input or per JSONL line, stored as given. Input is validated
//! completely before anything is written, so bad input loses nothing and writes
//! nothing. Extraction and reconciliation (ADD/UPDATE/DELETE/NOOP) build on the
//! same [`Mutation`] output.

use std::collections::BTreeMap;

use chrono::Duration;
use serde::Serialize;

use crate::clock::{Timestamp, parse_time};
use crate::error::{Error, Result};
use crate::naming;
use crate::record::{Kind, Record};
use crate::store::{Change, Progress, Store};
use crate::vault::{FileStamp, VaultLock};

/// One thing to remember, before it becomes a record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaptureItem {
    pub content: String,
    pub kind: Option<Kind>,
    pub subject: Option<String>,
    pub category: Option<String>,
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub importance: Option<f64>,
    pub created: Option<Timestamp>,
    pub tags: Vec<String>,
    pub meta: BTreeMap<String, String>,
}

/// Values from flags, applied where an item says nothing.
#[derive(Debug, Clone, Default)]
pub struct CaptureDefaults {
    pub kind: Option<Kind>,
    pub subject: Option<String>,
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub importance: Option<f64>,
    pub tags: Vec<String>,
    pub ttl: Option<Duration>,
}

/// One change capture made (or, in a dry run, would make).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Mutation {
    pub op: &'static str,
    pub id: String,
    pub kind: String,
    pub content: String,
    pub path: String,
    /// For an UPDATE: the superseded record (`id`, `content`, `path`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Parses `--input jsonl`: one JSON object per line, blank lines skipped. Every
/// line is checked before any is used; the error names the line.
pub fn parse_jsonl(text: &str) -> Result<Vec<CaptureItem>> {
    let mut items = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let n = i + 1;
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            Error::Input(format!(
                "line {n} of the JSONL input is not JSON: {e}; nothing was captured"
            ))
        })?;
        items.push(item_from_json(&value).map_err(|e| {
            Error::Input(format!(
                "line {n} of the JSONL input: {e}; nothing was captured"
            ))
        })?);
    }
    if items.is_empty() {
        return Err(Error::Input(
            "the JSONL input has no records; give one JSON object per line".into(),
        ));
    }
    Ok(items)
}

fn item_from_json(value: &serde_json::Value) -> std::result::Result<CaptureItem, String> {
    let obj = value
        .as_object()
        .ok_or("expected a JSON object like {\"content\": \"...\"}")?;
    let string = |key: &str| -> std::result::Result<Option<String>, String> {
        match obj.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let content = string("content")?
        .filter(|c| !c.trim().is_empty())
        .ok_or("`content` is missing or empty")?;
    let kind = string("kind")?.map(|k| k.parse::<Kind>()).transpose()?;
    let importance = match obj.get("importance") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or("`importance` must be a number from 0 to 1")?,
        ),
    };
    let created = string("created")?.map(|t| parse_time(&t)).transpose()?;
    let tags = match obj.get("tags") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .map(|t| {
                t.as_str()
                    .map(str::to_string)
                    .ok_or("`tags` must be a list of strings")
            })
            .collect::<std::result::Result<_, _>>()?,
        Some(serde_json::Value::String(s)) => split_tags(s),
        Some(_) => return Err("`tags` must be a list of strings".into()),
    };
    let meta = match obj.get("meta") {
        None | Some(serde_json::Value::Null) => BTreeMap::new(),
        Some(serde_json::Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), v)
            })
            .collect(),
        Some(_) => return Err("`meta` must be an object of strings".into()),
    };
    Ok(CaptureItem {
        content,
        kind,
        subject: string("subject")?,
        category: string("category")?,
        user: string("user")?,
        agent: string("agent")?,
        session: string("session")?,
        importance,
        created,
        tags,
        meta,
    })
}

/// Splits `a,b, c` into tags (a leading `#` is dropped, as Obsidian writes them).
pub fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(|t| t.trim().trim_start_matches('#').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Builds the record for an item: flags fill what the item leaves out; raw
/// records are episodic unless told otherwise.
pub fn build_record(
    item: &CaptureItem,
    defaults: &CaptureDefaults,
    id: String,
    now: Timestamp,
) -> Record {
    let kind = item.kind.or(defaults.kind).unwrap_or(Kind::Episodic);
    let created = item.created.unwrap_or(now);
    let mut r = Record::new(id, kind, created, &item.content);
    r.subject = item.subject.clone().or_else(|| defaults.subject.clone());
    r.category = item.category.clone();
    r.user = item.user.clone().or_else(|| defaults.user.clone());
    r.agent = item.agent.clone().or_else(|| defaults.agent.clone());
    r.session = item.session.clone().or_else(|| defaults.session.clone());
    if kind == Kind::Working && r.session.is_none() {
        r.session = Some("default".into());
    }
    r.importance = item.importance.or(defaults.importance);
    let mut tags = defaults.tags.clone();
    for t in &item.tags {
        if !tags.contains(t) {
            tags.push(t.clone());
        }
    }
    r.tags = tags;
    r.meta = item.meta.clone();
    r.expires = defaults.ttl.map(|ttl| now + ttl);
    r
}

/// Stores items as given, one record each. The caller holds the lock and has
/// synced the store. In a dry run nothing is written.
pub fn capture_raw(
    store: &mut Store,
    _lock: &VaultLock,
    items: &[CaptureItem],
    defaults: &CaptureDefaults,
    now: Timestamp,
    dry_run: bool,
    progress: &dyn Progress,
) -> Result<(Vec<Mutation>, Vec<String>)> {
    let mut generator = ulid::Generator::new();
    let planned: Vec<(Record, String)> = items
        .iter()
        .map(|item| {
            let record = build_record(item, defaults, naming::new_id(&mut generator, now), now);
            let rel = naming::record_path(
                record.kind,
                &record.id,
                record.content(),
                record.subject.as_deref(),
                record.session.as_deref(),
                record.created,
            );
            (record, rel)
        })
        .collect();
    let mutation = |record: &Record, rel: String| Mutation {
        op: "ADD",
        id: record.id.clone(),
        kind: record.kind.to_string(),
        content: record.content().to_string(),
        path: rel,
        previous: None,
        reason: Some("raw capture: stored as given".into()),
    };
    if dry_run {
        let mutations = planned
            .iter()
            .map(|(r, rel)| mutation(r, rel.clone()))
            .collect();
        return Ok((mutations, Vec::new()));
    }
    progress.start(planned.len() as u64, "capturing");
    let written = write_all(store, &planned, progress);
    progress.finish();
    // Index every file that was written, even if a later one failed: the files
    // are the truth and must not be orphaned.
    let mut mutations = Vec::with_capacity(planned.len());
    let mut changes = Vec::with_capacity(planned.len());
    let mut first_error = None;
    for ((record, _), outcome) in planned.into_iter().zip(written) {
        match outcome {
            Ok((rel, stamp)) => {
                mutations.push(mutation(&record, rel.clone()));
                changes.push(Change::Upsert {
                    rel,
                    record: Box::new(record),
                    stamp,
                });
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let (_, warnings) = store.apply(changes, false)?;
    match first_error {
        Some(e) => Err(e),
        None => Ok((mutations, warnings)),
    }
}

/// Writes the planned files, several at a time: each write is fsynced before its
/// rename, and overlapping those waits is what makes bulk capture fast.
fn write_all(
    store: &Store,
    planned: &[(Record, String)],
    progress: &dyn Progress,
) -> Vec<Result<(String, FileStamp)>> {
    const WRITERS: usize = 8;
    let vault = store.vault();
    if planned.len() < 2 * WRITERS {
        return planned
            .iter()
            .map(|(record, rel)| {
                progress.advance(1);
                vault.write_new(rel, &record.render())
            })
            .collect();
    }
    let chunk = planned.len().div_ceil(WRITERS);
    let results: Vec<Vec<Result<(String, FileStamp)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = planned
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(record, rel)| vault.write_new(rel, &record.render()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let part = h.join().expect("a writer thread panicked");
                progress.advance(part.len() as u64);
                part
            })
            .collect()
    });
    results.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_lines_become_items() {
        let items = parse_jsonl(
            "{\"content\": \"a\", \"kind\": \"semantic\", \"tags\": [\"x\"], \"meta\": {\"dia_id\": \"D1:1\", \"n\": 3}}\n\n{\"content\": \"b\", \"importance\": 0.9}\n",
        )
        .unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].kind, Some(Kind::Semantic));
        assert_eq!(items[0].meta["dia_id"], "D1:1");
        assert_eq!(items[0].meta["n"], "3");
        assert_eq!(items[1].importance, Some(0.9));
    }

    #[test]
    fn a_bad_line_is_named_and_nothing_is_taken() {
        let e = parse_jsonl("{\"content\": \"a\"}\n{\"content\": 5}\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = parse_jsonl("{\"content\": \"a\"}\nnot json\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = parse_jsonl("{\"content\": \"a\", \"kind\": \"dream\"}").unwrap_err();
        assert!(e.to_string().contains("unknown kind"), "{e}");
    }

    #[test]
    fn flags_fill_in_and_ttl_sets_expiry() {
        let now = parse_time("2026-11-20T00:00:00Z").unwrap();
        let item = CaptureItem {
            content: "x".into(),
            user: Some("bob".into()),
            ..CaptureItem::default()
        };
        let defaults = CaptureDefaults {
            user: Some("alice".into()),
            agent: Some("a1".into()),
            tags: vec!["t".into()],
            ttl: Some(Duration::days(30)),
            ..CaptureDefaults::default()
        };
        let r = build_record(&item, &defaults, "id1".into(), now);
        assert_eq!(r.user.as_deref(), Some("bob"), "the item wins over flags");
        assert_eq!(r.agent.as_deref(), Some("a1"));
        assert_eq!(r.kind, Kind::Episodic);
        assert_eq!(r.expires, Some(parse_time("2026-12-20T00:00:00Z").unwrap()));
        assert_eq!(r.tags, vec!["t"]);
    }
}

/// What capture with extraction did.
#[derive(Debug, Clone, Default)]
pub struct CaptureOutcome {
    pub mutations: Vec<Mutation>,
    /// Working-memory entries evicted by this capture's tick.
    pub evicted: Vec<Mutation>,
    /// What consolidate and prune did when their thresholds were met.
    pub maintenance: Vec<crate::consolidate::Action>,
    pub warnings: Vec<String>,
}

/// Categories stable enough to go straight to semantic memory.
const STABLE: [&str; 7] = [
    "identity",
    "profession",
    "preference",
    "belief",
    "relationship",
    "attribute",
    "pattern",
];

/// The text a retraction leaves in working and episodic memory.
fn retraction_text(content: &str) -> String {
    match content.strip_prefix("Is ") {
        Some(rest) => format!("Is no longer {rest}"),
        None => {
            let mut chars = content.chars();
            let lowered: String = chars
                .next()
                .map(|c| c.to_lowercase().chain(chars).collect())
                .unwrap_or_default();
            format!("No longer {lowered}")
        }
    }
}

/// The facts in the input: by the model when one is configured (falling back to
/// the rules, with a warning, when it fails), else by the rules.
fn observe(
    text: &str,
    model: Option<&crate::llm::ChatModel>,
    warnings: &mut Vec<String>,
) -> Vec<crate::extract::Fact> {
    if let Some(model) = model {
        match crate::llm::extract_facts(model, text, None) {
            Ok(facts) => {
                return facts
                    .into_iter()
                    .map(|f| {
                        let category = crate::extract::CATEGORIES
                            .iter()
                            .find(|c| **c == f.category)
                            .copied()
                            .unwrap_or("attribute");
                        let durability = ["transient", "session", "persistent", "permanent"]
                            .into_iter()
                            .find(|d| *d == f.durability)
                            .unwrap_or("persistent");
                        crate::extract::Fact {
                            attribute: crate::extract::classify(&f.content).and_then(|(_, a)| a),
                            content: f.content,
                            subject: f.subject,
                            category,
                            durability,
                            importance: f.importance,
                            retraction: false,
                            rule: "model",
                        }
                    })
                    .collect();
            }
            Err(e) => warnings.push(format!("{e}; the rule engine extracted the facts instead")),
        }
    }
    crate::extract::extract(text)
}

/// Capture with extraction: observe → reflect → write → tick. The caller holds
/// the lock and has synced the store. In a dry run nothing is written and the
/// decisions are made against the vault as it is.
#[allow(clippy::too_many_arguments)]
pub fn capture_facts(
    store: &mut Store,
    _lock: &VaultLock,
    texts: &[String],
    defaults: &CaptureDefaults,
    now: Timestamp,
    dry_run: bool,
    model: Option<&crate::llm::ChatModel>,
) -> Result<CaptureOutcome> {
    use crate::reconcile::{self, Op, Scope};
    let mut out = CaptureOutcome::default();
    let config = store.vault().config().clone();
    let session = defaults.session.clone().unwrap_or_else(|| "default".into());
    let turn = current_turn(store, defaults, &session)? + 1;
    let scope = Scope {
        user: defaults.user.clone(),
        agent: defaults.agent.clone(),
    };
    let mut generator = ulid::Generator::new();
    let mut facts = Vec::new();
    for text in texts {
        facts.extend(observe(text, model, &mut out.warnings));
    }
    for mut fact in facts {
        if let Some(subject) = &defaults.subject {
            fact.subject = subject.clone();
        }
        if let Some(i) = defaults.importance {
            fact.importance = i;
        }
        let mut changes = Vec::new();
        let shown = if fact.retraction {
            retraction_text(&fact.content)
        } else {
            fact.content.clone()
        };
        let base = |kind: Kind, content: &str, generator: &mut ulid::Generator| {
            let item = CaptureItem {
                content: content.to_string(),
                kind: Some(kind),
                subject: Some(fact.subject.clone()),
                category: Some(fact.category.to_string()),
                ..CaptureItem::default()
            };
            let mut r = build_record(&item, defaults, naming::new_id(generator, now), now);
            r.importance = Some(fact.importance);
            r.durability = Some(fact.durability.to_string());
            r
        };
        // Working memory: every observation, for this session.
        let mut working = base(Kind::Working, &shown, &mut generator);
        working.session = Some(session.clone());
        working.turn = Some(turn);
        let working_reason = format!(
            "observed by {}: enters working memory of session {session} at turn {turn}",
            fact.rule
        );
        out.mutations.push(write_new(
            store,
            working,
            dry_run,
            &mut changes,
            Some(working_reason),
        )?);
        // Semantic memory: stable facts, reconciled with what is known.
        let lasting = matches!(fact.durability, "persistent" | "permanent");
        let decision = if lasting && STABLE.contains(&fact.category) {
            let candidates = reconcile::candidates(store, &fact, &scope, now)?;
            Some(match model {
                Some(m) => {
                    reconcile::decide_with_model(m, &fact, &candidates).unwrap_or_else(|e| {
                        out.warnings
                            .push(format!("{e}; the rules reconciled instead"));
                        reconcile::decide(&fact, &candidates)
                    })
                }
                None => reconcile::decide(&fact, &candidates),
            })
        } else {
            None
        };
        // Episodic memory: significant lasting observations, and events; a
        // restatement is no new experience.
        let restated = decision.as_ref().is_some_and(|d| d.op == Op::Noop);
        let mut episode_link = None;
        let significant = lasting && fact.importance >= config.episodic.significance;
        if (significant || fact.category == "event") && !restated {
            let episode = base(Kind::Episodic, &shown, &mut generator);
            let reason = format!(
                "importance {:.2} ≥ significance {:.2}: an episode",
                fact.importance, config.episodic.significance
            );
            let m = write_new(store, episode, dry_run, &mut changes, Some(reason))?;
            episode_link = Some(format!("[[{}]]", m.path.trim_end_matches(".md")));
            out.mutations.push(m);
        }
        if let Some(decision) = decision {
            let reason = match (&decision.target, decision.similarity) {
                (Some(t), Some(s)) => format!(
                    "{} (nearest {} '{}', similarity {s:.2})",
                    decision.reason, t.id, t.content
                ),
                _ => decision.reason.clone(),
            };
            match (decision.op, decision.target) {
                (Op::Add, _) | (Op::Update, None) => {
                    let mut r = base(Kind::Semantic, &fact.content, &mut generator);
                    r.sources.extend(episode_link.clone());
                    r.valid_from = Some(now);
                    out.mutations
                        .push(write_new(store, r, dry_run, &mut changes, Some(reason))?);
                }
                (Op::Update, Some(old)) => {
                    let mut r = base(Kind::Semantic, &fact.content, &mut generator);
                    r.sources.extend(episode_link.clone());
                    r.supersedes = Some(naming::wikilink(&old.path));
                    r.valid_from = Some(now);
                    let mut m = write_new(store, r, dry_run, &mut changes, Some(reason))?;
                    let new_link = naming::wikilink(&m.path);
                    m.op = "UPDATE";
                    m.previous = Some(
                        serde_json::json!({ "id": old.id, "content": old.content, "path": old.path }),
                    );
                    rewrite(store, &old, dry_run, &mut changes, |rec| {
                        rec.supersede(new_link.clone(), now)
                    })?;
                    out.mutations.push(m);
                }
                (Op::Delete, Some(old)) => {
                    rewrite(store, &old, dry_run, &mut changes, |rec| {
                        rec.end(crate::record::Status::Invalidated, now)
                    })?;
                    out.mutations.push(Mutation {
                        op: "DELETE",
                        id: old.id.clone(),
                        kind: old.kind.clone(),
                        content: old.content.clone(),
                        path: old.path.clone(),
                        previous: None,
                        reason: Some(reason),
                    });
                }
                (Op::Noop, Some(old)) => {
                    rewrite(store, &old, dry_run, &mut changes, |rec| rec.reinforce(now))?;
                    out.mutations.push(Mutation {
                        op: "NOOP",
                        id: old.id.clone(),
                        kind: old.kind.clone(),
                        content: old.content.clone(),
                        path: old.path.clone(),
                        previous: None,
                        reason: Some(reason),
                    });
                }
                (Op::Delete | Op::Noop, None) => {}
            }
        }
        if !dry_run {
            let (_, warnings) = store.apply(changes, false)?;
            out.warnings.extend(warnings);
        }
    }
    if !dry_run {
        out.evicted = tick(store, defaults, &session, turn, now, &config.working)?;
        maintain(store, _lock, &mut out, &scope, &session, turn, now, model)?;
    }
    Ok(out)
}

/// Consolidate and prune, when their thresholds are met (SPEC: capture runs
/// them). The guard costs a count of pending episodes and facts, nothing more.
#[allow(clippy::too_many_arguments)]
fn maintain(
    store: &mut Store,
    lock: &VaultLock,
    out: &mut CaptureOutcome,
    scope: &crate::reconcile::Scope,
    session: &str,
    turn: u64,
    now: Timestamp,
    model: Option<&crate::llm::ChatModel>,
) -> Result<()> {
    let evicted_lasting = out.evicted.iter().any(|m| {
        store
            .resolve(&m.id)
            .ok()
            .and_then(|d| d.durability)
            .is_some_and(|d| d == "persistent" || d == "permanent")
    });
    let last = crate::consolidate::last_mark(store, &format!("consolidate:{session}"));
    if crate::consolidate::is_due(store, scope, now, turn, last, evicted_lasting)? {
        let options = crate::consolidate::Options {
            scope: scope.clone(),
            session: None,
            dry_run: false,
        };
        let (actions, warnings) = crate::consolidate::consolidate(
            store,
            lock,
            &options,
            now,
            model,
            &crate::store::NoProgress,
        )?;
        crate::consolidate::set_mark(store, &format!("consolidate:{session}"), turn)?;
        out.maintenance.extend(actions);
        out.warnings.extend(warnings);
    }
    let facts = store.index().count(&crate::index::Filter {
        kinds: vec![Kind::Semantic],
        user: scope.user.clone(),
        agent: scope.agent.clone(),
        validity: crate::index::Validity::CurrentAt(now),
        ..crate::index::Filter::default()
    })?;
    // Prune once the scope holds `auto_facts` facts, then again each time it has
    // gained half as many more: not on every capture of a large vault.
    let threshold = store.vault().config().prune.auto_facts;
    let key = format!(
        "prune:{}:{}",
        scope.user.as_deref().unwrap_or(""),
        scope.agent.as_deref().unwrap_or("")
    );
    let last = crate::consolidate::last_mark(store, &key) as usize;
    if facts >= threshold && (last == 0 || facts >= last + (threshold / 2).max(1)) {
        let options = crate::prune::Options {
            scope: scope.clone(),
            dry_run: false,
            hard: false,
        };
        let (actions, warnings) = crate::prune::prune(store, lock, &options, now, model)?;
        crate::consolidate::set_mark(store, &key, facts as u64)?;
        out.maintenance.extend(actions);
        out.warnings.extend(warnings);
    }
    Ok(())
}

/// The session's latest turn (0 for a new session).
fn current_turn(store: &Store, defaults: &CaptureDefaults, session: &str) -> Result<u64> {
    let filter = crate::index::Filter {
        kinds: vec![Kind::Working],
        session: Some(session.to_string()),
        user: defaults.user.clone(),
        agent: defaults.agent.clone(),
        ..crate::index::Filter::default()
    };
    Ok(store
        .index()
        .fetch_newest(&filter, 64)?
        .iter()
        .filter_map(|d| d.turn)
        .max()
        .unwrap_or(0))
}

/// After a capture: evicts what no longer fits the session's working memory.
fn tick(
    store: &mut Store,
    defaults: &CaptureDefaults,
    session: &str,
    turn: u64,
    now: Timestamp,
    config: &crate::config::WorkingConfig,
) -> Result<Vec<Mutation>> {
    let filter = crate::index::Filter {
        kinds: vec![Kind::Working],
        session: Some(session.to_string()),
        user: defaults.user.clone(),
        agent: defaults.agent.clone(),
        validity: crate::index::Validity::CurrentAt(now),
        ..crate::index::Filter::default()
    };
    let entries = store.index().fetch_newest(&filter, 10_000)?;
    let mut changes = Vec::new();
    let mut evicted = Vec::new();
    for i in crate::working::evictions(config, &entries, turn) {
        let doc = &entries[i];
        rewrite(store, doc, false, &mut changes, |rec| {
            rec.end(crate::record::Status::Archived, now)
        })?;
        evicted.push(Mutation {
            op: "EVICT",
            id: doc.id.clone(),
            kind: doc.kind.clone(),
            content: doc.content.clone(),
            path: doc.path.clone(),
            previous: None,
            reason: Some(format!(
                "working memory over capacity {}: lowest salience {:.3}",
                config.capacity,
                crate::working::salience(config, doc, turn)
            )),
        });
    }
    store.apply(changes, false)?;
    Ok(evicted)
}

pub(crate) fn write_new(
    store: &Store,
    record: Record,
    dry_run: bool,
    changes: &mut Vec<Change>,
    reason: Option<String>,
) -> Result<Mutation> {
    let planned = naming::record_path(
        record.kind,
        &record.id,
        record.content(),
        record.subject.as_deref(),
        record.session.as_deref(),
        record.created,
    );
    let path = if dry_run {
        planned
    } else {
        let (rel, stamp) = store.vault().write_new(&planned, &record.render())?;
        changes.push(Change::Upsert {
            rel: rel.clone(),
            record: Box::new(record.clone()),
            stamp,
        });
        rel
    };
    Ok(Mutation {
        op: "ADD",
        id: record.id.clone(),
        kind: record.kind.to_string(),
        content: record.content().to_string(),
        path,
        previous: None,
        reason,
    })
}

/// Rewrites an existing record's file (only if it still holds what was read).
pub(crate) fn rewrite(
    store: &Store,
    doc: &crate::index::IndexedDoc,
    dry_run: bool,
    changes: &mut Vec<Change>,
    change: impl FnOnce(&mut Record),
) -> Result<()> {
    if dry_run {
        return Ok(());
    }
    let loaded = store.vault().read(&doc.path)?;
    let mut record = loaded.record;
    change(&mut record);
    let stamp = store
        .vault()
        .rewrite(&loaded.rel, &record.render(), &loaded.stamp)?;
    changes.push(Change::Upsert {
        rel: loaded.rel,
        record: Box::new(record),
        stamp,
    });
    Ok(())
}

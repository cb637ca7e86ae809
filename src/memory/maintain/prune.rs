//! Prune: noise goes, nothing is lost.
//!
//! A prune works in one scope (user, agent) at a time: the one given, else each
//! scope of the vault in turn; it never merges or links records of different
//! scopes.
//!
//! - TTL: active records past `expires` are archived.
//! - Duplicates: near-duplicate facts of one subject merge into the strongest;
//!   complementary details are combined ("Born in May" + "Born in Maryland" →
//!   "Born in May in Maryland"); the others are superseded by it.
//! - Decay: episodes older than 90 days with salience under 0.4 are archived,
//!   and beyond 200 episodes in a scope the weakest are archived first.
//! - Working memory of sessions idle past `working.retention_hours` is evicted.
//! - Conservative: facts reinforced 5 times or more, or with confidence or
//!   importance 0.8 or more, are never merged away.
//!
//! Archiving keeps the file (with its `status` and a `reason` that says why);
//! `hard` deletes instead. With an LLM, one call over the fact set answers
//! merges with reasons. Each action names the files it wrote.

use std::collections::HashSet;

use crate::clock::{Timestamp, format_time};
use crate::error::Result;
use crate::memory::maintain::plan::{self, Action};
use crate::memory::reconcile;
use crate::memory::scope::{Covers, Scope};
use crate::models::llm;
use crate::models::rules;
use crate::storage::index::{IndexedDoc, Validity};
use crate::storage::record::Kind;
use crate::storage::store::{Change, Store};
use crate::storage::vault::VaultLock;
use crate::storage::writer;

/// How a prune runs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The scopes to prune, each on its own.
    pub scope: Covers,
    pub dry_run: bool,
    pub hard: bool,
}

/// Whether a fact is protected from merging and removal.
pub fn is_protected(doc: &IndexedDoc) -> bool {
    doc.reinforced >= 5
        || doc.confidence.unwrap_or(0.0) >= 0.8
        || doc.importance.unwrap_or(0.0) >= 0.8
}

/// What a fact is a statement of, for merging: its subject, and for a keyed
/// fact its key and session. Values of two keys, or of one key in two
/// sessions, are never duplicates, however alike their text.
fn slot(doc: &IndexedDoc) -> (Option<&str>, Option<&str>, Option<&str>) {
    let key = doc.key.as_deref();
    (doc.subject.as_deref(), key, key.and(doc.session.as_deref()))
}

/// How strong a fact is: the one that survives a merge.
fn strength(doc: &IndexedDoc) -> f64 {
    doc.reinforced as f64 * 0.1
        + doc.confidence.unwrap_or(0.5)
        + doc.importance.unwrap_or(0.5)
        + doc.content.len() as f64 * 0.001
}

/// Combines two statements of one thing: the longer wins when it holds every
/// word of the other; two statements with a common start keep both endings.
pub fn merge_text(a: &str, b: &str) -> String {
    let (wa, wb): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    let na: HashSet<String> = wa.iter().map(|w| rules::norm(w)).collect();
    let nb: HashSet<String> = wb.iter().map(|w| rules::norm(w)).collect();
    if nb.is_subset(&na) {
        return a.to_string();
    }
    if na.is_subset(&nb) {
        return b.to_string();
    }
    let common = wa
        .iter()
        .zip(&wb)
        .take_while(|(x, y)| rules::norm(x) == rules::norm(y))
        .count();
    if common >= 2 {
        // "Born in May" + "Born in Maryland": keep the joining word ("in").
        let joiner = wb[common - 1];
        let tail_b = wb[common..].join(" ");
        return format!("{} {joiner} {tail_b}", a.trim_end_matches('.'));
    }
    a.to_string()
}

/// Runs prune in each scope it covers (the caller holds the lock and has
/// synced); the plan and warnings.
pub fn prune(
    store: &mut Store,
    lock: &VaultLock,
    options: &Options,
    now: Timestamp,
    model: Option<&llm::ChatModel>,
) -> Result<(Vec<Action>, Vec<String>)> {
    plan::per_scope(store, &options.scope, |store, scope| {
        prune_scope(store, lock, scope, options, now, model)
    })
}

/// Prune of one scope.
fn prune_scope(
    store: &mut Store,
    _lock: &VaultLock,
    in_scope: &Scope,
    options: &Options,
    now: Timestamp,
    model: Option<&llm::ChatModel>,
) -> Result<(Vec<Action>, Vec<String>)> {
    let config = store.vault().config().clone();
    let mut actions = Vec::new();
    let mut warnings = Vec::new();
    let mut changes: Vec<Change> = Vec::new();
    let scope = |kinds: Vec<Kind>, validity| in_scope.filter(kinds, validity);
    let mut done: HashSet<String> = HashSet::new();
    let archive = |store: &Store,
                   doc: &IndexedDoc,
                   changes: &mut Vec<Change>,
                   by: Option<String>,
                   reason: &str|
     -> Result<()> {
        if options.hard && !options.dry_run {
            writer::delete(store, doc, changes)?;
            return Ok(());
        }
        let reason = format!("prune: {reason}");
        writer::rewrite(store, doc, options.dry_run, changes, |rec| match &by {
            Some(by) => rec.supersede(by.clone(), reason.clone(), now),
            None => rec.archive(reason.clone(), now),
        })?;
        Ok(())
    };
    // TTL.
    let active = store
        .index()
        .fetch_newest(&scope(Vec::new(), Validity::Any), 100_000)?;
    for doc in active
        .iter()
        .filter(|d| d.status == "active" && d.expires.is_some_and(|e| e <= now))
    {
        let reason = format!(
            "expired at {} (ttl)",
            doc.expires.as_ref().map(format_time).unwrap_or_default()
        );
        archive(store, doc, &mut changes, None, &reason)?;
        done.insert(doc.id.clone());
        actions.push(Action::of_doc("archive", doc, reason));
    }
    // Duplicates among current facts, per subject.
    let facts: Vec<IndexedDoc> = store.index().fetch_newest(
        &scope(vec![Kind::Semantic], Validity::CurrentAt(now)),
        100_000,
    )?;
    let merges = match model {
        Some(m) => match merges_by_model(m, &facts) {
            Ok(plan) => plan,
            Err(e) => {
                warnings.push(format!("{e}; the rule engine pruned instead"));
                merges_by_rules(store, &facts, config.prune.duplicate_similarity)
            }
        },
        None => merges_by_rules(store, &facts, config.prune.duplicate_similarity),
    };
    let mut generator = ulid::Generator::new();
    for (group, reason) in merges {
        let mut members: Vec<&IndexedDoc> = group
            .iter()
            .map(|i| &facts[*i])
            .filter(|d| !done.contains(&d.id))
            .collect();
        if members.len() < 2 {
            continue;
        }
        members.sort_by(|a, b| strength(b).total_cmp(&strength(a)));
        let survivor = members[0];
        let losers: Vec<&IndexedDoc> = members[1..]
            .iter()
            .copied()
            .filter(|d| !is_protected(d))
            .collect();
        if losers.is_empty() {
            continue;
        }
        // The details combine in the order they were learned.
        let mut in_order: Vec<&IndexedDoc> = std::iter::once(survivor)
            .chain(losers.iter().copied())
            .collect();
        in_order.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        // The words of the best-supported statement, never a concatenation
        // of several: a merge of statements that differ would say what
        // nobody said. A survivor that only restates keeps its words.
        let merged = survivor.content.clone();
        let _ = &in_order;
        let mut survivor_link = crate::storage::naming::wikilink(&survivor.path);
        let mut paths = Vec::new();
        let survivor_id = if merged != survivor.content && !is_protected(survivor) {
            // The combined statement is a new version of the survivor.
            let loaded = if options.dry_run {
                None
            } else {
                Some(store.vault().read(&survivor.path)?)
            };
            let new_id = crate::storage::naming::new_id(&mut generator, now);
            if let Some(loaded) = loaded {
                let mut record = loaded.record.clone();
                record.id = new_id.clone();
                record.body = format!("{merged}\n");
                record.supersedes = Some(crate::storage::naming::wikilink(&survivor.path));
                record.created = now;
                record.valid_from = Some(now);
                record.updated = None;
                record.key_order.clear();
                for d in &losers {
                    let l = format!("[[{}]]", d.path.trim_end_matches(".md"));
                    if !record.sources.contains(&l) {
                        record.sources.push(l);
                    }
                }
                let written = writer::write_new(store, record, false, &mut changes, None)?;
                survivor_link = crate::storage::naming::wikilink(&written.path);
                paths.push(written.path);
            }
            let others: Vec<String> = losers.iter().map(|d| format!("'{}'", d.content)).collect();
            archive(
                store,
                survivor,
                &mut changes,
                Some(survivor_link.clone()),
                &format!("combined with {} into '{merged}'", others.join(", ")),
            )?;
            paths.push(survivor.path.clone());
            new_id
        } else {
            survivor.id.clone()
        };
        for d in &losers {
            archive(
                store,
                d,
                &mut changes,
                Some(survivor_link.clone()),
                &format!("merged into '{merged}', which it repeats ({reason})"),
            )?;
            done.insert(d.id.clone());
            paths.push(d.path.clone());
        }
        let mut ids = vec![survivor_id.clone()];
        ids.extend(losers.iter().map(|d| d.id.clone()));
        actions.push(Action {
            action: "merge",
            ids,
            content: Some(merged),
            reason,
            paths,
        });
    }
    // Decay of old, weak episodes, and the per-scope cap.
    let mut episodes: Vec<IndexedDoc> = store
        .index()
        .fetch_newest(
            &scope(vec![Kind::Episodic], Validity::CurrentAt(now)),
            100_000,
        )?
        .into_iter()
        .filter(|d| !done.contains(&d.id))
        .collect();
    let salience = |d: &IndexedDoc| d.importance.unwrap_or(0.5);
    let mut kept = Vec::new();
    for doc in episodes.drain(..) {
        let age_days = (now - doc.created).num_seconds() as f64 / 86_400.0;
        if age_days > config.prune.episode_max_age_days
            && salience(&doc) < config.prune.episode_min_salience
        {
            let reason = format!(
                "episode {age_days:.0} days old with salience {:.2} < {:.2}",
                salience(&doc),
                config.prune.episode_min_salience
            );
            archive(store, &doc, &mut changes, None, &reason)?;
            actions.push(Action::of_doc("archive", &doc, reason));
        } else {
            kept.push(doc);
        }
    }
    if kept.len() > config.episodic.cap {
        kept.sort_by(|a, b| {
            salience(a)
                .total_cmp(&salience(b))
                .then(a.created.cmp(&b.created))
        });
        let over = kept.len() - config.episodic.cap;
        for doc in kept.iter().take(over) {
            let reason = format!(
                "over the cap of {} episodes in its scope: among the {over} weakest (salience {:.2})",
                config.episodic.cap,
                salience(doc)
            );
            archive(store, doc, &mut changes, None, &reason)?;
            actions.push(Action::of_doc("archive", doc, reason));
        }
    }
    // Idle sessions' working memory.
    let working = store.index().fetch_newest(
        &scope(vec![Kind::Working], Validity::CurrentAt(now)),
        100_000,
    )?;
    let mut last_seen: std::collections::HashMap<String, Timestamp> =
        std::collections::HashMap::new();
    for d in &working {
        let t = last_seen
            .entry(d.session.clone().unwrap_or_default())
            .or_insert(d.created);
        *t = (*t).max(d.created);
    }
    let retention = chrono::Duration::seconds((config.working.retention_hours * 3600.0) as i64);
    for d in &working {
        let session = d.session.clone().unwrap_or_default();
        if let Some(last) = last_seen.get(&session).filter(|t| now - **t > retention) {
            let reason = format!(
                "session {session} idle since {}, more than {} hours",
                format_time(last),
                config.working.retention_hours
            );
            archive(store, d, &mut changes, None, &reason)?;
            actions.push(Action::of_doc("evict", d, reason));
        }
    }
    if !options.dry_run {
        let (_, w) = store.apply(changes, false)?;
        warnings.extend(w);
    }
    Ok((actions, warnings))
}

/// Whether a statement opens with a name or "The user": its first two words
/// are its subject, not what it says.
fn opens_with_a_name(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    first == "The"
        || first.starts_with("User")
        || (first.chars().next().is_some_and(char::is_uppercase)
            && crate::models::lexicon::verb(first).is_none())
}

/// Groups of near-duplicate facts (indexes into `facts`), with the reason.
fn merges_by_rules(
    store: &Store,
    facts: &[IndexedDoc],
    threshold: f64,
) -> Vec<(Vec<usize>, String)> {
    // Each fact is embedded once; pairs compare vectors.
    let texts: Vec<String> = facts.iter().map(|f| f.content.clone()).collect();
    let vectors = store.embedder().and_then(|e| e.embed(&texts).ok());
    let similarity = |i: usize, j: usize| match &vectors {
        Some(v) => f64::from(v[i].iter().zip(&v[j]).map(|(x, y)| x * y).sum::<f32>()),
        None => reconcile::similarity(store, &texts[i], &texts[j]),
    };
    let mut used = vec![false; facts.len()];
    let mut groups = Vec::new();
    for i in 0..facts.len() {
        if used[i] {
            continue;
        }
        let mut group = vec![i];
        for j in i + 1..facts.len() {
            if used[j] || slot(&facts[i]) != slot(&facts[j]) {
                continue;
            }
            let a = &facts[i].content;
            let b = &facts[j].content;
            let same_start = {
                let (wa, wb): (Vec<String>, Vec<String>) = (
                    a.split_whitespace().take(2).map(rules::norm).collect(),
                    b.split_whitespace().take(2).map(rules::norm).collect(),
                );
                wa.len() == 2 && wa == wb
            };
            // Two facts of one attribute with different values are a change of
            // value, not a duplicate (capture supersedes those).
            let attr = |c: &str| rules::classify(c).and_then(|(_, a)| a);
            let conflicting = matches!((attr(a), attr(b)), (Some(x), Some(y)) if x.key == y.key && x.value != y.value && !x.key.starts_with("my:"));
            let sim = similarity(i, j);
            // Notes that open with the same subject ("John is …", "The user
            // likes …") say different things: only the words after the
            // subject count as the same start.
            let same_start = same_start && !opens_with_a_name(a);
            if !conflicting && (sim >= threshold || (same_start && sim >= threshold - 0.3)) {
                group.push(j);
                used[j] = true;
            }
        }
        if group.len() > 1 {
            used[i] = true;
            let subject = facts[i].subject.clone().unwrap_or_else(|| "user".into());
            groups.push((
                group,
                format!("near-duplicate facts about {subject}: merged into the strongest"),
            ));
        }
    }
    groups
}

const PRUNE_PROMPT: &str = "You prune an AI agent's memory of facts. Each fact has an id F<n> and its \
subject. Answer JSON {\"merges\": [{\"facts\": [<n>, <n>, ...], \"reason\": <short>}]} listing groups \
of facts about one subject that say the same thing (or complementary parts of one thing). Be \
conservative: when unsure, leave facts alone. Use only the ids given.";

fn merges_by_model(
    model: &llm::ChatModel,
    facts: &[IndexedDoc],
) -> std::result::Result<Vec<(Vec<usize>, String)>, llm::LlmError> {
    let mut prompt = String::new();
    for (i, f) in facts.iter().enumerate() {
        prompt.push_str(&format!(
            "F{}: [{}] {}\n",
            i + 1,
            f.subject.as_deref().unwrap_or("user"),
            f.content
        ));
    }
    let answer = model.complete_json(PRUNE_PROMPT, &prompt)?;
    let merges = answer
        .get("merges")
        .and_then(|m| m.as_array())
        .ok_or_else(|| model.garbage("no `merges` array"))?;
    let mut out = Vec::new();
    for m in merges {
        let ids: Vec<usize> = m
            .get("facts")
            .and_then(|f| f.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| {
                        v.as_u64().or_else(|| {
                            v.as_str()
                                .and_then(|s| s.trim_start_matches('F').parse().ok())
                        })
                    })
                    .map(|n| n as usize)
                    .filter(|n| *n >= 1 && *n <= facts.len())
                    .map(|n| n - 1)
                    .collect()
            })
            .unwrap_or_default();
        let slots: HashSet<_> = ids.iter().map(|i| slot(&facts[*i])).collect();
        if ids.len() >= 2 && slots.len() == 1 {
            let reason = format!(
                "model {}: {}",
                model.name(),
                m.get("reason").and_then(|r| r.as_str()).unwrap_or("")
            );
            out.push((ids, reason));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complementary_details_are_combined() {
        assert_eq!(
            merge_text("Born in May", "Born in Maryland"),
            "Born in May in Maryland"
        );
        assert_eq!(
            merge_text("Likes green tea", "Likes tea"),
            "Likes green tea"
        );
        assert_eq!(
            merge_text("Likes tea", "Likes green tea"),
            "Likes green tea"
        );
        assert_eq!(merge_text("Plays chess", "Enjoys opera"), "Plays chess");
    }
}

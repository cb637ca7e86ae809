//! Capture: what was said becomes records, in four stages.
//!
//! - **observe** ([`observe`]): the facts in the text, by the chat model or the
//!   built-in rule engine;
//! - **reflect** ([`crate::memory::reconcile`]): what each fact does to what is
//!   known: ADD, UPDATE, DELETE or NOOP;
//! - **route** ([`route`]): which tiers it goes to (working, episodic,
//!   semantic), each written through [`crate::storage::writer`];
//! - **tick** ([`tick`]): the session's working memory evicts what no longer
//!   fits; then consolidate and prune run when due ([`auto_maintain`]).
//!
//! The raw path ([`raw`], `capture --raw`) skips all four and stores the input
//! as given. Input is validated completely before anything is written, so bad
//! input loses nothing and writes nothing.

pub mod auto_maintain;
pub mod input;
pub mod observe;
pub mod raw;
pub mod route;
pub mod tick;

pub use input::{CaptureDefaults, CaptureItem, build_record, parse_jsonl, split_tags};
pub use raw::capture_raw;

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::maintain::plan::Action;
use crate::memory::reconcile::{self, Op};
use crate::memory::scope::Scope;
use crate::models::llm::ChatModel;
use crate::storage::naming;
use crate::storage::record::Kind;
use crate::storage::store::Store;
use crate::storage::vault::VaultLock;
use crate::storage::writer::{self, Mutation};

/// What capture with extraction did.
#[derive(Debug, Clone, Default)]
pub struct CaptureOutcome {
    pub mutations: Vec<Mutation>,
    /// Working-memory entries evicted by this capture's tick.
    pub evicted: Vec<Mutation>,
    /// What consolidate and prune did when their thresholds were met.
    pub maintenance: Vec<Action>,
    pub warnings: Vec<String>,
}

/// Capture with extraction: observe → reflect → route → tick. The caller holds
/// the lock and has synced the store. In a dry run nothing is written and the
/// decisions are made against the vault as it is.
#[allow(clippy::too_many_arguments)]
pub fn capture_facts(
    store: &mut Store,
    lock: &VaultLock,
    texts: &[String],
    defaults: &CaptureDefaults,
    now: Timestamp,
    dry_run: bool,
    model: Option<&ChatModel>,
) -> Result<CaptureOutcome> {
    let mut out = CaptureOutcome::default();
    let config = store.vault().config().clone();
    let session = defaults.session.clone().unwrap_or_else(|| "default".into());
    let scope = Scope {
        user: defaults.user.clone(),
        agent: defaults.agent.clone(),
    };
    let turn = tick::current_turn(store, &scope, &session)? + 1;
    let mut generator = ulid::Generator::new();
    let mut facts = Vec::new();
    for text in texts {
        facts.extend(observe::observe(text, model, &mut out.warnings));
    }
    for mut fact in facts {
        if let Some(subject) = &defaults.subject {
            fact.subject = subject.clone();
        }
        if let Some(i) = defaults.importance {
            fact.importance = i;
        }
        let mut changes = Vec::new();
        let shown = route::shown_text(&fact);
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
        out.mutations.push(writer::write_new(
            store,
            working,
            dry_run,
            &mut changes,
            Some(working_reason),
        )?);
        // Semantic memory: stable facts, reconciled with what is known.
        let decision = if route::to_semantic(&fact) {
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
        if route::to_episodic(&fact, config.episodic.significance, restated) {
            let episode = base(Kind::Episodic, &shown, &mut generator);
            let reason = format!(
                "importance {:.2} ≥ significance {:.2}: an episode",
                fact.importance, config.episodic.significance
            );
            let m = writer::write_new(store, episode, dry_run, &mut changes, Some(reason))?;
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
                    out.mutations.push(writer::write_new(
                        store,
                        r,
                        dry_run,
                        &mut changes,
                        Some(reason),
                    )?);
                }
                (Op::Update, Some(old)) => {
                    let mut r = base(Kind::Semantic, &fact.content, &mut generator);
                    r.sources.extend(episode_link.clone());
                    r.supersedes = Some(naming::wikilink(&old.path));
                    r.valid_from = Some(now);
                    let mut m =
                        writer::write_new(store, r, dry_run, &mut changes, Some(reason.clone()))?;
                    let new_link = naming::wikilink(&m.path);
                    m.op = "UPDATE";
                    m.previous = Some(
                        serde_json::json!({ "id": old.id, "content": old.content, "path": old.path }),
                    );
                    writer::rewrite(store, &old, dry_run, &mut changes, |rec| {
                        rec.supersede(new_link.clone(), format!("capture: {reason}"), now)
                    })?;
                    out.mutations.push(m);
                }
                (Op::Delete, Some(old)) => {
                    writer::rewrite(store, &old, dry_run, &mut changes, |rec| {
                        rec.invalidate(
                            episode_link
                                .clone()
                                .unwrap_or_else(|| "engram capture".into()),
                            format!("capture: {reason}"),
                            now,
                        )
                    })?;
                    out.mutations.push(Mutation::of_doc("DELETE", &old, reason));
                }
                (Op::Noop, Some(old)) => {
                    writer::rewrite(store, &old, dry_run, &mut changes, |rec| rec.reinforce(now))?;
                    out.mutations.push(Mutation::of_doc("NOOP", &old, reason));
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
        out.evicted = tick::tick(store, &scope, &session, turn, now, &config.working)?;
        let (actions, warnings) = auto_maintain::after_capture(
            store,
            lock,
            &out.evicted,
            &scope,
            &session,
            turn,
            now,
            model,
        )?;
        out.maintenance.extend(actions);
        out.warnings.extend(warnings);
    }
    Ok(out)
}

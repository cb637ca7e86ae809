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

pub use input::{
    CaptureDefaults, CaptureItem, MAX_BULK_INPUT_BYTES, MAX_EXTRACT_BYTES, MAX_RECORD_BYTES,
    build_record, parse_chat, parse_jsonl, split_tags, without_bom, without_controls,
};
pub use raw::capture_raw;

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::maintain::plan::Action;
use crate::memory::reconcile::{self, Op};
use crate::memory::scope::Scope;
use crate::memory::truth::{self, Ending, Statement};
use crate::models::llm::ChatModel;
use crate::models::rules::Skipped;
use crate::storage::index::IndexedDoc;
use crate::storage::naming;
use crate::storage::record::Kind;
use crate::storage::store::Store;
use crate::storage::vault::VaultLock;
use crate::storage::writer::{self, Mutation};

/// Why a message kept as said is archived from birth.
const SAID: &str = "what was said, kept as said: the facts drawn from it carry what is current";

/// What capture with extraction did.
#[derive(Debug, Clone, Default)]
pub struct CaptureOutcome {
    /// One mutation per file written for a statement (ADD, UPDATE, DELETE, NOOP).
    pub mutations: Vec<Mutation>,
    /// Copies and rival values ended because a statement changed or was
    /// retracted (SUPERSEDE, INVALIDATE), one per file.
    pub ended: Vec<Mutation>,
    /// One line's worth per statement: what happened to it, in which tiers.
    pub statements: Vec<StatementOutcome>,
    /// Working-memory entries evicted by this capture's tick.
    pub evicted: Vec<Mutation>,
    /// What consolidate and prune did when their thresholds were met.
    pub maintenance: Vec<Action>,
    /// The parts of what was said that gave no fact, and why.
    pub skipped: Vec<Skipped>,
    /// What was said, kept as said: one record per message that held
    /// anything to remember (archived from birth; the facts link to it).
    pub said: Vec<Mutation>,
    pub warnings: Vec<String>,
}

/// What one observed statement did, across the tiers it went to.
#[derive(Debug, Clone, PartialEq)]
pub struct StatementOutcome {
    /// ADD, UPDATE, DELETE or NOOP.
    pub op: &'static str,
    pub content: String,
    /// Where it was written: `semantic`, `episode`, `working`.
    pub tiers: Vec<&'static str>,
    /// For an UPDATE, the statement it replaced; for a DELETE, the one it retracted.
    pub previous: Option<String>,
    /// How many records (copies and older values) ended with it.
    pub ended: usize,
}

/// Capture with extraction: observe → reflect → route → tick. The caller holds
/// the lock and has synced the store. In a dry run nothing is written and the
/// decisions are made against the vault as it is. With `notes`, each line of
/// a text is an agent's note, kept as written.
#[allow(clippy::too_many_arguments)]
pub fn capture_facts(
    store: &mut Store,
    lock: &VaultLock,
    texts: &[String],
    defaults: &CaptureDefaults,
    now: Timestamp,
    dry_run: bool,
    model: Option<&ChatModel>,
    notes: bool,
) -> Result<CaptureOutcome> {
    let mut out = CaptureOutcome::default();
    let config = store.vault().config().clone();
    let user_names = config.names_of(defaults.user.as_deref());
    let reading = observe::Reading {
        notes,
        user_names: &user_names,
    };
    let session = defaults.session.clone().unwrap_or_else(|| "default".into());
    let scope = Scope {
        user: defaults.user.clone(),
        agent: defaults.agent.clone(),
    };
    let turn = tick::current_turn(store, &scope, &session)? + 1;
    let mut generator = ulid::Generator::new();
    let mut facts = Vec::new();
    // What was said is kept as said, in the session's working memory, when
    // it held anything to remember; every record made of it links to it. It
    // is archived from birth: a record of the words, not current knowledge,
    // so it never competes with the facts drawn from it (which carry what is
    // current, and end when it changes) yet stays on disk for
    // `recall --include-superseded`, history and a person reading the vault.
    let mut said: Vec<String> = Vec::new();
    let mut said_changes = Vec::new();
    for text in texts {
        let read = observe::observe(text, reading, model, now, &mut out.warnings);
        out.skipped.extend(read.skipped);
        if read.facts.is_empty() {
            continue;
        }
        facts.extend(read.facts);
        let item = CaptureItem {
            content: text.trim().to_string(),
            kind: Some(Kind::Working),
            ..CaptureItem::default()
        };
        let mut r = build_record(&item, defaults, naming::new_id(&mut generator, now), now);
        r.session = Some(session.clone());
        r.turn = Some(turn);
        r.role = Some("user".into());
        r.durability = Some("session".into());
        r.archive(SAID.into(), now);
        let m = writer::write_new(store, r, dry_run, &mut said_changes, Some(SAID.into()))?;
        said.push(naming::wikilink(&m.path));
        out.said.push(m);
    }
    if !said_changes.is_empty() {
        let (_, warnings) = store.apply(said_changes, false)?;
        out.warnings.extend(warnings);
    }
    for mut fact in facts {
        if let Some(subject) = &defaults.subject {
            fact.subject = subject.clone();
        }
        if let Some(i) = defaults.importance {
            fact.importance = i;
        }
        let statement = Statement::new(
            &fact.content,
            &fact.subject,
            fact.attribute.as_ref().map(|a| a.key.as_str()),
        );
        let mut changes = Vec::new();
        let mut tiers = Vec::new();
        let mut written: Vec<String> = Vec::new();
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
            r.attribute = fact.attribute.as_ref().map(|a| a.key.clone());
            r.sources.extend(said.iter().cloned());
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
        let m = writer::write_new(store, working, dry_run, &mut changes, Some(working_reason))?;
        let mut newest_link = naming::wikilink(&m.path);
        written.push(m.id.clone());
        tiers.push("working");
        out.mutations.push(m);
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
            let mut episode = base(Kind::Episodic, &shown, &mut generator);
            // An episode is dated by when it happened, when the words say so.
            if let Some(day) = fact.when {
                let at = day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
                if at <= now {
                    episode.valid_from = Some(at);
                }
            }
            let reason = format!(
                "importance {:.2} ≥ significance {:.2}: an episode",
                fact.importance, config.episodic.significance
            );
            let m = writer::write_new(store, episode, dry_run, &mut changes, Some(reason))?;
            episode_link = Some(naming::wikilink(&m.path));
            newest_link = naming::wikilink(&m.path);
            written.push(m.id.clone());
            tiers.insert(0, "episode");
            out.mutations.push(m);
        }
        let mut op = if fact.retraction { "NOOP" } else { "ADD" };
        let mut previous = None;
        // What ends with this statement: (records, how, why).
        let mut to_end: Vec<(Vec<IndexedDoc>, Ending, String)> = Vec::new();
        if let Some(decision) = decision {
            let reason = match (&decision.target, decision.similarity) {
                (Some(t), Some(s)) => format!(
                    "{} (nearest {} '{}', similarity {s:.2})",
                    decision.reason, t.id, t.content
                ),
                _ => decision.reason.clone(),
            };
            op = decision.op.as_str();
            match (decision.op, decision.target) {
                (Op::Add, _) | (Op::Update, None) => {
                    op = "ADD";
                    let mut r = base(Kind::Semantic, &fact.content, &mut generator);
                    r.sources.extend(episode_link.clone());
                    r.valid_from = Some(now);
                    let m = writer::write_new(store, r, dry_run, &mut changes, Some(reason))?;
                    written.push(m.id.clone());
                    let by = naming::wikilink(&m.path);
                    to_end.push((
                        truth::rivals(store, &scope, &statement, now)?,
                        Ending::Superseded { by },
                        format!("capture: '{}' is the current value", fact.content),
                    ));
                    tiers.insert(0, "semantic");
                    out.mutations.push(m);
                }
                (Op::Update, Some(old)) => {
                    let mut r = base(Kind::Semantic, &fact.content, &mut generator);
                    r.sources.extend(episode_link.clone());
                    r.supersedes = Some(naming::wikilink(&old.path));
                    r.valid_from = Some(now);
                    let mut m =
                        writer::write_new(store, r, dry_run, &mut changes, Some(reason.clone()))?;
                    written.push(m.id.clone());
                    let new_link = naming::wikilink(&m.path);
                    m.op = "UPDATE";
                    m.previous = Some(
                        serde_json::json!({ "id": old.id, "content": old.content, "path": old.path }),
                    );
                    previous = Some(old.content.clone());
                    let why = format!("capture: superseded by '{}'", fact.content);
                    let mut stale = vec![old.clone()];
                    stale.extend(truth::copies(store, &scope, &Statement::of_doc(&old), now)?);
                    stale.extend(truth::rivals(store, &scope, &statement, now)?);
                    to_end.push((stale, Ending::Superseded { by: new_link }, why));
                    tiers.insert(0, "semantic");
                    out.mutations.push(m);
                }
                (Op::Delete, Some(old)) => {
                    previous = Some(old.content.clone());
                    let ending = Ending::Invalidated {
                        by: newest_link.clone(),
                    };
                    let why = format!("capture: retracted by '{shown}'");
                    // The fact is this statement's DELETE; its copies are `ended`.
                    truth::retire(
                        store,
                        std::slice::from_ref(&old),
                        &ending,
                        &why,
                        now,
                        dry_run,
                        &mut changes,
                    )?;
                    written.push(old.id.clone());
                    let gone = truth::copies(store, &scope, &Statement::of_doc(&old), now)?;
                    to_end.push((gone, ending, why));
                    out.mutations.push(Mutation::of_doc("DELETE", &old, reason));
                }
                (Op::Noop, Some(old)) => {
                    writer::rewrite(store, &old, dry_run, &mut changes, |rec| rec.reinforce(now))?;
                    tiers.insert(0, "semantic");
                    out.mutations.push(Mutation::of_doc("NOOP", &old, reason));
                }
                (Op::Delete | Op::Noop, None) => {}
            }
        }
        // A retraction ends what it retracts in every tier, whether or not
        // semantic memory held it.
        if fact.retraction {
            let gone = truth::copies(store, &scope, &statement, now)?;
            if !gone.is_empty() {
                op = "DELETE";
                previous.get_or_insert_with(|| fact.content.clone());
                to_end.push((
                    gone,
                    Ending::Invalidated {
                        by: newest_link.clone(),
                    },
                    format!("capture: retracted ('{shown}')"),
                ));
            }
        }
        // A death, a break-up, "forget the part about …": what mentions the
        // one it ends ends with it.
        if let Some(words) = &fact.ends {
            let gone = truth::mentioning(store, &scope, words, now)?;
            if !gone.is_empty() {
                to_end.push((
                    gone,
                    Ending::Invalidated {
                        by: newest_link.clone(),
                    },
                    format!("capture: '{shown}'"),
                ));
            }
        }
        let mut ended = 0;
        for (docs, ending, reason) in &mut to_end {
            docs.retain(|d| !written.contains(&d.id));
            let mut done = truth::retire(store, docs, ending, reason, now, dry_run, &mut changes)?;
            written.extend(done.iter().map(|m| m.id.clone()));
            ended += done.len();
            out.ended.append(&mut done);
        }
        out.statements.push(StatementOutcome {
            op,
            content: shown.clone(),
            tiers,
            previous,
            ended,
        });
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

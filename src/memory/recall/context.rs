//! The context block (`recall --format context`): what an agent is told it
//! remembers, as a prompt block in priority order, within a token budget.
//!
//! With a query the sections are the facts (semantic records, grouped by
//! subject when there are several), current working memory, procedures (as
//! tips with their runs in words, or a warning for one that mostly failed)
//! and recent episodes, each found by the query under the same filters (a
//! session given keeps every section to that session). With no query it is
//! a session start: facts, the latest session summary, working memory and
//! tips; there a session names the working memory and the summary, and the
//! facts and tips come from the whole scope (user and agent), since a new
//! session has none of its own yet. A statement kept in several tiers is
//! shown once, in the first section that holds it.
//!
//! A budget of N tokens (4 characters each) is filled in that order, and the
//! first entry that does not fit ends the block: nothing of a lower section
//! is shown while something of a higher one was left out. The last line says
//! what was left out.

use std::collections::HashSet;

use crate::clock::{Timestamp, format_time};
use crate::error::Result;
use crate::memory::outcome;
use crate::memory::recall::{self, Hit, RecallOutcome, RecallRequest};
use crate::storage::index::{Filter, IndexedDoc, Validity};
use crate::storage::naming;
use crate::storage::record::{Kind, SUMMARY_TAG};
use crate::storage::store::Store;

/// Characters per token, as the budget counts them.
pub const CHARS_PER_TOKEN: usize = 4;

/// What a context block is asked for: the recall request (its filter's
/// session names the working memory and summary), and the budget in tokens.
#[derive(Debug, Clone)]
pub struct ContextRequest {
    pub recall: RecallRequest,
    pub budget: Option<usize>,
}

/// A context block: its text, and what each section showed and left out.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ContextBlock {
    pub text: String,
    pub sections: Vec<SectionCount>,
    /// Warnings (a model that failed, a fallback taken).
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// How many entries of one section the block shows, and leaves out.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SectionCount {
    /// `facts`, `last_session`, `working_memory`, `procedures`, `tips` or `episodes`.
    pub section: &'static str,
    pub shown: usize,
    pub left_out: usize,
}

/// One section of the block: its heading and its entries, in order.
struct Section {
    /// The section's name in JSON.
    name: &'static str,
    heading: &'static str,
    /// The name of one entry, for the left-out line ("fact", "episode").
    noun: &'static str,
    entries: Vec<String>,
}

/// Builds the block.
pub fn build(store: &Store, request: &ContextRequest) -> Result<ContextBlock> {
    let base = &request.recall;
    let session = base.filter.session.clone();
    let wants = |kind: Kind| base.filter.kinds.is_empty() || base.filter.kinds.contains(&kind);
    // At a session start, everything but working memory comes from the
    // whole scope.
    let scope_filter = match base.query {
        Some(_) => base.filter.clone(),
        None => Filter {
            session: None,
            ..base.filter.clone()
        },
    };
    // Each section's recall; they run at once, each on a thread of its own.
    // With a query, an entry matches a query word or is a close neighbour.
    let k = base.k;
    let min_cosine = Some(store.vault().config().recall.context_min_cosine);
    let of_kind = |kind: Kind, filter: &Filter, query: Option<String>, k: usize| {
        wants(kind).then(|| RecallRequest {
            query,
            filter: Filter {
                kinds: vec![kind],
                ..filter.clone()
            },
            k,
            one_per_statement: false,
            min_cosine,
            ..base.clone()
        })
    };
    let working = match (&base.query, &session) {
        // The session's working memory at its start, all of it: what the
        // agent was tracking.
        (None, Some(_)) => of_kind(
            Kind::Working,
            &base.filter,
            None,
            store.vault().config().working.capacity.max(1),
        ),
        _ => of_kind(Kind::Working, &scope_filter, base.query.clone(), k),
    };
    let requests = [
        of_kind(Kind::Semantic, &scope_filter, base.query.clone(), k),
        working,
        of_kind(
            Kind::Procedural,
            &scope_filter,
            base.query.clone(),
            k.min(10),
        ),
        base.query
            .as_ref()
            .and_then(|_| of_kind(Kind::Episodic, &scope_filter, base.query.clone(), k)),
    ];
    let outcomes: Vec<Result<RecallOutcome>> = std::thread::scope(|scope| {
        let running: Vec<_> = requests
            .iter()
            .map(|r| scope.spawn(move || r.as_ref().map(|r| recall::recall(store, r))))
            .collect();
        running
            .into_iter()
            .map(|h| {
                h.join()
                    .expect("a section's recall panicked")
                    .unwrap_or_else(|| Ok(RecallOutcome::default()))
            })
            .collect()
    });
    let mut warnings = Vec::new();
    let mut found: Vec<Vec<Hit>> = Vec::with_capacity(requests.len());
    for outcome in outcomes {
        let outcome = outcome?;
        for w in outcome.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        found.push(outcome.hits);
    }
    let [facts, working, procedures, mut episodes]: [Vec<Hit>; 4] =
        found.try_into().expect("one result per section");
    let mut seen: HashSet<String> = HashSet::new();
    let mut fresh = |content: &str| seen.insert(crate::models::rules::norm(content));
    let mut sections: Vec<Section> = Vec::new();
    sections.push(fact_section(&facts, &mut fresh));
    if base.query.is_none() {
        let summary = latest_summary(store, &scope_filter, session.as_deref(), base.now)?;
        sections.push(Section {
            name: "last_session",
            heading: "## Last session",
            noun: "summary",
            entries: summary
                .iter()
                .filter(|d| fresh(&d.content))
                .map(|d| format!("- [{}] {}\n", day(d), flat(&d.content)))
                .collect(),
        });
    }
    sections.push(Section {
        name: "working_memory",
        heading: "## Working memory",
        noun: "working entry",
        entries: working
            .iter()
            .filter(|h| fresh(&h.doc.content))
            .map(|h| format!("- {}\n", flat(&h.doc.content)))
            .collect(),
    });
    let (name, heading) = match base.query {
        None => ("tips", "## Tips"),
        Some(_) => ("procedures", "## Procedures"),
    };
    sections.push(Section {
        name,
        heading,
        noun: "procedure",
        entries: procedures
            .iter()
            .filter(|h| fresh(&h.doc.content))
            .map(|h| tip(&h.doc))
            .collect(),
    });
    if base.query.is_some() {
        episodes.sort_by_key(|h| std::cmp::Reverse(h.doc.created));
        sections.push(Section {
            name: "episodes",
            heading: "## Recent episodes",
            noun: "episode",
            entries: episodes
                .iter()
                .filter(|h| fresh(&h.doc.content))
                .map(|h| format!("- [{}] {}\n", day(&h.doc), flat(&h.doc.content)))
                .collect(),
        });
    }
    let (text, sections) = render(&sections, request.budget);
    Ok(ContextBlock {
        text,
        sections,
        warnings,
    })
}

/// The facts, grouped by subject under `###` headings when there are several
/// (each group's heading travels with its first entry).
fn fact_section(facts: &[Hit], fresh: &mut impl FnMut(&str) -> bool) -> Section {
    let facts: Vec<&Hit> = facts.iter().filter(|h| fresh(&h.doc.content)).collect();
    let subject = |h: &Hit| h.doc.subject.clone().unwrap_or_default();
    let mut order: Vec<String> = Vec::new();
    for h in &facts {
        if !order.contains(&subject(h)) {
            order.push(subject(h));
        }
    }
    let mut entries = Vec::new();
    for s in &order {
        let mut first = order.len() > 1;
        for h in facts.iter().filter(|h| subject(h) == *s) {
            let mut entry = String::new();
            if first {
                let label = if s.is_empty() { "general" } else { s };
                entry.push_str(&format!("### {label}\n"));
                first = false;
            }
            entry.push_str(&format!("- {}\n", fact_text(&h.doc)));
            entries.push(entry);
        }
    }
    Section {
        name: "facts",
        heading: "## Facts",
        noun: "fact",
        entries,
    }
}

/// A fact as the block shows it: a keyed fact as `key: value`.
fn fact_text(doc: &IndexedDoc) -> String {
    match &doc.key {
        Some(key) => format!("{key}: {}", flat(&doc.content)),
        None => flat(&doc.content),
    }
}

/// A procedure as a tip with its record and how its runs went, or a warning
/// when it mostly failed.
fn tip(doc: &IndexedDoc) -> String {
    let link = naming::wikilink(&doc.path);
    let runs = doc.successes + doc.failures;
    if outcome::mostly_failed(doc) {
        return format!(
            "- Warning, this mostly failed ({}): {} {link}\n",
            outcome::runs_in_words(doc.successes, doc.failures),
            flat(&doc.content)
        );
    }
    if runs == 0 {
        return format!("- {} {link}\n", flat(&doc.content));
    }
    format!(
        "- {} ({}) {link}\n",
        flat(&doc.content),
        outcome::runs_in_words(doc.successes, doc.failures)
    )
}

/// The newest current session summary in the scope (of the session, when one
/// is named and has one).
fn latest_summary(
    store: &Store,
    scope_filter: &Filter,
    session: Option<&str>,
    now: Timestamp,
) -> Result<Option<IndexedDoc>> {
    let filter = Filter {
        kinds: vec![Kind::Episodic],
        tags: vec![SUMMARY_TAG.into()],
        validity: Validity::CurrentAt(now),
        ..scope_filter.clone()
    };
    if let Some(s) = session {
        let own = Filter {
            session: Some(s.to_string()),
            ..filter.clone()
        };
        if let Some(doc) = store.index().fetch_newest(&own, 1)?.pop() {
            return Ok(Some(doc));
        }
    }
    Ok(store.index().fetch_newest(&filter, 1)?.pop())
}

/// The block: each section with entries under its heading, within the budget
/// (in characters: tokens × 4) when there is one, and the left-out line.
fn render(sections: &[Section], budget: Option<usize>) -> (String, Vec<SectionCount>) {
    // Room for the closing line at its longest (everything left out), so the
    // whole block stays within the budget.
    let all: Vec<(usize, &str)> = sections
        .iter()
        .filter(|s| !s.entries.is_empty())
        .map(|s| (s.entries.len(), s.noun))
        .collect();
    let reserve = budget.map_or(0, |b| closing_line(b, &all).len());
    let limit = budget.map_or(usize::MAX, |b| b.saturating_mul(CHARS_PER_TOKEN));
    let mut out = String::new();
    let mut left_out: Vec<(usize, &str)> = Vec::new();
    let mut counts = Vec::new();
    let mut full = false;
    for s in sections.iter().filter(|s| !s.entries.is_empty()) {
        let mut shown = 0;
        for e in &s.entries {
            let heading = if shown == 0 { s.heading.len() + 1 } else { 0 };
            if full || (out.len() + heading + e.len()).saturating_add(reserve) > limit {
                full = true;
                break;
            }
            if shown == 0 {
                out.push_str(s.heading);
                out.push('\n');
            }
            out.push_str(e);
            shown += 1;
        }
        if shown < s.entries.len() {
            left_out.push((s.entries.len() - shown, s.noun));
        }
        counts.push(SectionCount {
            section: s.name,
            shown,
            left_out: s.entries.len() - shown,
        });
    }
    let Some(budget) = budget else {
        return (out, counts);
    };
    out.push_str(&closing_line(budget, &left_out));
    (out, counts)
}

/// The last line of a block within a budget: what was left out, or that
/// nothing was. A budget smaller than this line gives the line alone.
fn closing_line(budget: usize, left_out: &[(usize, &str)]) -> String {
    if left_out.is_empty() {
        return format!("(all shown within {budget} tokens)\n");
    }
    let what: Vec<String> = left_out.iter().map(|(n, noun)| plural(*n, noun)).collect();
    format!("(left out to fit {budget} tokens: {})\n", what.join(", "))
}

fn plural(n: usize, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "summary") => format!("{n} summaries"),
        (_, "working entry") => format!("{n} working entries"),
        _ => format!("{n} {noun}s"),
    }
}

fn day(doc: &IndexedDoc) -> String {
    format_time(&doc.created)[..10].to_string()
}

fn flat(content: &str) -> String {
    content.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(heading: &'static str, noun: &'static str, n: usize, len: usize) -> Section {
        Section {
            name: noun,
            heading,
            noun,
            entries: (0..n)
                .map(|i| format!("- {i}{}\n", "x".repeat(len)))
                .collect(),
        }
    }

    #[test]
    fn a_budget_keeps_the_higher_sections_and_says_what_it_left_out() {
        let sections = vec![
            section("## Facts", "fact", 3, 20),
            section("## Recent episodes", "episode", 10, 40),
        ];
        // 45 tokens: room for the three facts and the closing line only.
        let block = render(&sections, Some(45)).0;
        assert!(block.len() <= 45 * CHARS_PER_TOKEN, "{block}");
        assert_eq!(block.matches("- ").count(), 3, "{block}");
        assert!(block.ends_with("(left out to fit 45 tokens: 10 episodes)\n"));
        // 60 tokens: two episodes more.
        let block = render(&sections, Some(60)).0;
        assert!(block.len() <= 60 * CHARS_PER_TOKEN, "{block}");
        assert!(block.contains("## Recent episodes\n- 0"), "{block}");
        assert!(block.ends_with("(left out to fit 60 tokens: 8 episodes)\n"));
        // Every budget from 13 tokens up (the longest closing line) holds.
        for budget in 13..200 {
            let block = render(&sections, Some(budget)).0;
            assert!(block.len() <= budget * CHARS_PER_TOKEN, "{budget}: {block}");
        }
        let all = render(&sections, Some(10_000)).0;
        assert!(all.ends_with("(all shown within 10000 tokens)\n"));
        let none = render(&sections, Some(10)).0;
        assert!(none.contains("3 facts, 10 episodes"), "{none}");
    }

    #[test]
    fn a_procedure_shows_its_runs_or_a_warning() {
        let mut doc = IndexedDoc {
            path: "procedural/deploy-abc123.md".into(),
            content: "Deploy with make release".into(),
            kind: "procedural".into(),
            successes: 3,
            failures: 1,
            ..IndexedDoc::default()
        };
        assert_eq!(
            tip(&doc),
            "- Deploy with make release (3 of 4 runs succeeded) [[procedural/deploy-abc123]]\n"
        );
        doc.successes = 1;
        doc.failures = 3;
        assert!(tip(&doc).starts_with("- Warning, this mostly failed (1 of 4 runs succeeded)"));
    }
}

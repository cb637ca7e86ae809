//! Reflect: decide what a new fact does to what is already known.
//!
//! Each fact is compared with the active semantic records of the same scope
//! and subject: those that state the same attribute (read back from their text
//! by [`rules::classify`]) and the nearest by hybrid similarity. The rules:
//! - a retraction invalidates the record that states it (DELETE);
//! - the same value of the same attribute, or a near-identical text, is a
//!   restatement (NOOP; the record is reinforced);
//! - another value of a single-valued attribute (where someone lives, works,
//!   their diet, name, partner, a preference) supersedes the old one (UPDATE);
//! - anything else is new (ADD).
//!
//! With an LLM, the model decides instead, seeing the candidates under
//! temporary integer ids; ids it invents are dropped (see [`crate::models::llm`]).

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::recall::{self, Mode, RecallRequest};
use crate::memory::scope::Scope;
use crate::memory::truth::{attribute_of, value_of};
use crate::models::llm;
use crate::models::rules::{self, Fact};
use crate::storage::index::{Filter, IndexedDoc, Validity};
use crate::storage::record::Kind;
use crate::storage::store::Store;

/// What to do with a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Update,
    Delete,
    Noop,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Add => "ADD",
            Op::Update => "UPDATE",
            Op::Delete => "DELETE",
            Op::Noop => "NOOP",
        }
    }
}

/// A decision, with the record it concerns and why.
#[derive(Debug, Clone)]
pub struct Decision {
    pub op: Op,
    pub target: Option<IndexedDoc>,
    /// Similarity of the fact to the target (cosine when vectors exist).
    pub similarity: Option<f64>,
    pub reason: String,
}

/// The active semantic records of a subject in a scope.
fn subject_filter(scope: &Scope, subject: &str, now: Timestamp) -> Filter {
    Filter {
        subject: Some(subject.to_string()),
        ..scope.filter(vec![Kind::Semantic], Validity::CurrentAt(now))
    }
}

/// The candidates a fact is compared with: every record of the subject that
/// states the same attribute, then the nearest by hybrid recall (at most 5).
pub fn candidates(
    store: &Store,
    fact: &Fact,
    scope: &Scope,
    now: Timestamp,
) -> Result<Vec<(IndexedDoc, f64)>> {
    let filter = subject_filter(scope, &fact.subject, now);
    let mut out: Vec<IndexedDoc> = Vec::new();
    if let Some(attr) = &fact.attribute {
        // Records that name the attribute in their frontmatter, then facts
        // without the key that the rules read as the same attribute.
        let keyed = Filter {
            attribute: Some(attr.key.clone()),
            ..filter.clone()
        };
        out.extend(store.index().fetch_newest(&keyed, 500)?);
        for doc in store.index().fetch_newest(&filter, 500)? {
            if doc.attribute.is_none()
                && out.iter().all(|d| d.id != doc.id)
                && attribute_of(&doc).is_some_and(|a| a.key == attr.key)
            {
                out.push(doc);
            }
        }
    }
    let request = RecallRequest {
        query: Some(fact.content.clone()),
        filter,
        k: 5,
        mode: Mode::Hybrid,
        now,
        one_per_statement: false,
        min_cosine: None,
    };
    for hit in recall::recall(store, &request)?.hits {
        if out.iter().all(|d| d.id != hit.doc.id) {
            out.push(hit.doc);
        }
    }
    let sims = similarities(store, &fact.content, &out);
    Ok(out.into_iter().zip(sims).collect())
}

/// The similarity of `text` to each record: one embedding call for all of
/// them (the text is embedded once), else word overlap.
fn similarities(store: &Store, text: &str, docs: &[IndexedDoc]) -> Vec<f64> {
    let mut texts = vec![text.to_string()];
    texts.extend(docs.iter().map(|d| d.content.clone()));
    match store.embedder().and_then(|e| e.embed(&texts).ok()) {
        Some(v) => v[1..]
            .iter()
            .map(|d| f64::from(v[0].iter().zip(d).map(|(x, y)| x * y).sum::<f32>()))
            .collect(),
        None => docs
            .iter()
            .map(|d| similarity(store, text, &d.content))
            .collect(),
    }
}

/// Cosine of two texts by the store's embedder, else word overlap (Jaccard).
pub fn similarity(store: &Store, a: &str, b: &str) -> f64 {
    if let Some(v) = store
        .embedder()
        .and_then(|e| e.embed(&[a.to_string(), b.to_string()]).ok())
    {
        return f64::from(v[0].iter().zip(&v[1]).map(|(x, y)| x * y).sum::<f32>());
    }
    let wa: std::collections::HashSet<String> =
        rules::norm(a).split(' ').map(str::to_string).collect();
    let wb: std::collections::HashSet<String> =
        rules::norm(b).split(' ').map(str::to_string).collect();
    let union = wa.union(&wb).count().max(1);
    wa.intersection(&wb).count() as f64 / union as f64
}

/// The rule engine's decision.
pub fn decide(fact: &Fact, candidates: &[(IndexedDoc, f64)]) -> Decision {
    let attr_of = attribute_of;
    // The fact's value is read from its text as every stored copy's is.
    let attribute = fact.attribute.as_ref().map(|a| rules::Attribute {
        key: a.key.clone(),
        value: value_of(&a.key, &fact.content),
    });
    let same_attr: Vec<&(IndexedDoc, f64)> = match &attribute {
        Some(attr) => candidates
            .iter()
            .filter(|(d, _)| attr_of(d).is_some_and(|a| a.key == attr.key))
            .collect(),
        None => Vec::new(),
    };
    let nearest = candidates.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let same_text = candidates
        .iter()
        .find(|(d, _)| rules::norm(&d.content) == rules::norm(&fact.content));
    let decision = |op, target: Option<&(IndexedDoc, f64)>, reason: String| Decision {
        op,
        target: target.map(|(d, _)| d.clone()),
        similarity: target.map(|(_, s)| *s),
        reason,
    };
    if fact.retraction {
        if let Some(attr) = &attribute {
            let target = same_attr
                .iter()
                .find(|(d, _)| attr_of(d).is_some_and(|a| a.value == attr.value))
                .or(same_attr.first())
                .copied();
            if let Some(t) = target {
                return decision(
                    Op::Delete,
                    Some(t),
                    format!("rule {}: retraction of {}", fact.rule, attr.key),
                );
            }
        }
        if let Some(t) = same_text.or(nearest.filter(|(_, s)| *s >= 0.75)) {
            return decision(
                Op::Delete,
                Some(t),
                format!("rule {}: retraction of the nearest record", fact.rule),
            );
        }
        // "I don't cycle anymore" retracts "Usually cycles to work": the
        // record that says every word the retraction says, the nearest first.
        let words: std::collections::HashSet<String> = rules::norm(&fact.content)
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let saying_it = candidates
            .iter()
            .filter(|(d, _)| {
                let theirs = rules::norm(&d.content);
                !words.is_empty() && words.iter().all(|w| theirs.split(' ').any(|t| t == w))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some(t) = saying_it {
            return decision(
                Op::Delete,
                Some(t),
                format!("rule {}: retraction of the record that says it", fact.rule),
            );
        }
        return decision(
            Op::Noop,
            None,
            format!("rule {}: retraction, but nothing stated it", fact.rule),
        );
    }
    if let Some(t) = same_text {
        return decision(
            Op::Noop,
            Some(t),
            format!("rule {}: restatement of the same text", fact.rule),
        );
    }
    if let Some(attr) = &attribute {
        if let Some(t) = same_attr
            .iter()
            .find(|(d, _)| attr_of(d).is_some_and(|a| a.value == attr.value))
        {
            return decision(
                Op::Noop,
                Some(t),
                format!("rule {}: same {} ({})", fact.rule, attr.key, attr.value),
            );
        }
        if let Some(t) = same_attr.first() {
            let old = attr_of(&t.0).map(|a| a.value).unwrap_or_default();
            return decision(
                Op::Update,
                Some(t),
                format!(
                    "rule {}: new {} '{}' replaces '{}'",
                    fact.rule, attr.key, attr.value, old
                ),
            );
        }
    }
    if let Some(t) = nearest.filter(|(_, s)| *s >= 0.92) {
        return decision(
            Op::Noop,
            Some(t),
            format!("rule {}: near-identical to an existing record", fact.rule),
        );
    }
    let reason = match nearest {
        Some((d, s)) => format!(
            "rule {}: new (nearest '{}', similarity {s:.2})",
            fact.rule, d.content
        ),
        None => format!(
            "rule {}: new (nothing known about {})",
            fact.rule, fact.subject
        ),
    };
    decision(Op::Add, None, reason)
}

/// The model's decision; falls back to the rules (with the error) on failure.
pub fn decide_with_model(
    model: &llm::ChatModel,
    fact: &Fact,
    candidates: &[(IndexedDoc, f64)],
) -> std::result::Result<Decision, llm::LlmError> {
    let extracted = llm::ExtractedFact {
        content: fact.content.clone(),
        subject: fact.subject.clone(),
        category: fact.category.to_string(),
        durability: fact.durability.to_string(),
        importance: fact.importance,
        attribute: fact.attribute.as_ref().map(|a| a.key.clone()),
        date: fact.when,
    };
    // Temporary ids 1..n: the model never sees a real id.
    let existing: Vec<(u32, String)> = candidates
        .iter()
        .enumerate()
        .map(|(i, (d, _))| (i as u32 + 1, d.content.clone()))
        .collect();
    let answer = llm::reconcile(model, &extracted, &existing)?;
    let target = answer.target.and_then(|t| candidates.get(t as usize - 1));
    let op = match answer.op {
        llm::Op::Add => Op::Add,
        llm::Op::Update => Op::Update,
        llm::Op::Delete => Op::Delete,
        llm::Op::Noop => Op::Noop,
    };
    Ok(Decision {
        op,
        target: target.map(|(d, _)| d.clone()),
        similarity: target.map(|(_, s)| *s),
        reason: format!("model {}: {}", model.name(), answer.reason),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str, content: &str) -> IndexedDoc {
        IndexedDoc {
            path: format!("semantic/user/{id}.md"),
            id: id.into(),
            kind: "semantic".into(),
            content: content.into(),
            status: "active".into(),
            subject: Some("user".into()),
            ..IndexedDoc::default()
        }
    }

    fn fact(text: &str) -> Fact {
        rules::extract(text).into_iter().next().expect("a fact")
    }

    #[test]
    fn a_new_value_of_an_attribute_updates() {
        let known = vec![
            (doc("a", "Lives in Berlin"), 0.6),
            (doc("b", "Likes tea"), 0.1),
        ];
        let d = decide(&fact("I moved to Lisbon"), &known);
        assert_eq!(d.op, Op::Update);
        assert_eq!(d.target.unwrap().id, "a");
    }

    #[test]
    fn a_restatement_is_a_noop() {
        let known = vec![(doc("a", "Lives in Berlin"), 0.6)];
        let d = decide(&fact("I live in Berlin, you know"), &known);
        assert_eq!(d.op, Op::Noop);
        assert_eq!(d.target.unwrap().id, "a");
    }

    #[test]
    fn a_retraction_deletes_what_it_retracts() {
        let known = vec![
            (doc("v", "Is vegetarian"), 0.5),
            (doc("b", "Lives in Berlin"), 0.1),
        ];
        let d = decide(&fact("I'm not vegetarian anymore"), &known);
        assert_eq!(d.op, Op::Delete);
        assert_eq!(d.target.unwrap().id, "v");
        let nothing = decide(&fact("I'm not vegetarian anymore"), &[]);
        assert_eq!(nothing.op, Op::Noop);
    }

    #[test]
    fn a_flipped_preference_updates_and_other_things_add() {
        let known = vec![(doc("c", "Loves coffee"), 0.5)];
        assert_eq!(decide(&fact("I hate coffee now"), &known).op, Op::Update);
        assert_eq!(decide(&fact("I love tea"), &known).op, Op::Add);
        assert_eq!(decide(&fact("I'm allergic to peanuts"), &known).op, Op::Add);
    }

    #[test]
    fn distinct_values_of_multi_valued_attributes_both_stay() {
        let known = vec![(doc("p", "Is allergic to peanuts"), 0.5)];
        assert_eq!(
            decide(&fact("I'm allergic to shellfish"), &known).op,
            Op::Add
        );
    }
}

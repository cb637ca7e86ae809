//! One truth per statement (SPEC: "One truth per statement").
//!
//! A statement may be kept in several tiers at once: the working entry, the
//! episode and the fact that one capture writes carry the same text and the
//! same `attribute`. This module owns how those copies follow their fact:
//! - a **copy** of a statement is an active record of the same scope and
//!   subject, in working, episodic or semantic memory, with the same text, or
//!   with the same attribute and the same value;
//! - a **rival** is an active record of the same scope and subject that states
//!   another value of the same attribute (one current value per attribute);
//! - when a statement ends (superseded, retracted, forgotten), [`retire`] ends
//!   every copy and rival the same way, with a link and a reason, so recall,
//!   the context block and the files agree.
//!
//! No link has to be kept between copies: they are found again from the
//! index (the attribute term, then BM25 on the text), which also catches
//! copies written by another capture, by consolidation or by hand.

use crate::clock::Timestamp;
use crate::error::Result;
use crate::memory::scope::Scope;
use crate::models::rules::{self, Attribute};
use crate::storage::index::{Filter, IndexedDoc, Validity};
use crate::storage::record::Kind;
use crate::storage::store::{Change, Store};
use crate::storage::writer::{self, Mutation};

/// The tiers a statement is copied into.
const TIERS: [Kind; 3] = [Kind::Working, Kind::Episodic, Kind::Semantic];

/// How many BM25 neighbours are read to find copies that carry no attribute.
const TEXT_NEIGHBOURS: usize = 50;

/// What a record says, in the terms copies are compared by.
#[derive(Debug, Clone)]
pub struct Statement {
    pub content: String,
    /// `user` when the record names none.
    pub subject: String,
    pub attribute: Option<Attribute>,
}

impl Statement {
    /// A statement about `subject`, of the attribute `key` when it has one.
    pub fn new(content: &str, subject: &str, key: Option<&str>) -> Statement {
        Statement {
            content: content.to_string(),
            subject: subject.to_string(),
            attribute: key.map(|k| Attribute {
                key: k.to_string(),
                value: value_of(k, content),
            }),
        }
    }

    /// What an indexed record states.
    pub fn of_doc(doc: &IndexedDoc) -> Statement {
        Statement {
            content: doc.content.clone(),
            subject: doc.subject.clone().unwrap_or_else(|| "user".into()),
            attribute: attribute_of(doc),
        }
    }

    /// Whether `doc` states this statement: the same text, or the same value
    /// of the same attribute.
    fn is_stated_by(&self, doc: &IndexedDoc) -> bool {
        if rules::norm(&doc.content) == rules::norm(&self.content) {
            return true;
        }
        match (&self.attribute, attribute_of(doc)) {
            (Some(a), Some(b)) => a.key == b.key && a.value == b.value,
            _ => false,
        }
    }

    /// Whether `doc` states another value of this statement's attribute.
    fn is_rivalled_by(&self, doc: &IndexedDoc) -> bool {
        match (&self.attribute, attribute_of(doc)) {
            (Some(a), Some(b)) => a.key == b.key && a.value != b.value,
            _ => false,
        }
    }
}

/// The text a retraction leaves in working and episodic memory: "Is
/// vegetarian" → "Is no longer vegetarian", "Works at Acme" → "No longer
/// works at Acme". [`positive`] reads it back.
pub fn negated(content: &str) -> String {
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

/// The statement a retraction's text ends ([`negated`] read back), if it is one.
pub fn positive(content: &str) -> Option<String> {
    let content = content.trim();
    if let Some(rest) = content.strip_prefix("Is no longer ") {
        return Some(format!("Is {rest}"));
    }
    let rest = content.strip_prefix("No longer ")?;
    let mut chars = rest.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
}

/// The value of attribute `key` that `content` states: what the rules read
/// from it when they see the same attribute, else the whole text (compared
/// in its normal form); a retraction states "no longer" that value. Every
/// copy is read the same way, so copies agree and a retraction is a rival of
/// what it retracted.
pub fn value_of(key: &str, content: &str) -> String {
    if let Some(p) = positive(content) {
        return format!("no longer {}", value_of(key, &p));
    }
    rules::attribute_for(content, key).map_or_else(|| rules::norm(content), |a| a.value)
}

/// The attribute a record states: its `attribute` key with [`value_of`] its
/// text; without the key, what the rules read from the text of a fact.
pub fn attribute_of(doc: &IndexedDoc) -> Option<Attribute> {
    match &doc.attribute {
        Some(key) => Some(Attribute {
            key: key.clone(),
            value: value_of(key, &doc.content),
        }),
        None if doc.kind == Kind::Semantic.as_str() => {
            rules::classify(&doc.content).and_then(|(_, a)| a)
        }
        None => None,
    }
}

/// The active records of the scope, in working, episodic and semantic memory,
/// that might state the statement or its attribute: those indexed under the
/// attribute, then the text's BM25 neighbours. Records of another subject are
/// left out.
fn neighbours(
    store: &Store,
    scope: &Scope,
    statement: &Statement,
    now: Timestamp,
) -> Result<Vec<IndexedDoc>> {
    let filter = scope.filter(TIERS.to_vec(), Validity::CurrentAt(now));
    let mut out: Vec<IndexedDoc> = Vec::new();
    if let Some(a) = &statement.attribute {
        let by_attribute = Filter {
            attribute: Some(a.key.clone()),
            ..filter.clone()
        };
        out.extend(store.index().fetch_newest(&by_attribute, 1_000)?);
    }
    for (_, addr) in store
        .index()
        .search(&statement.content, &filter, TEXT_NEIGHBOURS)?
    {
        let doc = store.index().fetch(addr)?;
        if out.iter().all(|d| d.id != doc.id) {
            out.push(doc);
        }
    }
    out.retain(|d| d.subject.as_deref().unwrap_or("user") == statement.subject);
    Ok(out)
}

/// The active copies of a statement in the scope (every tier but procedural).
pub fn copies(
    store: &Store,
    scope: &Scope,
    statement: &Statement,
    now: Timestamp,
) -> Result<Vec<IndexedDoc>> {
    let mut docs = neighbours(store, scope, statement, now)?;
    docs.retain(|d| statement.is_stated_by(d));
    Ok(docs)
}

/// The active records of the scope that state another value of the
/// statement's attribute (none when it has no attribute).
pub fn rivals(
    store: &Store,
    scope: &Scope,
    statement: &Statement,
    now: Timestamp,
) -> Result<Vec<IndexedDoc>> {
    if statement.attribute.is_none() {
        return Ok(Vec::new());
    }
    let mut docs = neighbours(store, scope, statement, now)?;
    docs.retain(|d| statement.is_rivalled_by(d));
    Ok(docs)
}

/// The active records of the scope, of any subject, whose text mentions
/// every content word of `words` ("Miso", "my boat"): what a death, a
/// break-up or "forget the part about …" ends. Events stay: they tell what
/// happened, which stays true.
pub fn mentioning(
    store: &Store,
    scope: &Scope,
    words: &str,
    now: Timestamp,
) -> Result<Vec<IndexedDoc>> {
    let wanted: Vec<String> = words
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2 && !matches!(*w, "my" | "our" | "the" | "their" | "about"))
        .map(str::to_lowercase)
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let filter = scope.filter(TIERS.to_vec(), Validity::CurrentAt(now));
    let mut out = Vec::new();
    for (_, addr) in store.index().search(&wanted.join(" "), &filter, 200)? {
        let doc = store.index().fetch(addr)?;
        let text: Vec<String> = doc
            .content
            .split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .collect();
        let mentions = wanted
            .iter()
            .all(|w| text.iter().any(|t| t == w || t.trim_end_matches('s') == w));
        if mentions && doc.category.as_deref() != Some("event") {
            out.push(doc);
        }
    }
    Ok(out)
}

/// How retired records end.
#[derive(Debug, Clone)]
pub enum Ending {
    /// A newer value replaced them: `superseded_by` links to it.
    Superseded { by: String },
    /// They are no longer true: `invalidated_by` names the record (a
    /// wikilink) or the command that said so.
    Invalidated { by: String },
    /// Their files are deleted (`forget --hard`).
    Deleted,
}

/// Ends every record in `docs` (each once) the same way, with `reason`;
/// returns one mutation per file. In a dry run nothing is written.
pub fn retire(
    store: &Store,
    docs: &[IndexedDoc],
    ending: &Ending,
    reason: &str,
    now: Timestamp,
    dry_run: bool,
    changes: &mut Vec<Change>,
) -> Result<Vec<Mutation>> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for doc in docs {
        if seen.contains(&doc.id.as_str()) {
            continue;
        }
        seen.push(&doc.id);
        let op = match ending {
            Ending::Superseded { by } => {
                writer::rewrite(store, doc, dry_run, changes, |r| {
                    r.supersede(by.clone(), reason.to_string(), now)
                })?;
                "SUPERSEDE"
            }
            Ending::Invalidated { by } => {
                writer::rewrite(store, doc, dry_run, changes, |r| {
                    r.invalidate(by.clone(), reason.to_string(), now)
                })?;
                "INVALIDATE"
            }
            Ending::Deleted => {
                if !dry_run {
                    writer::delete(store, doc, changes)?;
                }
                "DELETE"
            }
        };
        out.push(Mutation::of_doc(op, doc, reason.to_string()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(kind: &str, content: &str, attribute: Option<&str>) -> IndexedDoc {
        IndexedDoc {
            path: format!("{kind}/x.md"),
            id: content.into(),
            kind: kind.into(),
            content: content.into(),
            status: "active".into(),
            subject: Some("user".into()),
            attribute: attribute.map(str::to_string),
            ..IndexedDoc::default()
        }
    }

    fn residence(city: &str) -> Statement {
        Statement::new(&format!("Lives in {city}"), "user", Some("residence"))
    }

    #[test]
    fn a_copy_has_the_same_text_or_the_same_value_of_the_attribute() {
        let s = residence("Krakow");
        assert!(s.is_stated_by(&doc("episodic", "Lives in Krakow.", None)));
        assert!(s.is_stated_by(&doc("working", "Lives in Krakow", Some("residence"))));
        assert!(!s.is_stated_by(&doc("working", "Lives in Gdansk", Some("residence"))));
    }

    #[test]
    fn a_rival_states_another_value_of_the_attribute() {
        let s = residence("Gdansk");
        assert!(s.is_rivalled_by(&doc("episodic", "Lives in Krakow", Some("residence"))));
        // A fact without the key is read by the rules.
        assert!(s.is_rivalled_by(&doc("semantic", "Lives in Krakow", None)));
        assert!(!s.is_rivalled_by(&doc("semantic", "Lives in Gdansk", None)));
        assert!(!s.is_rivalled_by(&doc("semantic", "Likes tea", None)));
    }

    #[test]
    fn a_retraction_is_a_rival_of_what_it_retracts() {
        assert_eq!(negated("Is vegetarian"), "Is no longer vegetarian");
        assert_eq!(negated("Works at Acme"), "No longer works at Acme");
        for text in ["Is vegetarian", "Works at Acme", "Is allergic to cats"] {
            assert_eq!(positive(&negated(text)).as_deref(), Some(text));
        }
        assert_eq!(positive("Lives in Berlin"), None);
        let retraction = doc(
            "working",
            "Is no longer allergic to cats",
            Some("allergy:cats"),
        );
        let again = Statement::new("Is allergic to cats", "user", Some("allergy:cats"));
        assert!(again.is_rivalled_by(&retraction));
        assert!(!again.is_stated_by(&retraction));
    }

    #[test]
    fn a_keyed_value_the_rules_cannot_read_is_its_text() {
        let d = doc("semantic", "Door code is 1190", Some("my:door code"));
        let a = attribute_of(&d).expect("an attribute");
        assert_eq!(a.key, "my:door code");
        let s = Statement::new("Door code is 2231", "user", Some("my:door code"));
        assert!(s.is_rivalled_by(&d));
        assert!(!s.is_stated_by(&d));
        let same = Statement::new("Door code is 1190", "user", Some("my:door code"));
        assert!(same.is_stated_by(&d));
    }
}

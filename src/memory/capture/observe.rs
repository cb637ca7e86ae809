//! Observe: the facts in what was said, read by the chat model when one is
//! configured (falling back to the rules, with a warning, when it fails), else
//! by the built-in rule engine.

use crate::clock::Timestamp;
use crate::memory::truth;
use crate::models::llm;
use crate::models::rules::{self, Extraction, Fact};

/// The facts in the input: by the model when one is configured (falling back to
/// the rules, with a warning, when it fails), else by the rules.
pub fn observe(
    text: &str,
    reading: Reading,
    model: Option<&llm::ChatModel>,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Extraction {
    if reading.notes {
        return observe_notes(text, reading.user_names, model, now, warnings);
    }
    if let Some(model) = model {
        match llm::extract_facts(model, text, None, now) {
            Ok(facts) => {
                let facts = facts
                    .into_iter()
                    .map(|f| {
                        // The client already checked both against these lists;
                        // this takes their `'static` spelling.
                        let category = one_of(&llm::CATEGORIES, &f.category, "attribute");
                        let durability = one_of(&llm::DURABILITIES, &f.durability, "persistent");
                        // "Is no longer vegetarian" is a retraction of "Is
                        // vegetarian", as the rule engine gives it.
                        let (content, retraction) = match truth::positive(&f.content) {
                            Some(p) => (p, true),
                            None => (f.content, false),
                        };
                        // The model's attribute names the slot, else the rules
                        // read one from the text.
                        // What the lexicon reads in the words comes first, so
                        // that a model's fact and a rule's fact of one slot
                        // share its key; else the model's attribute names it.
                        let attribute = match (rules::attribute_of_text(&content), f.attribute) {
                            (Some(a), _) => Some(a),
                            (None, Some(key)) => Some(rules::Attribute {
                                value: truth::value_of(&key, &content),
                                key,
                            }),
                            (None, None) => None,
                        };
                        Fact {
                            attribute,
                            content,
                            subject: f.subject,
                            category,
                            durability,
                            importance: f.importance,
                            retraction,
                            rule: "model",
                            when: f.date,
                            ..Fact::default()
                        }
                    })
                    .collect();
                return Extraction {
                    facts,
                    skipped: Vec::new(),
                };
            }
            Err(e) => warnings.push(format!("{e}; the rule engine extracted the facts instead")),
        }
    }
    rules::read_as(text, Some(now), reading.user_names)
}

/// How a text is read.
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    /// An agent's notes, one a line: kept as written.
    pub notes: bool,
    /// The names the user goes by, lowercase.
    pub user_names: &'a [String],
}

/// An agent's notes, each kept as written: the rules read who each is about
/// and what it is a value of; a configured model is asked the same of the
/// whole note, never to rewrite it.
fn observe_notes(
    text: &str,
    user_names: &[String],
    model: Option<&llm::ChatModel>,
    now: Timestamp,
    warnings: &mut Vec<String>,
) -> Extraction {
    let lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let mut read = rules::read_notes(&lines, Some(now), user_names);
    let Some(model) = model else {
        return read;
    };
    for fact in &mut read.facts {
        match llm::extract_facts(model, &fact.content, None, now) {
            Ok(found) => {
                // The model's reading of the note: its subject and attribute,
                // never its words.
                if let Some(f) = found.into_iter().next() {
                    fact.subject = f.subject;
                    if let Some(key) = f.attribute {
                        fact.attribute = Some(rules::Attribute {
                            value: truth::value_of(&key, &fact.content),
                            key,
                        });
                    }
                    if fact.when.is_none() {
                        fact.when = f.date;
                    }
                }
            }
            Err(e) => {
                warnings.push(format!("{e}; the rule engine read the note instead"));
                break;
            }
        }
    }
    read
}

/// `value` as spelled in `list`, else `fallback`.
fn one_of(list: &[&'static str], value: &str, fallback: &'static str) -> &'static str {
    list.iter()
        .copied()
        .find(|c| *c == value)
        .unwrap_or(fallback)
}

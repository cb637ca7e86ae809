//! Route: which tiers an observation goes to (SPEC: Tiers).
//!
//! Every observation enters the session's working memory. Lasting facts of a
//! stable category are reconciled into semantic memory. Significant lasting
//! observations, and events, become episodes unless they only restate a fact.
//! A retraction is shown in working and episodic memory as what ended.

use crate::models::rules::Fact;

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

/// Whether a durability lasts beyond the session.
pub fn is_lasting(durability: &str) -> bool {
    matches!(durability, "persistent" | "permanent")
}

/// Whether a fact is reconciled into semantic memory.
pub fn to_semantic(fact: &Fact) -> bool {
    // An agent's note is a fact it chose to keep, whatever its tense.
    is_lasting(fact.durability) && (STABLE.contains(&fact.category) || fact.rule == "note")
}

/// Whether a fact becomes an episode: significant and lasting, or an event,
/// and not a restatement of what semantic memory already holds.
pub fn to_episodic(fact: &Fact, significance: f64, restated: bool) -> bool {
    let significant = is_lasting(fact.durability) && fact.importance >= significance;
    (significant || fact.category == "event") && !restated
}

/// The text an observation leaves in working and episodic memory.
pub fn shown_text(fact: &Fact) -> String {
    if fact.retraction {
        fact.said
            .clone()
            .unwrap_or_else(|| crate::memory::truth::negated(&fact.content))
    } else {
        fact.content.clone()
    }
}

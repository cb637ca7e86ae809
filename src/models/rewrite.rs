//! Rewrite: a first-person clause told again in the third person, in the
//! speaker's own words.
//!
//! "I mostly write Ruby" → "Mostly writes Ruby"; "Last Sunday I hiked up Ben
//! Nevis" → "Hiked up Ben Nevis last Sunday"; "we adopted a dog" → "The user
//! and others adopted a dog". Only the subject and the verb that agrees with
//! it change, and the verb changes only when the [`lexicon`] knows it as one;
//! "my", "me" and "myself" become "their", "them" and "themselves". A clause
//! whose verb the lexicon does not know is not rewritten at all (`None`):
//! better no fact than a guessed conjugation.

use crate::models::lexicon::{self, VerbForm};

/// Words that open a lead-in before the subject: "Last Sunday I …", "At the
/// moment I'm …", "Yesterday I …".
const LEAD_WORDS: [&str; 27] = [
    "last",
    "this",
    "next",
    "yesterday",
    "today",
    "tonight",
    "tomorrow",
    "at",
    "on",
    "in",
    "over",
    "after",
    "before",
    "since",
    "during",
    "every",
    "earlier",
    "later",
    "lately",
    "recently",
    "sometimes",
    "often",
    "now",
    "then",
    "back",
    "for",
    "these",
];

/// Words that tie a clause to the one before it: dropped before its subject.
const SUBORDINATORS: [&str; 10] = [
    "after", "before", "since", "when", "once", "while", "because", "although", "though", "as",
];

/// Words that may stand before a subordinator: "especially after".
const TIES: [&str; 7] = ["especially", "even", "just", "right", "only", "and", "but"];

/// Subject pronouns other than "I" that make the clause the speaker's:
/// the speaker with others.
fn is_we(word: &str) -> bool {
    matches!(word, "we" | "We")
}

/// The clause in the third person, or `None` when it has no first-person
/// subject or its verb is unknown.
pub fn third_person_clause(clause: &str) -> Option<String> {
    let tokens: Vec<&str> = clause.split_whitespace().collect();
    // The subject: first, or after a short lead-in.
    let at = tokens
        .iter()
        .take(6)
        .position(|t| *t == "I" || is_we(t.trim_end_matches(',')))?;
    let mut lead = &tokens[..at];
    let words: Vec<String> = lead
        .iter()
        .map(|t| t.trim_end_matches(',').to_lowercase())
        .collect();
    // "if I win": a hypothetical is no fact.
    if words.iter().any(|w| w == "if" || w == "unless") {
        return None;
    }
    // "Especially after I failed the test", "because I love it": the clause
    // stands on its own without the word that tied it to the last one.
    if words
        .last()
        .is_some_and(|w| SUBORDINATORS.contains(&w.as_str()))
        && words[..words.len() - 1]
            .iter()
            .all(|w| TIES.contains(&w.as_str()))
    {
        lead = &[];
    }
    if !lead.is_empty() {
        let first = lead[0].trim_end_matches(',').to_lowercase();
        let ends_with_comma = lead.last().is_some_and(|t| t.ends_with(','));
        if !(LEAD_WORDS.contains(&first.as_str()) || ends_with_comma) {
            return None;
        }
    }
    let we = is_we(tokens[at]);
    let rest = &tokens[at + 1..];
    let (head, tail) = if we {
        // "we" keeps its plural verb: "The user and others went camping".
        ("The user and others".to_string(), rest.to_vec())
    } else {
        // Adverbs before the verb stay where they are: "mostly writes".
        let mut i = 0;
        while i + 1 < rest.len()
            && lexicon::is_adverb(rest[i])
            && lexicon::verb(rest[i]).is_none_or(|_| lexicon::verb(rest[i + 1]).is_some())
            && lexicon::verb(rest[i + 1]).is_some()
        {
            i += 1;
        }
        let verb_word = *rest.get(i)?;
        // The lexicon conjugates am, have and do too; "cannot" is no lemma.
        let verb = match verb_word {
            "was" | "cannot" => verb_word.to_string(),
            w => match lexicon::verb(w)? {
                (_, VerbForm::Base) => lexicon::third_person(w),
                _ => w.to_string(),
            },
        };
        let mut head: Vec<String> = rest[..i].iter().map(|s| s.to_string()).collect();
        head.push(verb);
        (head.join(" "), rest[i + 1..].to_vec())
    };
    let mut out = capitalise(&head);
    let tail = pronouns(&tail.join(" "));
    if !tail.is_empty() {
        out.push(' ');
        out.push_str(&tail);
    }
    if !lead.is_empty() {
        let lead = lead.join(" ");
        let lead = lead.trim_end_matches(',');
        out.push(' ');
        out.push_str(&decapitalise(lead));
    }
    Some(out)
}

/// First-person words after the subject, in the third person.
pub fn pronouns(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let core = w.trim_matches(|c: char| !c.is_alphanumeric());
        let replaced = match core {
            "I" => Some("they"),
            "my" | "My" | "our" | "Our" => Some("their"),
            "me" | "us" => Some("them"),
            "myself" | "ourselves" => Some("themselves"),
            "mine" | "ours" => Some("theirs"),
            "we" | "We" => Some("they"),
            // "they am", "they was": the verb after a replaced "I".
            "am" if i > 0 && words[i - 1] == "I" => Some("are"),
            "was" if i > 0 && words[i - 1] == "I" => Some("were"),
            _ => None,
        };
        match replaced {
            Some(r) if !core.is_empty() => out.push(w.replacen(core, r, 1)),
            _ => out.push(w.to_string()),
        }
    }
    out.join(" ")
}

/// Upper-cases the first letter.
pub fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Lower-cases the first word unless it is a name ("Sunday", "Paris").
fn decapitalise(text: &str) -> String {
    let first = text.split_whitespace().next().unwrap_or("");
    let common = LEAD_WORDS.contains(&first.to_lowercase().as_str())
        || first.chars().skip(1).all(|c| c.is_lowercase())
            && !matches!(
                first.to_lowercase().as_str(),
                "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday"
            );
    if common {
        lower_first(text)
    } else {
        text.to_string()
    }
}

/// Lower-cases the first letter.
pub fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> String {
        third_person_clause(s).unwrap_or_else(|| "<none>".into())
    }

    #[test]
    fn the_verb_agrees_and_adverbs_stay() {
        assert_eq!(rw("I mostly write Ruby"), "Mostly writes Ruby");
        assert_eq!(rw("I usually cook on Sundays"), "Usually cooks on Sundays");
        assert_eq!(rw("I play the cello"), "Plays the cello");
        assert_eq!(rw("I speak Italian"), "Speaks Italian");
        assert_eq!(
            rw("I watch films with my sister"),
            "Watches films with their sister"
        );
    }

    #[test]
    fn past_and_auxiliaries_are_kept() {
        assert_eq!(rw("I hiked up Ben Nevis"), "Hiked up Ben Nevis");
        assert_eq!(rw("I went to a support group"), "Went to a support group");
        assert_eq!(rw("I am colour-blind"), "Is colour-blind");
        assert_eq!(rw("I am scared of heights"), "Is scared of heights");
        assert_eq!(rw("I have two kids"), "Has two kids");
        assert_eq!(rw("I do not eat meat"), "Does not eat meat");
        assert_eq!(rw("I can make pottery"), "Can make pottery");
        assert_eq!(
            rw("I was nervous when I was a kid"),
            "Was nervous when they were a kid"
        );
    }

    #[test]
    fn a_lead_in_moves_after_the_statement() {
        assert_eq!(
            rw("Last Sunday I hiked up Ben Nevis"),
            "Hiked up Ben Nevis last Sunday"
        );
        assert_eq!(
            rw("At the moment I am fixing a flaky login test"),
            "Is fixing a flaky login test at the moment"
        );
        assert_eq!(rw("Yesterday, I ran 10k"), "Ran 10k yesterday");
    }

    #[test]
    fn we_is_the_user_with_others() {
        assert_eq!(rw("we adopted a dog"), "The user and others adopted a dog");
        assert_eq!(
            rw("We went camping with our kids"),
            "The user and others went camping with their kids"
        );
    }

    #[test]
    fn no_subject_or_unknown_verb_gives_nothing() {
        assert_eq!(third_person_clause("The store is doing great"), None);
        assert_eq!(third_person_clause("Honestly the weather I hate"), None);
        assert_eq!(third_person_clause("I zorbled the fnord"), None);
    }
}

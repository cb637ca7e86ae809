//! Notes: a statement that already stands alone, kept in its own words, and
//! who it is about.
//!
//! An agent writes memory as notes: third person, one fact a sentence, with
//! names ("The user is vegetarian.", "User's partner Marco is a chef.",
//! "Caroline joined an activist group last Tuesday."). Such a sentence is
//! never retold: engram reads who it is about (the user, by "the user", "user's"
//! or one of the user's own names; else the person it opens with) and what it
//! is a value of ([`attributes`]), and keeps the words as they are. Only a
//! sentence that states two values ("The user is vegetarian and lives in
//! Lisbon.") is cut in two, each part keeping its subject, so that each value
//! can change on its own.

use crate::models::attributes::{self, Reading};
use crate::models::lexicon::{self, VerbForm};

/// A statement kept in its own words.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// The words, as written.
    pub content: String,
    /// `user`, or the lowercase first name of the person it is about.
    pub subject: String,
    /// What it is a value of, when it says one.
    pub reading: Option<Reading>,
    /// For a statement that something is over ("The user is no longer
    /// vegetarian."): what it ends, as a statement ("The user is vegetarian.").
    pub ends: Option<String>,
    /// `event` for what happened (a verb in the past), else the attribute's
    /// category, else `attribute`.
    pub category: &'static str,
}

/// Who a sentence is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum About {
    /// The user, named in the third person.
    User,
    /// Someone else, by name (as written).
    Person(String),
    /// Nobody named: a thing, a rule, an event.
    Unnamed,
}

/// Words that open a sentence capitalised without being a name.
const NOT_NAMES: &[&str] = &[
    "i",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "there",
    "here",
    "he",
    "she",
    "they",
    "we",
    "you",
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "his",
    "her",
    "their",
    "today",
    "yesterday",
    "tomorrow",
    "everyone",
    "everybody",
    "nobody",
    "someone",
    "somebody",
    "everything",
    "nothing",
    "something",
    "life",
    "work",
    "who",
    "what",
    "when",
    "where",
    "why",
    "how",
    "if",
    "then",
    "so",
    "and",
    "but",
    "also",
    "now",
    "after",
    "before",
    "since",
    "during",
    "while",
    "last",
    "next",
    "every",
    "each",
    "some",
    "all",
    "both",
    "many",
    "most",
    "one",
    "two",
    "no",
    "not",
    "never",
    "always",
    "sometimes",
    "please",
    "remember",
    "note",
    "don't",
    "do",
    "does",
    "did",
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "can",
    "could",
    "will",
    "would",
    "should",
    "may",
    "might",
    "must",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "on",
    "in",
    "at",
    "for",
    "with",
    "from",
    "by",
    "as",
    "of",
    "to",
    "user",
    "user's",
    "users",
];

fn word(token: &str) -> String {
    token
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .replace('’', "'")
}

/// Who the sentence is about: "The user …", "User's …" and the user's own
/// names (`user_names`, lowercase) are the user; a capitalised name that
/// opens the sentence, followed by a verb or a possessive, is that person.
pub fn about(sentence: &str, user_names: &[String]) -> About {
    let tokens: Vec<String> = sentence.split_whitespace().map(word).collect();
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    let first = lower.first().map(String::as_str).unwrap_or("");
    let second = lower.get(1).map(String::as_str).unwrap_or("");
    let is_user = |w: &str| matches!(w, "user" | "user's" | "users'");
    if is_user(first) || (first == "the" && is_user(second)) {
        return About::User;
    }
    // The user's own name, one or more words, possibly possessive.
    for name in user_names {
        let parts: Vec<&str> = name.split_whitespace().collect();
        if parts.is_empty() || parts.len() > lower.len() {
            continue;
        }
        let last = parts.len() - 1;
        let same = parts.iter().enumerate().all(|(i, p)| {
            let w = lower[i].as_str();
            w == *p || (i == last && w.strip_suffix("'s") == Some(p))
        });
        if same {
            return About::User;
        }
    }
    let Some(name_token) = tokens.first() else {
        return About::Unnamed;
    };
    let bare = name_token.strip_suffix("'s").unwrap_or(name_token);
    let capitalised = bare.chars().next().is_some_and(char::is_uppercase) && bare.len() > 1;
    if !capitalised || NOT_NAMES.contains(&bare.to_lowercase().as_str()) {
        return About::Unnamed;
    }
    // "Painted a lake", "Running is fun": a verb form, not a name.
    if matches!(
        lexicon::verb(bare),
        Some((_, VerbForm::Past | VerbForm::Participle | VerbForm::Third))
    ) {
        return About::Unnamed;
    }
    let possessive = name_token.ends_with("'s");
    // The name may go on: "Ana Silva moved …".
    let mut next = 1;
    while !possessive
        && next < tokens.len().min(3)
        && tokens[next].chars().next().is_some_and(char::is_uppercase)
        && !NOT_NAMES.contains(&lower[next].as_str())
    {
        if let Some(last) = tokens[next].strip_suffix("'s") {
            return About::Person(format!("{} {last}", tokens[..next].join(" ")));
        }
        next += 1;
    }
    let bare = if possessive {
        bare.to_string()
    } else {
        tokens[..next].join(" ")
    };
    let verb_follows = lower.get(next).is_some_and(|w| {
        matches!(
            w.as_str(),
            "and" | "also" | "now" | "just" | "recently" | "still" | "often"
        ) || lexicon::verb(w).is_some()
            || lexicon::is_adverb(w)
    });
    if possessive || verb_follows {
        About::Person(bare.to_string())
    } else {
        About::Unnamed
    }
}

/// The subject name of a person or an organisation: a name, lowercase, its
/// words joined by hyphens ("Caroline" → `caroline`, "Acme Corp" →
/// `acme-corp`).
pub fn subject_of(name: &str) -> String {
    name.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

/// Reads a sentence that stands alone (no first-person subject) as one note,
/// or two when it states two values joined by "and".
pub fn read(sentence: &str, user_names: &[String]) -> Vec<Note> {
    let sentence = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
    let about = about(&sentence, user_names);
    let subject = match &about {
        About::Person(name) => subject_of(name),
        About::User | About::Unnamed => "user".to_string(),
    };
    let parts = split_values(&sentence);
    parts
        .into_iter()
        .map(|content| note(content, &subject))
        .collect()
}

fn note(content: String, subject: &str) -> Note {
    let reading = attributes::read(&content);
    let ends = reading
        .as_ref()
        .filter(|r| r.negated && r.ended)
        .map(|_| without_negation(&content));
    // A value is a fact however it is told ("moved to Porto" says where
    // they live now); anything else in the past is what happened.
    let category = match &reading {
        Some(r) => r.category,
        None if is_past(&content) => "event",
        None => "attribute",
    };
    Note {
        content,
        subject: subject.to_string(),
        reading,
        ends,
        category,
    }
}

/// Whether the first verb of the statement is in the past: what happened.
fn is_past(content: &str) -> bool {
    for w in content.split_whitespace().skip(1).take(6) {
        let w = word(w).to_lowercase();
        match w.as_str() {
            "was" | "were" => return true,
            "is" | "are" | "has" | "have" | "does" | "do" | "will" | "can" => return false,
            _ => {}
        }
        if let Some((_, form)) = lexicon::verb(&w) {
            match form {
                VerbForm::Past => return true,
                VerbForm::Third | VerbForm::Modal => return false,
                _ => {}
            }
        }
    }
    false
}

/// "The user is vegetarian and lives in Lisbon." → "The user is vegetarian."
/// and "The user lives in Lisbon.": cut only where both sides state a value,
/// of two different attributes; anything else stays whole.
fn split_values(sentence: &str) -> Vec<String> {
    let Some((subject_end, _)) = sentence
        .split_whitespace()
        .enumerate()
        .skip(1)
        .find(|(_, w)| lexicon::verb(&word(w).to_lowercase()).is_some())
    else {
        return vec![sentence.to_string()];
    };
    let subject: String = sentence
        .split_whitespace()
        .take(subject_end)
        .collect::<Vec<_>>()
        .join(" ");
    let ending = |s: &str| {
        if s.ends_with(['.', '!']) {
            s.to_string()
        } else {
            format!("{s}.")
        }
    };
    for sep in [", and ", " and "] {
        let mut search = 0;
        while let Some(i) = sentence[search..].find(sep).map(|i| i + search) {
            search = i + sep.len();
            let (left, right) = (&sentence[..i], &sentence[i + sep.len()..]);
            let first_right = right
                .split_whitespace()
                .next()
                .map(word)
                .unwrap_or_default();
            let verb = matches!(
                lexicon::verb(&first_right.to_lowercase()),
                Some((_, VerbForm::Third | VerbForm::Past))
            );
            if !verb {
                continue;
            }
            let right_full = format!("{subject} {right}");
            let (Some(a), Some(b)) = (attributes::read(left), attributes::read(&right_full)) else {
                continue;
            };
            if a.key == b.key {
                continue;
            }
            let mut out = vec![ending(left)];
            out.extend(split_values(&right_full));
            return out;
        }
    }
    vec![sentence.to_string()]
}

/// The statement a negation ends: "The user is no longer vegetarian." →
/// "The user is vegetarian."
pub fn without_negation(content: &str) -> String {
    let words: Vec<&str> = content.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    // Punctuation that ended a dropped word ends the word before it.
    let keep_tail = |out: &mut Vec<String>, dropped: &str| {
        let tail: String = dropped
            .chars()
            .skip_while(|c| c.is_alphanumeric())
            .collect();
        if let Some(last) = out.last_mut() {
            last.push_str(&tail);
        }
    };
    let core = |w: &str| {
        w.to_lowercase()
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_string()
    };
    let mut i = 0;
    while i < words.len() {
        let this = core(words[i]);
        let next = words.get(i + 1).map(|w| core(w)).unwrap_or_default();
        if (this == "no" && next == "longer") || (this == "any" && next == "more") {
            keep_tail(&mut out, words[i + 1]);
            i += 2;
        } else if matches!(this.as_str(), "not" | "anymore") {
            keep_tail(&mut out, words[i]);
            i += 1;
        } else {
            out.push(words[i].to_string());
            i += 1;
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_a_note_is_about() {
        let ana = vec!["ana".to_string()];
        assert_eq!(about("The user is vegetarian.", &[]), About::User);
        assert_eq!(about("User's partner Marco is a chef.", &[]), About::User);
        assert_eq!(
            about("Ana prefers dark mode in every editor.", &ana),
            About::User
        );
        assert_eq!(about("Ana's sister lives in Faro.", &ana), About::User);
        assert_eq!(
            about("Caroline attended an LGBTQ support group recently.", &ana),
            About::Person("Caroline".into())
        );
        assert_eq!(
            about("Melanie's kids love pottery.", &[]),
            About::Person("Melanie".into())
        );
        assert_eq!(
            about("The deploy key rotates monthly.", &[]),
            About::Unnamed
        );
        assert_eq!(about("Painted a lake sunrise.", &[]), About::Unnamed);
        assert_eq!(about("Yesterday was fun.", &[]), About::Unnamed);
    }

    #[test]
    fn a_note_keeps_its_words() {
        let notes = read(
            "Caroline joined a new LGBTQ activist group called 'Connected LGBTQ Activists' last Tuesday.",
            &[],
        );
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].subject, "caroline");
        assert_eq!(notes[0].category, "event");
        assert!(
            notes[0]
                .content
                .contains("joined a new LGBTQ activist group")
        );
        let n = read(
            "Melanie considers it both a sanctuary and a source of comfort.",
            &[],
        );
        assert_eq!(n.len(), 1);
        assert_eq!(
            n[0].content,
            "Melanie considers it both a sanctuary and a source of comfort."
        );
    }

    #[test]
    fn two_values_are_two_notes() {
        let notes = read("The user is vegetarian and lives in Lisbon.", &[]);
        let contents: Vec<&str> = notes.iter().map(|n| n.content.as_str()).collect();
        assert_eq!(
            contents,
            ["The user is vegetarian.", "The user lives in Lisbon."]
        );
        assert_eq!(notes[0].reading.as_ref().unwrap().key, "diet");
        assert_eq!(notes[1].reading.as_ref().unwrap().key, "residence");
    }

    #[test]
    fn an_ending_names_what_it_ends() {
        let n = &read("The user is no longer vegetarian.", &[])[0];
        assert_eq!(n.ends.as_deref(), Some("The user is vegetarian."));
        assert_eq!(
            without_negation("Is not vegetarian anymore"),
            "Is vegetarian"
        );
    }
}

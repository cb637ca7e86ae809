//! Patterns: what repeated episodes say about a habit ("Ran 5k this morning"
//! ×3 → "Runs 5k regularly"), as pure text functions.
//!
//! A pattern is made only when it is a well-formed sentence built from the
//! episodes' own words: the first word is a past-tense verb put in the present
//! (third person), the time cues are dropped as whole words ("this morning",
//! "again", "on Monday"), nothing is glued or cut, and "regularly" ends it.
//! An episode that cannot be read that way ("Bug 353 reproduced on staging":
//! no verb first) gives no pattern. A group of episodes gives one only when
//! enough of them support the same sentence and none contradicts another
//! ("dark mode" and "light mode", "did" and "did not").

use std::collections::HashSet;

use crate::models::lexicon::{self, VerbForm};
use crate::models::rules;

/// Text of an episode without a trailing time cue in parentheses ("(yesterday)").
pub fn without_time(content: &str) -> String {
    let mut s = content.trim().to_string();
    if let Some(i) = s.rfind(" (").filter(|_| s.ends_with(')')) {
        s.truncate(i);
    }
    s
}

/// Words ending in -ed that open an episode as adjectives or nouns, not
/// verbs ("Tired after the run"): no pattern.
const NOT_VERBS: &[&str] = &[
    "tired",
    "excited",
    "worried",
    "stressed",
    "bored",
    "interested",
    "scared",
    "annoyed",
    "exhausted",
    "frustrated",
    "disappointed",
    "pleased",
    "married",
    "engaged",
    "retired",
    "supposed",
    "based",
    "located",
    "related",
    "relaxed",
    "amazed",
    "surprised",
    "confused",
    "embarrassed",
    "motivated",
    "overwhelmed",
    "delighted",
    "thrilled",
    "satisfied",
    "convinced",
    "determined",
    "unemployed",
    "employed",
    "allergic",
    "shed",
    "hundred",
    "red",
];

/// The third-person present of a past-tense verb ("Ran" → "runs", "Cooked" →
/// "cooks", "Studied" → "studies"); `None` when the word is not one.
pub fn present_of_past(word: &str) -> Option<String> {
    let lower = word.to_lowercase();
    if lower.len() < 3 || !lower.bytes().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    if NOT_VERBS.contains(&lower.as_str()) {
        return None;
    }
    match lexicon::verb(&lower) {
        Some((base, VerbForm::Past | VerbForm::Participle)) => Some(lexicon::third_person(&base)),
        _ => None,
    }
}

const DAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "weekend",
];
const PARTS_OF_DAY: &[&str] = &["morning", "afternoon", "evening", "night"];

/// A word as compared: lowercase, without surrounding punctuation.
fn bare(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// The words without their time cues, each kept whole: "5k this morning" →
/// "5k", "on staging" stays, "on Monday evening" goes.
fn without_time_words<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = bare(words[i]);
        let next = words.get(i + 1).map(|n| bare(n)).unwrap_or_default();
        let is_day = |s: &str| DAYS.contains(&s);
        let is_part = |s: &str| PARTS_OF_DAY.contains(&s);
        let is_span = |s: &str| is_day(s) || is_part(s) || s == "week";
        // How many words from here make a time cue.
        let cue = match w.as_str() {
            "yesterday" | "today" | "tonight" | "again" | "earlier" => 1,
            "this" | "last" if is_span(&next) => 2,
            "on" if is_day(&next) => 2,
            "before" | "after" if next == "work" => 2,
            _ => 0,
        };
        if cue == 0 {
            out.push(words[i]);
            i += 1;
            continue;
        }
        i += cue;
        // "yesterday morning", "on Monday evening", "this Sunday night".
        while i < words.len() && is_part(&bare(words[i])) {
            i += 1;
        }
    }
    out
}

/// First-person words in the third person ("my dog" → "their dog").
fn third_person_word(word: &str) -> &str {
    match word {
        "my" | "our" => "their",
        "me" | "us" => "them",
        "myself" | "ourselves" => "themselves",
        "mine" | "ours" => "theirs",
        "I" | "we" => "they",
        other => other,
    }
}

/// The present-tense pattern an episode stands for: "Ran 5k this morning" →
/// "Runs 5k regularly". `None` when the episode does not open with a
/// past-tense verb or holds more than one sentence: no well-formed pattern.
pub fn pattern_text(episode: &str) -> Option<String> {
    let base = without_time(episode);
    let base = base.trim().trim_end_matches(['.', '!']);
    if base.contains(['\n', ';', '?']) || base.contains(". ") || base.contains("! ") {
        return None;
    }
    let mut words: Vec<&str> = base.split_whitespace().collect();
    if words.first() == Some(&"I") {
        words.remove(0);
    }
    let (verb, rest) = words.split_first()?;
    let present = present_of_past(verb)?;
    let mut out = vec![{
        let mut c = present.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    }];
    let rest = without_time_words(rest);
    for (i, w) in rest.iter().enumerate() {
        let w = third_person_word(w);
        let w = if i + 1 == rest.len() {
            w.trim_end_matches([',', ':', '-'])
        } else {
            w
        };
        if !w.is_empty() {
            out.push(w.to_string());
        }
    }
    out.push("regularly".into());
    Some(out.join(" "))
}

/// Words of a text as compared for support and contradiction: lowercase,
/// without time cues or articles.
fn words_of(text: &str) -> Vec<String> {
    let base = without_time(text);
    let words: Vec<&str> = base.split_whitespace().collect();
    without_time_words(&words)
        .into_iter()
        .map(bare)
        .filter(|w| !w.is_empty() && !matches!(w.as_str(), "a" | "an" | "the"))
        .collect()
}

/// Pairs of words that say opposite things.
const OPPOSITES: &[(&str, &str)] = &[
    ("dark", "light"),
    ("on", "off"),
    ("early", "late"),
    ("hot", "cold"),
    ("warm", "cold"),
    ("more", "less"),
    ("like", "dislike"),
    ("likes", "dislikes"),
    ("liked", "disliked"),
    ("love", "hate"),
    ("loves", "hates"),
    ("loved", "hated"),
    ("start", "stop"),
    ("started", "stopped"),
    ("win", "lose"),
    ("won", "lost"),
    ("open", "closed"),
    ("opened", "closed"),
    ("with", "without"),
    ("always", "never"),
    ("fast", "slow"),
    ("passed", "failed"),
    ("succeeded", "failed"),
    ("good", "bad"),
    ("better", "worse"),
    ("enabled", "disabled"),
    ("accepted", "rejected"),
    ("increased", "decreased"),
    ("yes", "no"),
    ("true", "false"),
    ("tabs", "spaces"),
    ("vim", "emacs"),
];

/// Whether a text denies what it says ("did not", "never", "didn't").
fn negated(text: &str) -> bool {
    text.split_whitespace().any(|w| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
            .to_lowercase();
        matches!(
            w.as_str(),
            "not" | "never" | "no" | "nothing" | "none" | "cannot" | "nobody"
        ) || w.ends_with("n't")
            || w.ends_with("n’t")
    })
}

/// Whether two episodes contradict each other: one denies what the other
/// says, they differ by a pair of opposite words, or they give one attribute
/// two values.
pub fn contradicts(a: &str, b: &str) -> bool {
    if negated(a) != negated(b) {
        return true;
    }
    let (wa, wb): (HashSet<String>, HashSet<String>) = (
        words_of(a).into_iter().collect(),
        words_of(b).into_iter().collect(),
    );
    let only_a: HashSet<&String> = wa.difference(&wb).collect();
    let only_b: HashSet<&String> = wb.difference(&wa).collect();
    let has = |set: &HashSet<&String>, w: &str| set.iter().any(|x| x.as_str() == w);
    if OPPOSITES
        .iter()
        .any(|(x, y)| (has(&only_a, x) && has(&only_b, y)) || (has(&only_a, y) && has(&only_b, x)))
    {
        return true;
    }
    let attr = |t: &str| rules::classify(&without_time(t)).and_then(|(_, a)| a);
    matches!((attr(a), attr(b)), (Some(x), Some(y)) if x.key == y.key && x.value != y.value)
}

/// The pattern a group of similar episodes supports, with the episodes that
/// support it (indexes into `episodes`): the sentence whose words the most
/// episodes hold (the more specific one on a tie), if at least `min` do.
/// `None` when two episodes contradict each other or no sentence has the
/// support.
pub fn pattern_of(episodes: &[&str], min: usize) -> Option<(String, Vec<usize>)> {
    for (i, a) in episodes.iter().enumerate() {
        if episodes[i + 1..].iter().any(|b| contradicts(a, b)) {
            return None;
        }
    }
    let phrases: Vec<Option<String>> = episodes.iter().map(|e| pattern_text(e)).collect();
    let words = |p: &str| -> HashSet<String> {
        rules::norm(p.trim_end_matches(" regularly"))
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut best: Option<(String, Vec<usize>, usize)> = None;
    for phrase in phrases.iter().flatten() {
        let need = words(phrase);
        let support: Vec<usize> = phrases
            .iter()
            .enumerate()
            .filter(|(_, p)| p.as_deref().is_some_and(|p| need.is_subset(&words(p))))
            .map(|(i, _)| i)
            .collect();
        let better = match &best {
            None => true,
            Some((_, s, n)) => {
                support.len() > s.len() || (support.len() == s.len() && need.len() > *n)
            }
        };
        if better {
            best = Some((phrase.clone(), support, need.len()));
        }
    }
    best.filter(|(_, support, _)| support.len() >= min)
        .map(|(phrase, support, _)| (phrase, support))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_read_in_the_present() {
        let p = |e: &str| pattern_text(e);
        assert_eq!(
            p("Ran 5k this morning").as_deref(),
            Some("Runs 5k regularly")
        );
        assert_eq!(
            p("Went swimming at the lido (yesterday)").as_deref(),
            Some("Goes swimming at the lido regularly")
        );
        assert_eq!(
            p("Baked sourdough bread again").as_deref(),
            Some("Bakes sourdough bread regularly")
        );
        assert_eq!(
            p("Studied Japanese after work").as_deref(),
            Some("Studies Japanese regularly")
        );
        assert_eq!(
            p("I walked my dog on Sunday morning.").as_deref(),
            Some("Walks their dog regularly")
        );
    }

    #[test]
    fn no_word_is_glued_or_cut() {
        // "on staging" is a place, not a time: it stays, with its spaces.
        assert_eq!(
            pattern_text("Reproduced bug 353 on staging").as_deref(),
            Some("Reproduces bug 353 on staging regularly")
        );
        assert_eq!(
            pattern_text("Deployed the API on Friday evening").as_deref(),
            Some("Deploys the API regularly")
        );
        assert_eq!(
            pattern_text("Called the office last week").as_deref(),
            Some("Calls the office regularly")
        );
    }

    #[test]
    fn no_pattern_without_a_past_tense_verb_first() {
        for episode in [
            "Bug 353 reproduced on staging",
            "Lives in Lisbon",
            "Tired after the long run",
            "Works at Acme Corp in the finance team",
            "Ran 5k. Felt great afterwards",
            "",
        ] {
            assert_eq!(pattern_text(episode), None, "{episode}");
        }
    }

    #[test]
    fn past_tenses_become_present() {
        for (past, present) in [
            ("cooked", "cooks"),
            ("stopped", "stops"),
            ("moved", "moves"),
            ("hoped", "hopes"),
            ("visited", "visits"),
            ("opened", "opens"),
            ("watched", "watches"),
            ("played", "plays"),
            ("danced", "dances"),
            ("celebrated", "celebrates"),
            ("decided", "decides"),
            ("shared", "shares"),
            ("joined", "joins"),
            ("raised", "raises"),
            ("needed", "needs"),
            ("agreed", "agrees"),
            ("travelled", "travels"),
            ("called", "calls"),
            ("missed", "misses"),
            ("added", "adds"),
            ("fixed", "fixes"),
            ("settled", "settles"),
            ("hiked", "hikes"),
            ("used", "uses"),
            ("managed", "manages"),
            ("developed", "develops"),
            ("tried", "tries"),
            ("climbed", "climbs"),
            ("attended", "attends"),
            ("practiced", "practices"),
            ("practised", "practises"),
            ("Swam", "swims"),
        ] {
            assert_eq!(present_of_past(past).as_deref(), Some(present), "{past}");
        }
        for word in ["Bug", "tired", "red", "need", "shed", "5k", "runs"] {
            assert_eq!(present_of_past(word), None, "{word}");
        }
    }

    #[test]
    fn opposite_episodes_contradict() {
        assert!(contradicts(
            "Switched the editor to dark mode",
            "Switched the editor to light mode"
        ));
        assert!(contradicts(
            "Ran 5k this morning",
            "Did not run 5k this morning"
        ));
        assert!(contradicts("Lives in Lisbon", "Lives in Porto"));
        assert!(!contradicts("Ran 5k this morning", "Ran 5k before work"));
        assert!(!contradicts("Ran 5k along the river", "Ran 5k in the park"));
    }

    #[test]
    fn a_group_gives_the_pattern_enough_of_it_supports() {
        let (p, support) = pattern_of(
            &[
                "Ran 5k along the river this morning",
                "Ran 5k in the park",
                "Ran 5k again",
            ],
            3,
        )
        .unwrap();
        assert_eq!(p, "Runs 5k regularly");
        assert_eq!(support, vec![0, 1, 2]);
        let (p, _) = pattern_of(
            &[
                "Swam 1km at the lido",
                "Swam 1km at the lido yesterday",
                "Swam 1km at the lido again",
            ],
            3,
        )
        .unwrap();
        assert_eq!(p, "Swims 1km at the lido regularly");
        // Dark and light: no pattern, whichever is more frequent.
        assert_eq!(
            pattern_of(
                &[
                    "Switched the editor to dark mode",
                    "Switched the editor to dark mode again",
                    "Switched the editor to light mode",
                    "Switched the editor to dark mode this morning",
                ],
                3
            ),
            None
        );
        // Two of three say the lido: not enough for a pattern of three.
        assert_eq!(
            pattern_of(
                &[
                    "Swam at the lido",
                    "Swam at the lido",
                    "Reproduced it at the lido"
                ],
                3
            ),
            None
        );
    }
}

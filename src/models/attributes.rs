//! Attributes: what a statement is a value of, read from ordinary language in
//! any person.
//!
//! "I live in Lisbon", "The user lives in Lisbon", "Caroline moved to Boston"
//! and a stored "Lives in Lisbon" all state a `residence`; "my new girlfriend
//! is Clara" and "my girlfriend's name is Ines" both state a `partner`. The
//! ways of saying each attribute are a word list, `data/lexicon/attributes.txt`
//! (see its header): a cue, the attribute it names and where its value is. A
//! new phrasing is a new line there, not new code. Verbs in a cue are matched
//! through the [`lexicon`], so one line covers every form of the verb.
//!
//! Only a current value counts: a cue behind "to", a modal or "if" ("plans to
//! move to Rome") is a plan, and a cue marked present-only is not read in the
//! past ("lived in Berlin"). A negation ("no longer", "not … any more") is read
//! too: the value is then one the subject no longer has.

use std::sync::OnceLock;

use crate::models::lexicon::{self, VerbForm};

const LIST: &str = include_str!("../../data/lexicon/attributes.txt");

/// What a statement says a value of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// `residence`, `partner`, `sister:lena`, `preference:coffee`,
    /// `favorite:band`, `code:gate code`…
    pub key: String,
    /// The value, in its comparable form (lowercase, no articles).
    pub value: String,
    /// The statement says the subject no longer has (or does not have) it.
    pub negated: bool,
    /// The negation says a change: "no longer", "not … any more", "stopped".
    pub ended: bool,
    /// The category the attribute belongs to (SPEC: record categories).
    pub category: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    After,
    Org,
    Before,
    State,
    Name,
    Code,
    Years,
    Turned,
    Likes,
    Dislikes,
    Favorite,
}

struct Cue {
    key: String,
    many: bool,
    how: How,
    words: Vec<String>,
    /// Not read in the past tense ("~live in": "lived in Berlin" is no
    /// current residence).
    present_only: bool,
}

fn cues() -> &'static [Cue] {
    static CUES: OnceLock<Vec<Cue>> = OnceLock::new();
    CUES.get_or_init(|| {
        let mut out = Vec::new();
        for line in LIST.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(key), Some(how)) = (parts.next(), parts.next()) else {
                continue;
            };
            let rest = parts.collect::<Vec<_>>().join(" ");
            let how = match how {
                "after" => How::After,
                "org" => How::Org,
                "before" => How::Before,
                "state" => How::State,
                "name" => How::Name,
                "code" => How::Code,
                "years" => How::Years,
                "turned" => How::Turned,
                "likes" => How::Likes,
                "dislikes" => How::Dislikes,
                "favorite" => How::Favorite,
                other => panic!("attributes.txt: unknown HOW {other:?} in {line:?}"),
            };
            let (key, many) = match key.strip_suffix('+') {
                Some(k) => (k.to_string(), true),
                None => (key.to_string(), false),
            };
            for cue in rest.split('|') {
                let (cue, present_only) = match cue.trim().strip_prefix('~') {
                    Some(c) => (c, true),
                    None => (cue.trim(), false),
                };
                let words: Vec<String> = tokens(cue).into_iter().map(|t| t.low).collect();
                if !words.is_empty() {
                    out.push(Cue {
                        key: key.clone(),
                        many,
                        how,
                        words,
                        present_only,
                    });
                }
            }
        }
        out
    })
}

/// A word of the text: as written, lowercased, and the verb it is a form of.
#[derive(Debug, Clone)]
struct Tok {
    text: String,
    low: String,
    lemma: String,
    form: Option<VerbForm>,
    punct: bool,
}

impl Tok {
    fn is(&self, word: &str) -> bool {
        self.low == word || self.lemma == word
    }

    fn capitalised(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase) && self.text != "I"
    }

    fn has_digit(&self) -> bool {
        self.text.chars().any(|c| c.is_ascii_digit())
    }
}

/// Contractions spelled out, so "isn't" and "is not" read alike.
fn expand(text: &str) -> String {
    let t = text.replace(['\u{2019}', '\u{2018}'], "'");
    let mut out = String::with_capacity(t.len() + 8);
    for word in t.split(' ') {
        let lower = word.to_lowercase();
        let expanded = if lower.starts_with("can't") || lower.starts_with("cannot") {
            Some(format!(
                "can not{}",
                &word[if lower.starts_with("can't") { 5 } else { 6 }..]
            ))
        } else if lower.starts_with("won't") {
            Some(format!("will not{}", &word[5..]))
        } else if let Some(i) = lower.find("n't") {
            Some(format!("{} not{}", &word[..i], &word[i + 3..]))
        } else {
            ["'m", "'re", "'ve", "'ll", "'d"].iter().find_map(|suffix| {
                let i = lower.find(suffix)?;
                let full = match *suffix {
                    "'m" => "am",
                    "'re" => "are",
                    "'ve" => "have",
                    "'ll" => "will",
                    _ => "would",
                };
                Some(format!(
                    "{} {full}{}",
                    &word[..i],
                    &word[i + suffix.len()..]
                ))
            })
        };
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&expanded.unwrap_or_else(|| word.to_string()));
    }
    out
}

fn tokens(text: &str) -> Vec<Tok> {
    let text = expand(text);
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Tok>| {
        if word.is_empty() {
            return;
        }
        // "girlfriend's" is the girlfriend and a possessive.
        let (stem, possessive) = match word.strip_suffix("'s") {
            Some(stem) if !stem.is_empty() => (stem.to_string(), true),
            _ => (word.trim_end_matches('\'').to_string(), false),
        };
        let low = stem.to_lowercase();
        let (lemma, form) = match low.as_str() {
            "was" | "were" | "been" | "being" => ("be".to_string(), Some(VerbForm::Past)),
            _ => match lexicon::verb(&low) {
                Some((base, form)) => (base, Some(form)),
                None => (low.clone(), None),
            },
        };
        out.push(Tok {
            text: stem,
            low,
            lemma,
            form,
            punct: false,
        });
        if possessive {
            out.push(Tok {
                text: "'s".into(),
                low: "'s".into(),
                lemma: "'s".into(),
                form: None,
                punct: false,
            });
        }
        word.clear();
    };
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let inner =
            |c: char| c.is_alphanumeric() || matches!(c, '\'' | '-' | '@' | '+' | '_' | '#');
        // A dot, colon or slash inside a number or an address stays in it.
        let joins = matches!(c, '.' | ':' | '/')
            && !word.is_empty()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric())
            && (word.chars().any(|w| w.is_ascii_digit() || w == '@')
                || chars.get(i + 1).is_some_and(char::is_ascii_digit));
        if inner(c) || joins {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            if !c.is_whitespace() {
                out.push(Tok {
                    text: c.to_string(),
                    low: c.to_string(),
                    lemma: c.to_string(),
                    form: None,
                    punct: true,
                });
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Lowercase words without articles, possessives or punctuation.
fn comparable(toks: &[Tok]) -> String {
    toks.iter()
        .filter(|t| !t.punct && !DETERMINERS.contains(&t.low.as_str()) && t.low != "'s")
        .map(|t| t.low.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

const DETERMINERS: &[&str] = &[
    "a", "an", "the", "my", "our", "their", "his", "her", "your", "its", "this", "that",
];

/// Words that end a value: "Porto for work", "Google as an SRE", "Boston
/// last year".
const BOUNDARIES: &[&str] = &[
    "and",
    "but",
    "or",
    "because",
    "since",
    "for",
    "with",
    "after",
    "before",
    "when",
    "while",
    "where",
    "which",
    "who",
    "whom",
    "that",
    "so",
    "as",
    "until",
    "last",
    "this",
    "next",
    "yesterday",
    "today",
    "tonight",
    "tomorrow",
    "recently",
    "now",
    "again",
    "anymore",
    "any",
    "ago",
    "though",
    "although",
    "if",
    "to",
    "from",
    "during",
    "then",
    "too",
    "also",
    "currently",
    "lately",
    "nowadays",
    "these",
    "earlier",
    "later",
    "soon",
    "once",
    "together",
    "alone",
    "by",
    "about",
    "into",
];

/// Words before a cue that make it something not (yet) true: a plan, a
/// wish, a condition.
const NOT_YET: &[&str] = &[
    "to",
    "will",
    "would",
    "might",
    "may",
    "could",
    "should",
    "if",
    "unless",
    "whether",
    "about",
    "considering",
    "thinking",
    "planning",
    "hoping",
    "wants",
    "want",
    "wanted",
    "wish",
    "hope",
    "dream",
    "dreams",
    "shall",
    "gonna",
    "maybe",
    "perhaps",
];

const NEGATIONS: &[&str] = &["not", "no", "never", "longer"];

/// Words that may stand between a cue's words, or before a state: adverbs
/// and words of degree.
fn skippable(t: &Tok) -> bool {
    !t.punct
        && (matches!(
            t.low.as_str(),
            "now"
                | "still"
                | "also"
                | "really"
                | "currently"
                | "just"
                | "finally"
                | "recently"
                | "back"
                | "over"
                | "officially"
                | "strictly"
                | "fully"
                | "mostly"
                | "totally"
                | "absolutely"
                | "truly"
                | "actually"
                | "basically"
                | "already"
                | "then"
                | "always"
                | "very"
                | "so"
                | "quite"
                | "pretty"
                | "big"
                | "huge"
                | "new"
                | "happily"
                | "proudly"
                | "originally"
                | "mainly"
                | "primarily"
        ) || (lexicon::is_adverb(&t.low) && t.form.is_none()))
}

/// Where a cue that matches at `at` ends, and the words its `*` stood for.
fn matches_at(toks: &[Tok], at: usize, cue: &Cue) -> Option<(usize, Option<(usize, usize)>)> {
    let mut i = at;
    let mut wild = None;
    for (n, w) in cue.words.iter().enumerate() {
        if w == "*" {
            // One to four words, up to the next word of the cue.
            let next = cue.words.get(n + 1)?;
            let stop = (i + 1..(i + 5).min(toks.len()))
                .find(|&j| toks[j].is(next) && toks[i..j].iter().all(|t| !t.punct))?;
            wild = Some((i, stop));
            i = stop;
            continue;
        }
        if n > 0 {
            // One adverb may stand inside a cue: "moved back to", "is really into".
            if toks.get(i).is_some_and(|t| !t.is(w) && skippable(t))
                && toks.get(i + 1).is_some_and(|t| t.is(w))
            {
                i += 1;
            }
        }
        let t = toks.get(i)?;
        if !(t.is(w) || (w == "be" && t.lemma == "be")) {
            return None;
        }
        i += 1;
    }
    Some((i, wild))
}

/// What the statement says a value of: the first attribute its words name,
/// a preference only when nothing else is named, else a thing of the
/// subject's that is something ("my car is a Tesla": `own:car`).
pub fn read(text: &str) -> Option<Reading> {
    read_all(text)
        .into_iter()
        .next()
        .or_else(|| owned_thing(&tokens(text)))
}

/// "my car is a Tesla", "The user's laptop is a ThinkPad": one value of the
/// thing at a time.
fn owned_thing(toks: &[Tok]) -> Option<Reading> {
    let owner = toks
        .iter()
        .take(4)
        .position(|t| matches!(t.low.as_str(), "my" | "our" | "'s" | "their"))?;
    let be = toks[owner + 1..]
        .iter()
        .take(4)
        .position(|t| t.lemma == "be")
        .map(|p| p + owner + 1)?;
    let thing = &toks[owner + 1..be];
    if thing.is_empty()
        || thing
            .iter()
            .any(|t| t.capitalised() || t.low.starts_with("ex-"))
        || thing
            .iter()
            .any(|t| t.punct || t.form.is_some_and(|f| f != VerbForm::Base))
        || matches!(toks[be].form, Some(VerbForm::Past))
    {
        return None;
    }
    let (not_yet, negated) = context(toks, be + 1);
    let value = comparable(phrase_after(toks, be + 1));
    if not_yet || value.is_empty() {
        return None;
    }
    let thing = plain_key(&comparable(thing));
    if thing.is_empty() {
        return None;
    }
    Some(Reading {
        key: format!("own:{thing}"),
        value,
        negated,
        ended: negated && says_ended(toks, be),
        category: "attribute",
    })
}

/// The reading of `key` in the statement, if it states that attribute.
pub fn read_key(text: &str, key: &str) -> Option<Reading> {
    read_all(text).into_iter().find(|r| r.key == key)
}

/// The readings that start at `from` or later, other than preferences.
fn read_all_from(toks: &[Tok], from: usize) -> impl Iterator<Item = ()> + '_ {
    (from..toks.len()).flat_map(move |at| {
        cues().iter().filter_map(move |cue| {
            if matches!(cue.how, How::Likes | How::Dislikes) {
                return None;
            }
            let (end, _) = matches_at(toks, at, cue)?;
            reading(toks, at, end, cue).map(|_| ())
        })
    })
}

/// Every attribute the words name, in the order they are said.
pub fn read_all(text: &str) -> Vec<Reading> {
    let toks = tokens(text);
    let mut out: Vec<(usize, Reading)> = Vec::new();
    for at in 0..toks.len() {
        for cue in cues() {
            let Some((end, wild)) = matches_at(&toks, at, cue) else {
                continue;
            };
            let found = match wild {
                // "calls Galway home": the value is what the `*` stood for.
                Some((from, to)) if cue.how == How::After => {
                    reading(&toks, at, end, cue).map(|mut r| {
                        r.value = comparable(&toks[from..to]);
                        if cue.many {
                            r.key = format!("{}:{}", cue.key, r.value);
                        }
                        r
                    })
                }
                _ => reading(&toks, at, end, cue),
            };
            if let Some(r) = found
                && out.iter().all(|(_, o)| o.key != r.key)
            {
                out.push((at, r));
            }
        }
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, r)| r).collect()
}

fn category_of(key: &str) -> &'static str {
    match key {
        "residence" | "origin" | "name" | "age" | "birthday" => "identity",
        "employer" | "profession" | "team" => "profession",
        "diet" | "preference" | "favorite" => "preference",
        "partner" | "mother" | "father" | "boss" | "sister" | "brother" | "child" | "relative"
        | "friend" | "pet" => "relationship",
        _ => "attribute",
    }
}

/// The start of the clause a token is in: after the last punctuation or
/// clause word before it.
fn clause_start(toks: &[Tok], at: usize) -> usize {
    toks[..at]
        .iter()
        .rposition(|t| {
            t.punct && t.low != "'" && t.low != "-"
                || matches!(
                    t.low.as_str(),
                    "and" | "but" | "while" | "because" | "since" | "although"
                )
        })
        .map_or(0, |i| i + 1)
}

/// Whether what comes before the cue makes it a plan or a wish, and whether
/// it is negated (and says a change).
fn context(toks: &[Tok], at: usize) -> (bool, bool) {
    let start = clause_start(toks, at);
    let before = &toks[start.max(at.saturating_sub(4))..at];
    let not_yet = before.iter().any(|t| NOT_YET.contains(&t.low.as_str()))
        || toks[start..at]
            .iter()
            .any(|t| matches!(t.low.as_str(), "if" | "unless" | "whether"));
    let negated = before.iter().any(|t| NEGATIONS.contains(&t.low.as_str()))
        || before
            .iter()
            .any(|t| matches!(t.lemma.as_str(), "stop" | "quit"));
    (not_yet, negated)
}

/// Whether the statement says the change is over: "no longer", "any more",
/// "stopped".
fn says_ended(toks: &[Tok], at: usize) -> bool {
    let start = clause_start(toks, at);
    toks[start..].iter().enumerate().any(|(i, t)| {
        matches!(t.low.as_str(), "longer" | "anymore")
            || (t.low == "more" && i > 0 && toks[start + i - 1].low == "any")
            || matches!(t.lemma.as_str(), "stop" | "quit")
    })
}

/// The words after a cue, to the end of its phrase.
fn phrase_after(toks: &[Tok], from: usize) -> &[Tok] {
    let mut end = from;
    while let Some(t) = toks.get(end) {
        let time_unit = |t: &Tok| {
            matches!(
                t.low.trim_end_matches('s'),
                "day" | "week" | "month" | "year" | "hour" | "minute" | "decade"
            )
        };
        let number_of_time = t.has_digit() && toks.get(end + 1).is_some_and(time_unit);
        if t.punct && !matches!(t.low.as_str(), "-" | "&" | "'") {
            break;
        }
        if end > from && (BOUNDARIES.contains(&t.low.as_str()) || number_of_time) {
            break;
        }
        // "in 2019": a year is when, not where.
        if end > from
            && t.low == "in"
            && toks
                .get(end + 1)
                .is_some_and(|n| n.text.len() == 4 && n.text.chars().all(|c| c.is_ascii_digit()))
        {
            break;
        }
        end += 1;
    }
    &toks[from..end]
}

/// A name right at `from` (one or two capitalised words), after "named",
/// "called", "is", "'s name is" and the like.
fn name_at(toks: &[Tok], mut from: usize) -> Option<String> {
    let mut steps = 0;
    while let Some(t) = toks.get(from) {
        if t.capitalised() && !t.punct {
            break;
        }
        let bridge = t.low == ","
            || t.low == "'s"
            || t.low == "name"
            || t.lemma == "be"
            || matches!(
                t.low.as_str(),
                "named" | "called" | "now" | "currently" | "new" | "actually"
            );
        if !bridge || steps >= 5 {
            return None;
        }
        steps += 1;
        from += 1;
    }
    let first = toks.get(from)?;
    if !first.capitalised() || NOT_NAMES.contains(&first.text.as_str()) {
        return None;
    }
    let mut name = vec![first.text.clone()];
    if let Some(next) = toks.get(from + 1)
        && next.capitalised()
        && !NOT_NAMES.contains(&next.text.as_str())
    {
        name.push(next.text.clone());
    }
    Some(name.join(" "))
}

const NOT_NAMES: &[&str] = &[
    "I",
    "The",
    "A",
    "An",
    "My",
    "Our",
    "He",
    "She",
    "They",
    "It",
    "This",
    "That",
    "User",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Is",
    "Was",
];

/// Whether the relation at `at` is someone's: "my girlfriend", "the user's
/// partner", "Caroline's new wife"; not "an ex-girlfriend" or "a friend of a
/// friend".
fn possessed(toks: &[Tok], at: usize) -> bool {
    let before = &toks[at.saturating_sub(3)..at];
    // "has a dog named Rex", "adopted a puppy called Bo": theirs too.
    let named_after = toks
        .get(at + 1)
        .is_some_and(|t| matches!(t.low.as_str(), "named" | "called"));
    let owned = before.iter().any(|t| {
        matches!(
            t.low.as_str(),
            "my" | "our" | "his" | "her" | "their" | "'s"
        ) || (named_after
            && matches!(
                t.lemma.as_str(),
                "have" | "adopt" | "get" | "own" | "rescue"
            ))
    });
    let former = before.iter().any(|t| {
        matches!(
            t.low.as_str(),
            "ex" | "former" | "late" | "previous" | "old"
        ) || t.low.starts_with("ex-")
    });
    owned && !former
}

/// Whether someone's relation stands before the cue in its clause: "the
/// user's sister moved to Rome" is the sister's move.
fn relation_before(toks: &[Tok], at: usize) -> bool {
    let start = clause_start(toks, at);
    (start..at).any(|i| {
        let t = &toks[i];
        cues().iter().any(|c| {
            c.how == How::Name
                && c.words.len() == 1
                && c.key != "name"
                && (t.is(&c.words[0]) || t.low.ends_with(&format!("-{}", c.words[0])))
        }) && (possessed(toks, i) || t.low.starts_with("ex-"))
    })
}

fn reading(toks: &[Tok], at: usize, end: usize, cue: &Cue) -> Option<Reading> {
    let (not_yet, negated) = context(toks, at);
    // "is not allergic to": a negation inside the cue.
    let negated = negated
        || (!matches!(cue.how, How::Likes | How::Dislikes)
            && toks[at..end]
                .iter()
                .any(|t| NEGATIONS.contains(&t.low.as_str())));
    if not_yet || (cue.how != How::Name && relation_before(toks, at)) {
        return None;
    }
    let verb_form = toks[at..end].iter().find_map(|t| t.form);
    let past = matches!(verb_form, Some(VerbForm::Past))
        && !toks[..at].iter().rev().take(2).any(|t| t.lemma == "have");
    let mut key = cue.key.clone();
    let value: String = match cue.how {
        How::After => {
            if cue.present_only && past {
                return None;
            }
            // "lives in" past: no longer lives there; "moved to": lives there.
            if past && matches!(cue.words[0].as_str(), "live" | "reside" | "work" | "be") {
                return None;
            }
            // A cue with a `*` gets its value from the caller.
            if cue.words.iter().any(|w| w == "*") {
                return Some(Reading {
                    category: category_of(&cue.key),
                    key,
                    value: String::new(),
                    negated,
                    ended: negated && says_ended(toks, at),
                });
            }
            let v = comparable(phrase_after(toks, end));
            if v.is_empty() {
                return None;
            }
            v
        }
        How::Org => {
            let phrase = phrase_after(toks, end);
            if !phrase.first().is_some_and(Tok::capitalised) || past && cue.present_only {
                return None;
            }
            comparable(phrase)
        }
        How::Before => {
            let start = clause_start(toks, at);
            let from = toks[start..at]
                .iter()
                .rposition(|t| {
                    DETERMINERS.contains(&t.low.as_str()) || t.lemma == "be" || t.lemma == "have"
                })
                .map(|p| start + p + 1)?;
            if at - from > 2 || from == at {
                return None;
            }
            comparable(&toks[from..at])
        }
        How::State => {
            // A linking verb before the state: "is vegan", "went vegan",
            // "eats keto", "works as a nurse", "on a keto diet".
            let start = clause_start(toks, at);
            let mut i = at;
            let mut linked = false;
            while i > start {
                i -= 1;
                let t = &toks[i];
                if t.punct {
                    break;
                }
                if matches!(
                    t.lemma.as_str(),
                    "be" | "become" | "go" | "turn" | "stay" | "remain" | "eat" | "follow" | "get"
                ) || matches!(t.low.as_str(), "as" | "on")
                {
                    // "was a nurse" is no current profession; "went vegan" is.
                    if t.lemma == "be" && matches!(t.form, Some(VerbForm::Past)) && t.low != "been"
                    {
                        return None;
                    }
                    linked = true;
                    break;
                }
                // A relation between: "Nate's friend is a chef" is the friend's.
                if cues()
                    .iter()
                    .any(|c| c.how == How::Name && c.words.len() == 1 && t.is(&c.words[0]))
                {
                    return None;
                }
                let modifier = DETERMINERS.contains(&t.low.as_str())
                    || skippable(t)
                    || t.form.is_none()
                    || matches!(t.form, Some(VerbForm::Past | VerbForm::Participle));
                if !modifier || at - i > 4 {
                    break;
                }
            }
            // A relation before it: "my ex-girlfriend Ines is a chef" is Ines's.
            let relation = toks[start..i].iter().any(|t| {
                cues().iter().any(|c| {
                    c.how == How::Name
                        && c.words.len() == 1
                        && (t.is(&c.words[0]) || t.low.ends_with(&format!("-{}", c.words[0])))
                })
            });
            if !linked || relation {
                return None;
            }
            // The whole noun: "software engineer", "registered nurse".
            let from = toks[i + 1..at]
                .iter()
                .rposition(|t| DETERMINERS.contains(&t.low.as_str()) || skippable(t))
                .map_or(i + 1, |p| i + 1 + p + 1);
            comparable(&toks[from..end])
        }
        How::Name => {
            let verb =
                toks[at].form.is_some() && cue.words.len() == 1 && toks[at].lemma != toks[at].low
                    || cue.words.len() > 1 && cue.words[0] != "name";
            let is_name_key = cue.key == "name";
            if !verb && !is_name_key && !possessed(toks, at) {
                return None;
            }
            name_at(toks, end)?.to_lowercase()
        }
        How::Code => {
            // The thing before the cue is part of the key: "gate code", "wifi
            // password", "phone number".
            let mut from = at;
            while from > 0 && at - from < 2 {
                let t = &toks[from - 1];
                if t.punct
                    || DETERMINERS.contains(&t.low.as_str())
                    || t.low == "'s"
                    || t.lemma == "be"
                    || matches!(
                        t.form,
                        Some(VerbForm::Third | VerbForm::Past | VerbForm::Participle)
                    )
                    || matches!(t.low.as_str(), "new" | "current" | "old")
                {
                    break;
                }
                from -= 1;
            }
            key = format!("{}:{}", cue.key, comparable(&toks[from..end]));
            let v = toks[end..]
                .iter()
                .take(8)
                .take_while(|t| !matches!(t.low.as_str(), "." | ";" | "!" | "?"))
                .find(|t| t.has_digit() || t.text.contains('@'))?;
            v.text.trim_end_matches(['.', ',']).to_lowercase()
        }
        How::Years => {
            let n = toks.get(at.checked_sub(1)?)?;
            if !n.text.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            n.text.clone()
        }
        How::Turned => {
            let n = toks.get(end)?;
            if !n.text.chars().all(|c| c.is_ascii_digit()) || n.text.len() > 3 {
                return None;
            }
            n.text.clone()
        }
        How::Likes | How::Dislikes => {
            let object = phrase_after(toks, end);
            // "loves living in Lisbon": the value is where they live.
            if object
                .first()
                .is_some_and(|t| t.form == Some(VerbForm::Participle) && t.lemma != t.low)
                && read_all_from(toks, end).next().is_some()
            {
                return None;
            }
            let head: Vec<&Tok> = object
                .iter()
                .filter(|t| !DETERMINERS.contains(&t.low.as_str()))
                .take(4)
                .collect();
            if head.is_empty() {
                return None;
            }
            let words: Vec<&str> = head.iter().map(|t| t.low.as_str()).collect();
            key = format!("preference:{}", words.join(" "));
            let likes = (cue.how == How::Likes) != negated;
            return Some(Reading {
                key,
                value: if likes { "likes" } else { "dislikes" }.into(),
                negated: false,
                ended: false,
                category: "preference",
            });
        }
        How::Favorite => {
            // "favourite THING is VALUE".
            let be = toks[end..].iter().take(6).position(|t| t.lemma == "be")? + end;
            let thing: Vec<&str> = toks[end..be]
                .iter()
                .filter(|t| {
                    !t.punct
                        && !matches!(
                            t.low.as_str(),
                            "now"
                                | "currently"
                                | "new"
                                | "these"
                                | "days"
                                | "at"
                                | "the"
                                | "moment"
                        )
                })
                .map(|t| t.low.as_str())
                .collect();
            if thing.is_empty() || toks[end..be].iter().any(|t| t.punct) {
                return None;
            }
            key = format!("favorite:{}", thing.join(" "));
            let v = comparable(phrase_after(toks, be + 1));
            if v.is_empty() {
                return None;
            }
            v
        }
    };
    if value.is_empty() {
        return None;
    }
    if cue.many {
        key = format!("{}:{}", cue.key, value);
    }
    let ended = negated && says_ended(toks, at);
    Some(Reading {
        category: category_of(&cue.key),
        key,
        value,
        negated,
        ended,
    })
}

/// The attribute name without the words that only say its value is recent:
/// "band now" → "band".
pub fn plain_key(key: &str) -> String {
    key.split_whitespace()
        .filter(|w| !matches!(*w, "new" | "now" | "current" | "currently" | "latest"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(text: &str) -> Option<(String, String)> {
        read(text).map(|r| (r.key, r.value))
    }

    fn pair(k: &str, v: &str) -> Option<(String, String)> {
        Some((k.to_string(), v.to_string()))
    }

    #[test]
    fn residence_in_any_person_and_tense_that_means_now() {
        for text in [
            "I live in Lisbon",
            "The user lives in Lisbon.",
            "Lives in Lisbon",
            "Ana is living in Lisbon these days",
            "We moved to Lisbon last year",
            "The user moved back to Lisbon for work.",
        ] {
            assert_eq!(kv(text), pair("residence", "lisbon"), "{text}");
        }
        assert_eq!(
            kv("Caroline moved to New York City in 2021"),
            pair("residence", "new york city")
        );
        assert_eq!(kv("The user plans to move to Rome"), None);
        assert_eq!(kv("I lived in Berlin for five years"), None);
        assert_eq!(
            kv("I've lived in Berlin for five years"),
            pair("residence", "berlin")
        );
    }

    #[test]
    fn partners_by_name_however_said() {
        for text in [
            "my girlfriend's name is Ines",
            "oh and my new girlfriend is Ines",
            "User's partner Ines is a chef.",
            "The user is dating Ines.",
            "I married Ines in June",
            "my girlfriend, Ines, loves karaoke",
        ] {
            assert_eq!(kv(text), pair("partner", "ines"), "{text}");
        }
        assert_eq!(kv("My ex-girlfriend Ines is a chef"), None);
        assert_eq!(kv("I'm single now"), pair("partner", "single"));
        assert_eq!(kv("my sister Lena is a nurse"), pair("sister:lena", "lena"));
    }

    #[test]
    fn diets_and_professions_are_states_of_the_subject() {
        assert_eq!(kv("I eat keto, fyi"), pair("diet", "keto"));
        assert_eq!(
            kv("these days I'm vegan, so no meat or dairy"),
            pair("diet", "vegan")
        );
        assert_eq!(
            kv("The user is now pescatarian (eats fish)."),
            pair("diet", "pescatarian")
        );
        assert_eq!(kv("Nate makes dairy-free ice cream"), None);
        assert_eq!(
            kv("I'm a software engineer"),
            pair("profession", "software engineer")
        );
        assert_eq!(
            kv("Caroline works as a welder"),
            pair("profession", "welder")
        );
        assert_eq!(kv("He was a nurse"), None);
    }

    #[test]
    fn negations_and_endings() {
        let r = read("The user is no longer vegetarian.").unwrap();
        assert_eq!(
            (r.key.as_str(), r.value.as_str(), r.negated, r.ended),
            ("diet", "vegetarian", true, true)
        );
        let r = read("I'm not vegetarian anymore").unwrap();
        assert!(r.negated && r.ended);
        let r = read("I do not like coffee").unwrap();
        assert_eq!(
            (r.key.as_str(), r.value.as_str()),
            ("preference:coffee", "dislikes")
        );
    }

    #[test]
    fn codes_numbers_favourites() {
        assert_eq!(
            kv("the gate code at the farm is 4490"),
            pair("code:gate code", "4490")
        );
        assert_eq!(
            kv("My new phone number is 555-0199."),
            pair("contact:phone number", "555-0199")
        );
        assert_eq!(kv("I'm 34 years old"), pair("age", "34"));
        assert_eq!(kv("I just turned 35"), pair("age", "35"));
        assert_eq!(
            kv("my favourite band now is Blur"),
            pair("favorite:band", "blur")
        );
        assert_eq!(
            kv("Joanna's favorite movie genres are dramas and romcoms"),
            pair("favorite:movie genres", "dramas")
        );
    }

    #[test]
    fn work() {
        assert_eq!(
            kv("The user works at Stripe as an SRE."),
            pair("employer", "stripe")
        );
        assert_eq!(
            kv("I got a job at Acme Corp last week"),
            pair("employer", "acme corp")
        );
        assert_eq!(kv("Caroline joined a new LGBTQ activist group"), None);
    }
}

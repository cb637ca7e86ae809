//! Observe: the built-in rule engine that turns prose into standalone facts.
//!
//! Offline and deterministic. Text is split into sentences and clauses; each
//! clause is normalised (contractions expanded, first person recognised) and
//! matched against rule families in order — residence, work, profession, name,
//! age, diet, allergies, preferences, relationships, other people, events,
//! tasks, habits, beliefs — falling back to a generic first-person rule. Small
//! talk and questions produce nothing. A retraction ("no longer", "not … any
//! more", "forget that …") is the positive clause, classified, with
//! `retraction` set.
//!
//! Facts carry an [`Attribute`] when they state a value of something a person
//! has one of at a time (where they live, their employer, diet, name…), which
//! is what lets reconciliation tell an UPDATE from an ADD. [`classify`] reads
//! the same attributes back from a stored third-person fact ("Lives in
//! Berlin"), so existing records — including hand-written ones — need no extra
//! keys.

use std::sync::OnceLock;

use regex::{Captures, Regex};

use crate::clock::Timestamp;
use crate::models::{attributes, lexicon, notes, rewrite, when};

/// Categories of a fact (SPEC: capture).
pub const CATEGORIES: [&str; 9] = [
    "identity",
    "profession",
    "preference",
    "belief",
    "relationship",
    "attribute",
    "pattern",
    "event",
    "task",
];

/// One standalone fact.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fact {
    /// Third-person, standalone: "Lives in Lisbon".
    pub content: String,
    /// `user` for the speaker, a lowercase first name for other people, a
    /// hyphenated lowercase name for organisations.
    pub subject: String,
    pub category: &'static str,
    pub durability: &'static str,
    pub importance: f64,
    pub attribute: Option<Attribute>,
    /// A retraction of the fact ("I'm not vegetarian any more").
    pub retraction: bool,
    /// The rule family that produced it (for `--explain`).
    pub rule: &'static str,
    /// Someone or something whose current facts end with this one: a pet
    /// that died, a partner left, a topic the speaker asked to forget. The
    /// words every such record mentions.
    pub ends: Option<String>,
    /// The day a time phrase in the statement resolves to ("yesterday").
    pub when: Option<chrono::NaiveDate>,
    /// The words as said, when `content` is the statement they end: "Is not
    /// vegetarian any more" for the retraction of "Is vegetarian".
    pub said: Option<String>,
}

/// What a fact is a value of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// `residence`, `employer`, `diet`, `preference:coffee`, `allergy:peanuts`…
    pub key: String,
    /// The value, normalised for comparison (lowercase, no articles).
    pub value: String,
}

impl Attribute {
    fn new(key: impl Into<String>, value: &str) -> Option<Attribute> {
        Some(Attribute {
            key: key.into(),
            value: norm(value),
        })
    }
}

/// Lowercase words without articles or punctuation: the comparable form.
pub fn norm(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !matches!(w.as_str(), "a" | "an" | "the" | "my" | "their"))
        .collect::<Vec<_>>()
        .join(" ")
}

struct Rule {
    name: &'static str,
    re: Regex,
    build: fn(&Captures) -> Option<Draft>,
}

/// A fact before importance and routing details are settled.
#[derive(Debug, Clone)]
struct Draft {
    content: String,
    category: &'static str,
    durability: &'static str,
    importance: f64,
    attribute: Option<Attribute>,
    subject: Option<String>,
}

fn draft(
    content: String,
    category: &'static str,
    durability: &'static str,
    importance: f64,
) -> Draft {
    Draft {
        content,
        category,
        durability,
        importance,
        attribute: None,
        subject: None,
    }
}

impl Draft {
    fn attr(mut self, attribute: Option<Attribute>) -> Draft {
        self.attribute = attribute;
        self
    }
}

const DIETS: &str = r"vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten[- ]free|dairy[- ]free|lactose[- ]intolerant|kosher|halal|teetotal|sober";
const PROFESSIONS: &str = r"engineer|developer|programmer|doctor|physician|surgeon|nurse|teacher|designer|manager|scientist|lawyer|attorney|accountant|architect|artist|writer|author|student|researcher|consultant|analyst|chef|cook|pilot|dentist|pharmacist|therapist|psychologist|professor|lecturer|journalist|photographer|musician|sre|founder|ceo|cto|cfo|coo|nurse|electrician|plumber|carpenter|mechanic|farmer|firefighter|police officer|officer|soldier|veteran|paramedic|vet|veterinarian|economist|banker|trader|salesperson|marketer|recruiter|librarian|editor|translator|actor|actress|dancer|singer|painter|coach|trainer|barista|waiter|waitress|cashier|administrator|admin|intern|freelancer|entrepreneur|retiree|counselor|counsellor|social worker|data scientist|product manager|tester|statistician|mathematician|physicist|chemist|biologist";
const RELATIONS: &str = r"(?:brother|sister|mother|father|son|daughter)-in-law|step(?:mother|father|son|daughter|sister|brother|mom|dad)|wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|spouse|sister|brother|mother|mom|mum|father|dad|son|daughter|friend|best friend|boss|colleague|coworker|co-worker|manager|cousin|aunt|uncle|grandmother|grandma|grandfather|grandpa|roommate|flatmate|neighbou?r|niece|nephew|kid|child|baby|dog|cat|puppy|kitten|parrot|rabbit|hamster|horse";
const PARTNERS: [&str; 8] = [
    "wife",
    "husband",
    "partner",
    "girlfriend",
    "boyfriend",
    "fiance",
    "fiancee",
    "spouse",
];

/// The name of an attribute without the words that only say its value is
/// recent: "band now" → "band", "new girlfriend" → "girlfriend", "film these
/// days" → "film". Those words never become part of an attribute.
pub fn attribute_name(name: &str) -> String {
    static QUALIFIERS: OnceLock<Regex> = OnceLock::new();
    let re = QUALIFIERS.get_or_init(|| {
        Regex::new(r"(?i)\b(?:brand[- ]new|new|now|current|currently|latest|present|these days|nowadays|right now|at the moment|at present|still)\b").expect("valid regex")
    });
    re.replace_all(name, " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The attribute key of "my <name> is …": a partner word is the partner, any
/// other name is its own attribute.
fn own_attribute_key(name: &str) -> String {
    let plain = name.to_lowercase().replace('é', "e");
    if PARTNERS.contains(&plain.as_str()) {
        "partner".into()
    } else {
        format!("my:{}", norm(name))
    }
}

fn cap(c: &Captures, name: &str) -> String {
    c.name(name)
        .map_or(String::new(), |m| m.as_str().trim().to_string())
}

/// Trailing time and manner phrases that are not part of a value:
/// "Lisbon last year" → "Lisbon".
fn strip_tail(value: &str) -> String {
    static TAIL: OnceLock<Regex> = OnceLock::new();
    let re = TAIL.get_or_init(|| {
        Regex::new(
            r"(?i)\s+(?:now|right now|at the moment|currently|recently|again|anymore|any more|these days|nowadays|for now|too|as well|also|last (?:week|month|year|summer|winter|spring|fall|autumn|weekend|night)|this (?:week|month|year|summer|winter|spring|fall|autumn|weekend)|next (?:week|month|year)|in \d{4}|since .+|a (?:few|couple of) \w+ ago|\d+ \w+ ago|yesterday|today|tonight|for (?:a|an|\d+|a few|several) \w+|because .+|so .+|which .+)$",
        )
        .expect("valid regex")
    });
    let mut v = value
        .trim()
        .trim_end_matches(['.', '!', ',', ';', ':'])
        .to_string();
    loop {
        let next = re.replace(&v, "").to_string();
        if next == v {
            break;
        }
        v = next;
    }
    v.trim().to_string()
}

/// A place: the value up to the first clause or purpose phrase ("Amsterdam for
/// the new job" → "Amsterdam", "Utrecht, not Amsterdam" → "Utrecht").
fn place(value: &str) -> String {
    static CUT: OnceLock<Regex> = OnceLock::new();
    let re = CUT.get_or_init(|| {
        Regex::new(r"(?:,\s+(?:\p{Ll}|(?i:not|but|and|because|since|for|where|which|so)\b)|\s*[(;–]|\s+-\s+|\s+(?i:for|with|to|because|after|since|when|where|while|and|but|so|as|from|until|last|this|next|at the moment|in \d{4})\b).*$").expect("valid regex")
    });
    strip_tail(&re.replace(value.trim(), ""))
}

fn article(noun_phrase: &str) -> &'static str {
    match noun_phrase.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// First-person words inside a value, in the third person.
fn third_person(text: &str) -> String {
    static WORDS: OnceLock<Regex> = OnceLock::new();
    let re = WORDS.get_or_init(|| {
        Regex::new(r"\b(?:my|My|me|Me|myself|I|mine|our|Our|us|we|We)\b").expect("valid regex")
    });
    re.replace_all(text, |c: &Captures| match &c[0] {
        "my" | "My" | "our" | "Our" => "their",
        "me" | "Me" | "us" => "them",
        "myself" => "themselves",
        "mine" => "theirs",
        _ => "they",
    })
    .to_string()
}

/// Upper-cases the first letter.
fn sentence_case(text: &str) -> String {
    rewrite::capitalise(text.trim())
}

/// The third-person singular of an English verb: walk → walks, go → goes,
/// have → has, carry → carries, am → is (the lexicon's), were → was.
fn conjugate(verb: &str) -> String {
    match verb.to_lowercase().as_str() {
        "was" | "were" => "was".into(),
        other => lexicon::third_person(other),
    }
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let r = |name: &'static str, pattern: &str, build: fn(&Captures) -> Option<Draft>| Rule {
            name,
            re: Regex::new(&format!("(?i)^{pattern}$")).unwrap_or_else(|e| panic!("rule {name}: {e}")),
            build,
        };
        vec![
            // Residence.
            r(
                "residence",
                r"(?:i|we) (?:still |now |currently |also )?(?:live|am living|are living|reside|am residing|am based|are based|am staying|have been living|have lived)\s+(?:in|at|near|on|out of) (?P<v>.+)",
                |c| {
                    let v = place(&cap(c, "v"));
                    Some(draft(format!("Lives in {v}"), "attribute", "persistent", 0.7).attr(Attribute::new("residence", &v)))
                },
            ),
            r(
                "residence",
                r"(?:i|we) (?:have |had |just |recently |finally |also )*(?:moved|relocated|am moving|are moving|have moved|emigrated) (?:back |over |out |down |up )?(?:to|into|in) (?P<v>.+)",
                |c| {
                    let v = place(&cap(c, "v"));
                    Some(draft(format!("Lives in {v}"), "attribute", "persistent", 0.75).attr(Attribute::new("residence", &v)))
                },
            ),
            r(
                "residence",
                r"(?:i|we) (?:now )?call (?P<v>.+?) (?:my |our )?home",
                |c| {
                    let v = place(&cap(c, "v"));
                    Some(draft(format!("Lives in {v}"), "attribute", "persistent", 0.7).attr(Attribute::new("residence", &v)))
                },
            ),
            r(
                "residence",
                r"(?:my|our) (?:home ?town|home|city|address) is (?:in )?(?P<v>.+)",
                |c| {
                    let v = place(&cap(c, "v"));
                    Some(draft(format!("Lives in {v}"), "attribute", "persistent", 0.7).attr(Attribute::new("residence", &v)))
                },
            ),
            // Work: employer (and role).
            r(
                "employer",
                r"i (?:currently |now |still |also )?(?:work|am working|have been working|have worked) (?:at|for|with) (?P<org>.+?)(?: as (?P<art>an? )?(?P<role>.+))?",
                |c| employer(&cap(c, "org"), &cap(c, "art"), &cap(c, "role")),
            ),
            r(
                "employer",
                r"i (?:just |recently |finally |have )*(?:joined|started at|started working at|started a new job at|got a job at|got hired at|got hired by|was hired by|am employed by|accepted an offer from|took a job at|started a new (?:position|job|role|gig) (?:at|with)|took a (?:position|role) at|landed a job at|got a new job at|signed with|am now at) (?P<org>.+?)(?: as (?P<art>an? )?(?P<role>.+))?",
                |c| employer(&cap(c, "org"), &cap(c, "art"), &cap(c, "role")),
            ),
            r(
                "employer",
                r"i am (?P<art>an? )?(?P<role>(?:[\w-]+ ){0,3}?(?:PROFESSIONS)) (?:at|for|with) (?P<org>.+)".replace("PROFESSIONS", PROFESSIONS).as_str(),
                |c| employer(&cap(c, "org"), &cap(c, "art"), &cap(c, "role")),
            ),
            // Profession.
            r(
                "profession",
                r"i (?:currently |now |still )?(?:work|am working) as (?P<art>an? )?(?P<v>.+)",
                |c| profession(&cap(c, "art"), &cap(c, "v")),
            ),
            r(
                "profession",
                r"i am (?:now |currently |still |also )?(?P<art>an? )?(?P<v>(?:[\w-]+ ){0,3}?(?:PROFESSIONS))(?: by (?:trade|profession))?".replace("PROFESSIONS", PROFESSIONS).as_str(),
                |c| profession(&cap(c, "art"), &cap(c, "v")),
            ),
            r(
                "profession",
                r"my (?:job|profession|occupation|role|job title) is (?P<art>an? )?(?P<v>.+)",
                |c| profession(&cap(c, "art"), &cap(c, "v")),
            ),
            r(
                "profession",
                r"i (?:got|found|landed|took|started|accepted|have) an? (?:new )?(?:job|position|role|post) as (?P<art>an? )?(?P<v>.+)",
                |c| profession(&cap(c, "art"), &cap(c, "v")),
            ),
            // Identity.
            r(
                "name",
                r"(?:my name is|i am called|i go by|call me|people call me|my name's) (?P<v>[\p{L}'-]+(?: [\p{L}'-]+)?)",
                |c| {
                    let v = strip_tail(&cap(c, "v"));
                    Some(draft(format!("Is named {v}"), "identity", "permanent", 0.85).attr(Attribute::new("name", &v)))
                },
            ),
            r(
                "age",
                r"i am (?:now )?(?P<v>\d{1,3})(?: years? old| yo)?(?: now| today)?",
                |c| {
                    let v = cap(c, "v");
                    Some(draft(format!("Is {v} years old"), "identity", "persistent", 0.6).attr(Attribute::new("age", &v)))
                },
            ),
            r(
                "age",
                r"i (?:just |recently )?turned (?P<v>\d{1,3})(?: years old)?.*",
                |c| {
                    let v = cap(c, "v");
                    Some(draft(format!("Is {v} years old"), "identity", "persistent", 0.6).attr(Attribute::new("age", &v)))
                },
            ),
            r(
                "birthday",
                r"my birthday is (?:on )?(?P<v>.+)",
                |c| {
                    let v = strip_tail(&cap(c, "v"));
                    Some(draft(format!("Birthday is {v}"), "identity", "permanent", 0.7).attr(Attribute::new("birthday", &v)))
                },
            ),
            r(
                "origin",
                r"i (?:am|was born and raised|was born|grew up|come) (?:from|in) (?P<v>.+)",
                |c| {
                    let v = strip_tail(&cap(c, "v"));
                    Some(draft(format!("Is from {v}"), "identity", "permanent", 0.7).attr(Attribute::new("origin", &v)))
                },
            ),
            // Diet.
            r(
                "diet",
                &format!(r"i am (?:now |also |strictly |fully |a |an |becoming |going )*(?P<v>{DIETS})(?: now)?"),
                |c| {
                    let v = cap(c, "v").to_lowercase();
                    Some(draft(format!("Is {v}"), "preference", "persistent", 0.8).attr(Attribute::new("diet", &v)))
                },
            ),
            r(
                "diet",
                &format!(r"i (?:went|have gone|recently went|just went|turned|became|have become) (?P<v>{DIETS})"),
                |c| {
                    let v = cap(c, "v").to_lowercase();
                    Some(draft(format!("Is {v}"), "preference", "persistent", 0.8).attr(Attribute::new("diet", &v)))
                },
            ),
            r(
                "diet",
                r"i (?:do not|never|no longer|stopped|quit|gave up) (?:eat|eating) (?P<v>meat|fish|pork|beef|dairy|eggs|animal products|gluten|sugar|seafood)",
                |c| {
                    let v = cap(c, "v").to_lowercase();
                    Some(draft(format!("Does not eat {v}"), "preference", "persistent", 0.8).attr(Attribute::new(format!("eats:{}", norm(&v)), "no")))
                },
            ),
            // Health.
            r(
                "allergy",
                r"i am (?:severely |very |also |mildly )?allergic to (?P<v>.+)",
                |c| {
                    let v = strip_tail(&cap(c, "v"));
                    Some(draft(format!("Is allergic to {v}"), "attribute", "permanent", 0.85).attr(Attribute::new(format!("allergy:{}", norm(&v)), "yes")))
                },
            ),
            r(
                "allergy",
                r"i have an? (?P<v>[\w -]+?) allergy",
                |c| {
                    let v = strip_tail(&cap(c, "v"));
                    Some(draft(format!("Is allergic to {v}"), "attribute", "permanent", 0.85).attr(Attribute::new(format!("allergy:{}", norm(&v)), "yes")))
                },
            ),
            // Preferences.
            r(
                "favourite",
                r"(?:my|our) (?:all[- ]time )?favou?rite (?P<k>[\w ]+?) (?:is|are) (?P<v>.+)",
                |c| {
                    let (k, v) = (attribute_name(&cap(c, "k")), strip_tail(&cap(c, "v")));
                    if k.is_empty() {
                        return None;
                    }
                    Some(draft(format!("Favorite {} is {}", k.to_lowercase(), third_person(&v)), "preference", "persistent", 0.75).attr(Attribute::new(format!("favorite:{}", norm(&k)), &v)))
                },
            ),
            r(
                "preference",
                r"i (?:really |also |absolutely |truly |still |totally |kind of |kinda )*(?P<verb>like|love|enjoy|adore|prefer|am into|am a fan of|am a big fan of) (?P<v>.+)",
                |c| {
                    let verb = cap(c, "verb").to_lowercase();
                    let v = strip_tail(&cap(c, "v"));
                    let said = match verb.as_str() {
                        "am into" => "Is into".to_string(),
                        "am a fan of" | "am a big fan of" => "Is a fan of".to_string(),
                        other => sentence_case(&conjugate(other)),
                    };
                    Some(draft(format!("{said} {}", third_person(&v)), "preference", "persistent", 0.75).attr(preference_key(&v, "likes")))
                },
            ),
            r(
                "preference",
                r"i (?:really |absolutely |truly |kind of |kinda )*(?P<verb>hate|dislike|detest|loathe|cannot stand|can not stand|am not a fan of|am not a big fan of|am not really a fan of|am not into|do not like|do not enjoy|do not love|do not care for|am tired of|am sick of) (?P<v>.+)",
                |c| {
                    let v = strip_tail(&cap(c, "v"));
                    Some(draft(format!("Dislikes {}", third_person(&v)), "preference", "persistent", 0.75).attr(preference_key(&v, "dislikes")))
                },
            ),
            // Relationships.
            r(
                "relationship",
                r"i (?:am|got|just got|recently got|have gotten) (?P<st>married|engaged) to (?P<name>[\p{L}'-]+(?: [\p{L}'-]+)?)",
                |c| {
                    let name = strip_tail(&cap(c, "name"));
                    let st = cap(c, "st").to_lowercase();
                    Some(draft(format!("Is {st} to {name}"), "relationship", "persistent", 0.8).attr(Attribute::new("partner", &name)))
                },
            ),
            r(
                "relationship",
                r"i am (?:now )?(?P<v>single|married|divorced|separated|widowed|engaged|in a relationship)",
                |c| {
                    let v = cap(c, "v").to_lowercase();
                    Some(draft(format!("Is {v}"), "relationship", "persistent", 0.7).attr(Attribute::new("partner", &v)))
                },
            ),
            r(
                "relationship",
                &format!(r"i (?:have|got|adopted|just got|just adopted|now have) (?:an? |two |three )?(?:new |little |baby |young |older |younger |big |cute |rescue )*(?P<rel>{RELATIONS}) (?:named|called) (?P<name>[\p{{L}}'-]+)(?P<rest>.*)"),
                |c| {
                    let (rel, name) = (cap(c, "rel").to_lowercase(), cap(c, "name"));
                    let rest = strip_tail(&cap(c, "rest"));
                    let rest = match rest.as_str() {
                        "" => String::new(),
                        r if r.starts_with(',') => third_person(r),
                        r => format!(" {}", third_person(r)),
                    };
                    Some(draft(format!("Has {} {rel} named {name}{rest}", article(&rel)), "relationship", "persistent", 0.7).attr(Attribute::new(format!("has:{rel}:{}", norm(&name)), "yes")))
                },
            ),
            // Habits.
            r(
                "pattern",
                r"(?:i|we) (?P<how>usually|always|often|normally|typically|regularly|generally|tend to|like to|every (?:day|morning|evening|night|week|weekend) i) (?P<v>.+)",
                |c| {
                    // The speaker's own adverb, the verb conjugated by the lexicon.
                    let (how, v) = (cap(c, "how").to_lowercase(), cap(c, "v"));
                    let (verb, rest) = v.split_once(' ').unwrap_or((v.as_str(), ""));
                    let said = match how.split_once(' ') {
                        Some(("every", when)) => format!("{} {} every {}", conjugate(verb), third_person(rest), when.trim_end_matches(" i")),
                        Some((lead, to)) => format!("{} {to} {verb} {}", conjugate(lead), third_person(rest)),
                        None => format!("{how} {} {}", conjugate(verb), third_person(rest)),
                    };
                    Some(draft(sentence_case(&said.split_whitespace().collect::<Vec<_>>().join(" ")), "pattern", "persistent", 0.6))
                },
            ),
            r(
                "pattern",
                r"every (?P<when>day|morning|evening|night|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday),? (?:i|we) (?P<v>.+)",
                |c| {
                    let (when, v) = (cap(c, "when").to_lowercase(), cap(c, "v"));
                    let (verb, rest) = v.split_once(' ').unwrap_or((v.as_str(), ""));
                    Some(draft(format!("{} {} every {when}", sentence_case(&conjugate(verb)), third_person(rest)), "pattern", "persistent", 0.6))
                },
            ),
            // Tasks.
            r(
                "task",
                r"(?:i (?P<lead>need|have|want|plan|intend|am going|am planning|am hoping|hope|ought) to|i (?P<modal>must|should|will)|remind me to|do not let me forget to|i have got to|i gotta) (?P<v>.+)",
                |c| {
                    let v = cap(c, "v");
                    // "I'm going to a conference" goes somewhere: no task.
                    let first = v.split_whitespace().next().unwrap_or("");
                    if !lexicon::is_verb_base(first) {
                        return None;
                    }
                    let v = third_person(&v);
                    // "I'll try that": a verb and a pronoun is no task to keep.
                    if content_words(&v) < 2 {
                        return None;
                    }
                    // The speaker's own verb: a need is a task of the session,
                    // a plan or a hope is what they mean to do.
                    let (lead, modal) = (cap(c, "lead").to_lowercase(), cap(c, "modal").to_lowercase());
                    let (said, category, durability) = match (lead.as_str(), modal.as_str()) {
                        ("want", _) => ("Wants to".to_string(), "event", "persistent"),
                        ("plan" | "am planning", _) => ("Plans to".to_string(), "event", "persistent"),
                        ("intend", _) => ("Intends to".to_string(), "event", "persistent"),
                        ("am going", _) => ("Is going to".to_string(), "event", "persistent"),
                        ("hope" | "am hoping", _) => ("Hopes to".to_string(), "event", "persistent"),
                        ("have", _) => ("Has to".to_string(), "task", "session"),
                        ("ought", _) => ("Ought to".to_string(), "task", "session"),
                        (_, "will") => ("Will".to_string(), "event", "persistent"),
                        (_, "must" | "should") => (sentence_case(&modal), "task", "session"),
                        _ => ("Needs to".to_string(), "task", "session"),
                    };
                    Some(draft(format!("{said} {v}"), category, durability, 0.6))
                },
            ),
            // Beliefs.
            r(
                "belief",
                r"i (?:strongly |really |firmly )?(?:believe|think|feel|am convinced) (?:that )?(?P<v>.{8,})",
                |c| Some(draft(format!("Believes {}", third_person(&cap(c, "v"))), "belief", "persistent", 0.55)),
            ),
            // Events: things that happened, told in the past tense.
            r(
                "event",
                r"(?:(?P<pre>yesterday|today|this morning|last (?:night|week|weekend|month|year|summer|winter)|earlier today|on \w+),? )?(?:i|we) (?:just |finally |recently |also )?(?P<verb>went|visited|ran|attended|saw|met|had|finished|completed|bought|watched|read|cooked|baked|travelled|traveled|hiked|flew|drove|celebrated|won|lost|adopted|graduated|got back|came back|returned|started|began|tried|played|painted|wrote|built|launched|shipped|passed|failed|broke|hurt|sprained|booked|signed up for|took|climbed|swam|cycled|biked|competed in|volunteered at|volunteered|spoke at|presented at|gave a talk|got married|got engaged|had a baby|got promoted|got a promotion) (?P<rest>.*)",
                |c| {
                    let verb = cap(c, "verb");
                    let rest = third_person(&cap(c, "rest"));
                    let pre = cap(c, "pre");
                    let when = if pre.is_empty() { String::new() } else { format!(" {}", pre.to_lowercase()) };
                    Some(draft(format!("{} {rest}{when}", sentence_case(&verb)).replace("  ", " ").trim().to_string(), "event", "persistent", 0.65))
                },
            ),
            // Anything else about oneself: "my car is a Tesla".
            r(
                "attribute",
                r"(?:my|our) (?P<k>[\w' ]{2,30}?) (?P<verb>is|are|was|has) (?P<v>.+)",
                |c| {
                    let (k, v) = (attribute_name(&cap(c, "k")), strip_tail(&cap(c, "v")));
                    if k.is_empty() {
                        return None;
                    }
                    let verb = cap(c, "verb").to_lowercase();
                    Some(draft(format!("{} {verb} {}", sentence_case(&k.to_lowercase()), third_person(&v)), "attribute", "persistent", 0.6).attr(Attribute::new(own_attribute_key(&k), &v)))
                },
            ),
            r(
                "attribute",
                r"i have (?P<v>(?:a|an|two|three|four|five|\d+) .+)",
                |c| Some(draft(format!("Has {}", third_person(&strip_tail(&cap(c, "v")))), "attribute", "persistent", 0.6)),
            ),
        ]
    })
}

/// Words that carry content (not function words or pronouns).
fn content_words(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty() && !FUNCTION_WORDS.contains(&w.to_lowercase().as_str()))
        .count()
}

/// Function words, pronouns and auxiliaries: no content of their own.
const FUNCTION_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "not",
    "no",
    "it",
    "it's",
    "that",
    "this",
    "these",
    "those",
    "so",
    "to",
    "of",
    "very",
    "really",
    "just",
    "much",
    "too",
    "my",
    "their",
    "them",
    "me",
    "you",
    "your",
    "about",
    "how",
    "what",
    "there",
    "here",
    "then",
    "now",
    "do",
    "does",
    "did",
    "be",
    "been",
    "is",
    "am",
    "are",
    "was",
    "were",
    "and",
    "or",
    "has",
    "have",
    "had",
    "will",
    "would",
    "can",
    "could",
    "should",
    "they",
    "theirs",
    "themselves",
    "in",
    "on",
    "at",
    "for",
    "with",
    "from",
    "by",
    "as",
    "up",
    "out",
    "some",
    "any",
    "all",
    "i",
    "we",
    "our",
    "us",
    "user",
    "others",
    "when",
    "while",
    "if",
    "because",
    "but",
    "also",
    "still",
    "even",
    "one",
    "get",
    "got",
    "being",
    "into",
    "over",
    "than",
    "which",
    "who",
    "he",
    "she",
    "him",
    "her",
    "his",
];

/// The article the speaker used, else one by spelling ("an SRE" must be kept).
fn article_for<'a>(given: &'a str, noun: &str) -> &'a str {
    match given.trim() {
        "" => article(noun),
        _ => given.trim(),
    }
}

fn employer(org: &str, art: &str, role: &str) -> Option<Draft> {
    let org = place(org);
    if org.is_empty() || norm(&org).is_empty() {
        return None;
    }
    let role = strip_tail(role);
    let content = if role.is_empty() {
        format!("Works at {org}")
    } else {
        format!("Works at {org} as {} {role}", article_for(art, &role))
    };
    Some(draft(content, "profession", "persistent", 0.75).attr(Attribute::new("employer", &org)))
}

fn profession(art: &str, role: &str) -> Option<Draft> {
    let role = strip_tail(role);
    if role.is_empty() {
        return None;
    }
    // "a barista at a little café": a role at a place is an employer.
    if let Some((head, org)) = role.split_once(" at ").or_else(|| role.split_once(" for "))
        && !head.trim().is_empty()
        && content_words(&org.to_lowercase()) >= 1
    {
        return employer(org, art, head);
    }
    Some(
        draft(
            format!("Is {} {role}", article_for(art, &role)),
            "profession",
            "persistent",
            0.7,
        )
        .attr(Attribute::new("profession", &role)),
    )
}

fn preference_key(object: &str, _polarity: &str) -> Option<Attribute> {
    // One key per object: liking and disliking the same thing are two values of
    // one attribute, so a flip is an UPDATE.
    const STOP: [&str; 18] = [
        "when", "if", "because", "since", "while", "but", "and", "for", "at", "on", "in", "with",
        "to", "over", "than", "instead", "during", "whenever",
    ];
    let object = norm(object);
    let head: Vec<&str> = object
        .split(' ')
        .take_while(|w| !STOP.contains(w))
        .take(4)
        .collect();
    Attribute::new(format!("preference:{}", head.join(" ")), _polarity)
}

/// Words of small talk: a sentence made only of these says nothing to remember.
const SMALL_TALK: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "hiya",
    "yo",
    "thanks",
    "thank",
    "you",
    "ok",
    "okay",
    "cool",
    "great",
    "nice",
    "lol",
    "haha",
    "hahaha",
    "good",
    "morning",
    "afternoon",
    "evening",
    "night",
    "bye",
    "goodbye",
    "see",
    "later",
    "soon",
    "sure",
    "yes",
    "yeah",
    "yep",
    "no",
    "nope",
    "awesome",
    "perfect",
    "fine",
    "alright",
    "right",
    "wow",
    "oh",
    "ah",
    "hmm",
    "well",
    "so",
    "how",
    "are",
    "is",
    "it",
    "going",
    "what",
    "up",
    "sounds",
    "cheers",
    "welcome",
    "pleasure",
    "sorry",
    "please",
    "np",
    "ty",
    "thx",
    "much",
    "very",
    "all",
    "the",
    "a",
    "to",
    "meet",
    "nice",
    "glad",
    "hear",
    "that",
    "doing",
    "and",
    "too",
    "again",
    "i",
    "am",
    "i'm",
    "im",
    "totally",
    "agree",
    "exactly",
    "indeed",
    "got",
    "understood",
    "noted",
    "makes",
    "sense",
    "interesting",
    "really",
    "true",
    "for",
    "your",
    "help",
    "appreciate",
    "there",
    "have",
    "day",
    "weekend",
    "take",
    "care",
    "talk",
    "with",
    "me",
];

fn is_small_talk(sentence: &str) -> bool {
    let words: Vec<String> = sentence
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.is_empty() || words.iter().all(|w| SMALL_TALK.contains(&w.as_str()))
}

/// Chat often drops the "I": "Just relocated to Austin!", "Started a new job at
/// Netflix." A sentence that opens with such a verb speaks of the speaker.
fn with_implied_subject(sentence: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:just |recently |finally |also |now |then |currently )*(?P<verb>moved|relocated|started|joined|quit|left|got|went|visited|switched|began|finished|bought|adopted|booked|landed|took|accepted|signed|became|turned|graduated|ran|hiked|flew|had|saw|met|watched|cooked|baked|tried|played|live|work|love|hate|need|living|working|moving|relocating|starting|training|learning|studying)\b").expect("valid regex")
    });
    match re.captures(sentence) {
        // "Currently living in Seattle" → "I am currently living in Seattle".
        Some(c) if c["verb"].to_lowercase().ends_with("ing") => {
            format!("I am {}", rewrite::lower_first(sentence))
        }
        Some(_) => format!("I {}", rewrite::lower_first(sentence)),
        None => {
            // Any verb the lexicon knows in the past or -ing form, opening a
            // sentence that has no subject of its own: "Painted a lake
            // sunrise", "Researching adoption agencies", "going to continue".
            // A gerund that is the subject ("Relaxing is key") is no such verb.
            let mut words = sentence.split_whitespace();
            let first = words
                .next()
                .unwrap_or("")
                .trim_matches(|c: char| !c.is_alphanumeric());
            // "Cooking makes me happy": the verb right after it. "Hoping my
            // screenplay gets noticed and makes it": a verb of its own clause.
            let own_verb = sentence
                .split_whitespace()
                .enumerate()
                .skip(1)
                .any(|(i, w)| {
                    matches!(w, "is" | "are" | "was" | "were" | "has")
                        || (i <= 3 && matches!(w, "makes" | "made"))
                });
            match lexicon::verb(first) {
                Some((_, lexicon::VerbForm::Participle)) if !own_verb => {
                    format!("I am {}", rewrite::lower_first(sentence))
                }
                Some((_, lexicon::VerbForm::Past)) if !own_verb && !first.ends_with("en") => {
                    format!("I {}", rewrite::lower_first(sentence))
                }
                _ => sentence.to_string(),
            }
        }
    }
}

/// Whether a sentence that ends in `?` asks something. "I live in Lisbon,
/// remember?" and "…, right?" are statements with a tag, not questions.
fn is_question(sentence: &str) -> bool {
    // "Can you remember that …?" asks to remember: a statement.
    static REQUEST: OnceLock<Regex> = OnceLock::new();
    let request = REQUEST.get_or_init(|| {
        Regex::new(r"(?i)^(?:can|could|would|will) you (?:please )?(?:remember|note|keep in mind|make a note)").expect("valid regex")
    });
    if request.is_match(sentence.trim()) {
        return false;
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:\w+,\s+)?(?:who|whom|whose|what|which|where|when|why|how|do|does|did|is|are|am|was|were|can|could|would|will|should|shall|may|might|have|has|had|any|anything|tell|remind me what|wanna|want)\b").expect("valid regex")
    });
    re.is_match(sentence.trim()) || sentence.split_whitespace().count() <= 2
}

/// Expands contractions and evens out quotes and spaces.
fn normalise(text: &str) -> String {
    static CONTRACTIONS: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    let table = CONTRACTIONS.get_or_init(|| {
        [
            (r"\b(?i:i)'m\b", "I am"),
            (r"\b(?i:i)'ve\b", "I have"),
            (r"\b(?i:i)'d\b", "I would"),
            (r"\b(?i:i)'ll\b", "I will"),
            (r"\b(?i:we)'re\b", "we are"),
            (r"\b(?i:we)'ve\b", "we have"),
            (r"(?i)\bcan't\b", "cannot"),
            (r"(?i)\bwon't\b", "will not"),
            (r"(?i)\bain't\b", "am not"),
            (
                r"(?i)\b(do|does|did|is|are|was|were|have|has|had|would|should|could)n't\b",
                "$1 not",
            ),
            (r"(?i)\bname's\b", "name is"),
            // "my anniversary's on June 9th": "is", not a possessive.
            (
                r"(?i)\b(my|our) ([a-z]+)'s (on|in|at|a|an|the|\d)",
                "$1 $2 is $3",
            ),
            (r"(?i)\bit's\b", "it is"),
            (r"(?i)\bthat's\b", "that is"),
            (r"(?i)\bim\b", "I am"),
            (r"(?i)\bdont\b", "do not"),
            (r"(?i)\bgonna\b", "going to"),
            (r"(?i)\bwanna\b", "want to"),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(p).expect("valid regex"), r))
        .collect()
    });
    let mut t = text
        .replace(['\u{2019}', '\u{2018}'], "'")
        .replace(['\u{201c}', '\u{201d}'], "\"");
    // "Sarah, my coworker, is …" → "my coworker Sarah is …".
    static APPOSITIVE: OnceLock<Regex> = OnceLock::new();
    let appositive = APPOSITIVE.get_or_init(|| {
        Regex::new(&format!(
            r"\b(?P<name>\p{{Lu}}[\p{{L}}'-]+), (?i:my|our) (?P<rel>(?i:{RELATIONS})),\s+"
        ))
        .expect("valid regex")
    });
    t = appositive.replace_all(&t, "my $rel $name ").to_string();
    for (re, rep) in table {
        t = re.replace_all(&t, *rep).to_string();
    }
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Takes out the words between the subject and the verb that carry nothing
/// ("I really like" → "I like"), so that the rule families read the
/// statement; the words kept are the speaker's, fillers and all.
fn without_fillers(clause: &str) -> String {
    static FILLERS: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    let table = FILLERS.get_or_init(|| {
        [
            (r"\b(I|We|we) (?:actually|really|honestly|basically|definitely|totally|literally|kind of|kinda|sort of|truly|seriously|just|finally|now|currently|still|recently|also) ", "$1 "),
            (r"\b(I|We|we) (am|are) (?:actually|really|honestly|basically|definitely|totally|literally|truly|seriously|also|currently|now|still|just|finally) ", "$1 $2 "),
            (r"(?i)\bI have been (an? |vegetarian|vegan|pescatarian|pescetarian|allergic|married)", "I am $1"),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(p).expect("valid regex"), r))
        .collect()
    });
    let mut t = clause.to_string();
    for (re, rep) in table {
        t = re.replace_all(&t, *rep).to_string();
    }
    t
}

/// Splits text into sentences, keeping whether each was a question.
fn sentences(text: &str) -> Vec<(String, Option<char>)> {
    // An emoticon or an emoji closes what came before it: "morning :) I'm
    // learning…", "Inspiring 💪 I emailed…".
    static EMOTICON: OnceLock<Regex> = OnceLock::new();
    let emoticon = EMOTICON.get_or_init(|| {
        Regex::new(r"(?:^|\s)(?:[:;=]-?[()DPpO/\\|]+|<3|xD|XD)(?:\s|$)|\p{Extended_Pictographic}+")
            .expect("valid regex")
    });
    let text = emoticon.replace_all(text, "\n");
    let text = text.as_ref();
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let ends = match c {
            '!' | '?' | ';' | '\n' => true,
            // A full stop between digits is a decimal point, and "e.g." is no end.
            '.' => {
                !(next.is_some_and(|n| n.is_ascii_digit())
                    && i > 0
                    && chars[i - 1].is_ascii_digit())
                    && next.is_none_or(char::is_whitespace)
            }
            _ => false,
        };
        if ends {
            let s = current.trim().to_string();
            if !s.is_empty() {
                out.push((s, Some(c)));
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    let s = current.trim().to_string();
    if !s.is_empty() {
        out.push((s, None));
    }
    out
}

/// Splits a sentence into clauses that each state one thing: "I live in Lisbon
/// and work at Stripe" → "I live in Lisbon", "I work at Stripe".
/// "now I'm …": adverbs before the subject, and the clause from it.
fn adverb_first() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?i:(?:also|now|just|then|recently|currently|still|finally|so) )+(?P<rest>(?:I|we|We)\b.*)$")
            .expect("valid regex")
    })
}

fn clauses(sentence: &str) -> Vec<String> {
    static SPLIT: OnceLock<Regex> = OnceLock::new();
    let re = SPLIT.get_or_init(|| {
        Regex::new(r"(?i)(?:,\s*|\s+)(?:and|but|also|plus|while|though|although|whereas)\s+|,\s+|\s+[-–—]\s+|:\s+")
            .expect("valid regex")
    });
    static STARTS: OnceLock<Regex> = OnceLock::new();
    let starts = STARTS.get_or_init(|| {
        Regex::new(r"^(?:(?i:i|i am|we|my|our)\b|\p{Lu}\p{Ll}+ (?:is|was|has|lives|works|likes|loves)\b|(?i:(?:also |now |just |then |recently |currently |still |finally |so )+(?:i|i am|we)\b)|(?i:(?:also |now |just |then |recently |currently |still |finally )*(?:live|lives|work|works|moved|am|love|like|hate|have|has|prefer|enjoy|joined|started|quit|left|went|visited|need|want|usually|always|got))\b)").expect("valid regex")
    });
    // Each part with the words that joined it to the one before, so a part
    // that is no clause of its own is put back as it was said ("both a
    // sanctuary and a source of comfort").
    let mut parts: Vec<(&str, &str)> = Vec::new();
    let mut last = 0;
    let mut joint = "";
    for m in re.find_iter(sentence) {
        parts.push((joint, &sentence[last..m.start()]));
        joint = m.as_str();
        last = m.end();
    }
    parts.push((joint, &sentence[last..]));
    let mut out: Vec<String> = Vec::new();
    for (joint, part) in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let lower_start = part.split_whitespace().next().unwrap_or("").to_lowercase();
        let starts_clause = starts.is_match(part) && !matches!(lower_start.as_str(), "and" | "but");
        // "…, maybe you would like that": what turns to the listener is a
        // clause of its own, never part of the statement before it.
        let to_listener =
            is_about_listener(part) && !is_about_listener(out.last().map_or("", String::as_str));
        match out.last_mut() {
            Some(last) if !starts_clause && !to_listener => {
                last.push_str(if joint.is_empty() { " " } else { joint });
                last.push_str(part);
            }
            _ => {
                // "now I'm a designer": the subject comes first.
                let part = adverb_first().replace(part, "$rest");
                let part = part.as_ref();
                // A clause without its own subject borrows the sentence's: "and work at…".
                let needs_subject = starts_clause
                    && !part.to_lowercase().starts_with("i ")
                    && !part.to_lowercase().starts_with("i am")
                    && !part.to_lowercase().starts_with("we ")
                    && !part.to_lowercase().starts_with("my ")
                    && !part.to_lowercase().starts_with("our ")
                    && !part.chars().next().is_some_and(char::is_uppercase)
                    && !out.is_empty();
                if needs_subject {
                    out.push(format!("I {part}"));
                } else {
                    out.push(part.to_string());
                }
            }
        }
    }
    out
}

/// Markers of a retraction, and what is left once they are taken out; `true`
/// when the speaker asked to forget (always a retraction, even of a preference).
fn strip_retraction(clause: &str) -> Option<(String, bool)> {
    static MARKERS: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    let table = MARKERS.get_or_init(|| {
        [
            (r"(?i)^(?:please )?(?:forget|disregard|ignore|delete|remove) (?:that|the fact that|about the fact that)? ?(.+)$", "$1"),
            (r"(?i)^(.*?)\bno longer\b(.*)$", "$1$2"),
            (r"(?i)^(i am|we are) not (?:an? )?(.+?) (?:any ?more|anymore|after all)(?:,? (?:because|since|as|so|after|now that) .+|, .+)?$", "$1 $2"),
            (r"(?i)^(i|we) (?:do not|did not) (.+?) (?:any ?more|anymore|after all)(?:,? (?:because|since|as|so|after|now that) .+|, .+)?$", "$1 $2"),
            (r"(?i)^(i|we) (?:have |had )?(?:stopped|quit) (?:being )(.+)$", "$1 am $2"),
            (r"(?i)^(i|we) (?:quit|left) (?:my job at |my job with |working at |working for )?(.+)$", "$1 work at $2"),
            (r"(?i)^(i|we) (?:got fired from|was fired from|was laid off from|got laid off from|resigned from) (.+)$", "$1 work at $2"),
            (r"(?i)^(i|we) (?:moved away from|moved out of) (.+)$", "$1 live in $2"),
            (r"(?i)^(i|we) (?:broke up with|divorced|split up with) (.+)$", "$1 am married to $2"),
            (r"(?i)^(i|we) eat (meat|fish|dairy|animal products) again$", "$1 am vegetarian"),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(p).expect("valid regex"), r))
        .collect()
    });
    for (i, (re, rep)) in table.iter().enumerate() {
        if re.is_match(clause) {
            let positive = re.replace(clause, *rep).to_string();
            let positive = positive.split_whitespace().collect::<Vec<_>>().join(" ");
            // "I quit my job": no employer named; the retraction is of any employer.
            let positive = positive.replace(" work at my job", " work at their job");
            return Some((positive, i == 0));
        }
    }
    None
}

fn is_preference_clause(clause: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^i (?:really |also )*(?:like|love|enjoy|adore|prefer)\b")
            .expect("valid regex")
    })
    .is_match(clause)
}

/// Phrases that make a statement important to keep.
fn emphasis(sentence: &str) -> f64 {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:remember(?: that)?|don't forget|do not forget|important|always remember|note that|for the record|keep in mind)\b").expect("valid regex")
    });
    static CORRECTION: OnceLock<Regex> = OnceLock::new();
    let correction = CORRECTION.get_or_init(|| {
        Regex::new(
            r"(?i)^(?:actually|correction|to be clear|i meant|sorry,? i meant|no,|wait,|update:|scratch that)|\bi actually\b",
        )
        .expect("valid regex")
    });
    let mut boost: f64 = 0.0;
    if re.is_match(sentence) {
        boost += 0.2;
    }
    if correction.is_match(sentence.trim()) {
        boost += 0.2;
    }
    boost
}

/// Removes lead-ins that carry no content: "remember that", "actually", "btw".
fn strip_lead_in(sentence: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:(?:please |also |oh,? |so,? |well,? |hmm+,? |umm*,? |uh,? |yeah,? |yep,? |btw,? |by the way,? |fyi,? |just so you know,? |actually,? |correction:? |to be clear,? |update:? |no,? |wait,? |sorry,? |i meant,? |anyway,? |also,? |and |scratch that,? |hey,? |hi,? |hello,? |ok,? |okay,? |oh and,? |honestly,? |(?:it )?turns out,? (?:that )?|these days,? |nowadays,? |currently,? |at the moment,? |right now,? |lately,? )*(?:(?:can|could|would|will) you (?:please )?)?(?:remember|note|keep in mind|don't forget|do not forget|for the record|make a note)?(?: that)?,?\s*)").expect("valid regex")
    });
    re.replace(sentence.trim(), "").trim().to_string()
}

/// A named person or organisation as the subject of a clause: "Jennifer is a
/// doctor", "my wife Jennifer is a doctor", "Acme Corp is hiring".
fn other_subject(clause: &str) -> Option<(String, Option<String>, String)> {
    static REL: OnceLock<Regex> = OnceLock::new();
    let rel = REL.get_or_init(|| {
        Regex::new(&format!(r"^(?i:my|our) (?P<rel>(?i:{RELATIONS})),? (?P<name>\p{{Lu}}[\p{{L}}'-]+),? (?P<rest>.+)$")).expect("valid regex")
    });
    if let Some(c) = rel.captures(clause) {
        return Some((
            cap(&c, "name"),
            Some(cap(&c, "rel").to_lowercase()),
            cap(&c, "rest"),
        ));
    }
    static UNNAMED: OnceLock<Regex> = OnceLock::new();
    let unnamed = UNNAMED.get_or_init(|| {
        Regex::new(&format!(r"^(?i:my|our) (?P<rel>(?i:{RELATIONS})) (?P<rest>(?:is|was|has|had|lives|lived|works|worked|likes|loves|hates|moved|just|started|joined|prefers|enjoys|studies|teaches|plays|owns|runs|speaks|went|visited|got)\b.*)$")).expect("valid regex")
    });
    if let Some(c) = unnamed.captures(clause)
        && !names_the_relation(&cap(&c, "rest"))
    {
        // No name given: the relation stands for the person ("sister").
        return Some((relation_name(&cap(&c, "rel")), None, cap(&c, "rest")));
    }
    static NAMED: OnceLock<Regex> = OnceLock::new();
    let named = NAMED.get_or_init(|| {
        Regex::new(r"^(?P<name>\p{Lu}[\p{L}'-]+(?: (?:\p{Lu}[\p{L}'-]+|Corp|Inc|Ltd|LLC|Labs|Co))*) (?P<rest>(?:is|was|has|had|lives|lived|works|worked|likes|loves|hates|moved|got|just|started|joined|prefers|enjoys|studies|teaches|plays|owns|runs|wants|needs|does|eats|drinks|speaks|went|visited|will|can|used to)\b.*)$").expect("valid regex")
    });
    let c = named.captures(clause)?;
    let name = cap(&c, "name");
    let first = name.split_whitespace().next().unwrap_or("");
    const NOT_NAMES: [&str; 24] = [
        "I",
        "It",
        "This",
        "That",
        "There",
        "He",
        "She",
        "They",
        "We",
        "You",
        "The",
        "My",
        "Our",
        "Today",
        "Yesterday",
        "Tomorrow",
        "Everyone",
        "Nobody",
        "Someone",
        "Everything",
        "Nothing",
        "Life",
        "Work",
        "Who",
    ];
    if NOT_NAMES.contains(&first) {
        return None;
    }
    Some((name, None, cap(&c, "rest")))
}

/// Whether the rest of "my boyfriend is Karim" only names who the relation
/// is: an attribute of the speaker ("Boyfriend is Karim"), not a fact about
/// an unnamed person.
fn names_the_relation(rest: &str) -> bool {
    let mut words = rest.trim_end_matches(['.', '!']).split_whitespace();
    matches!(words.next(), Some("is" | "was"))
        && words
            .next()
            .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase))
        && words.next().is_none()
}

/// One name per relation, so "my mom" and "my mother" are one person.
fn relation_name(relation: &str) -> String {
    match relation.to_lowercase().as_str() {
        "mom" | "mum" | "mother" => "mother",
        "dad" | "father" => "father",
        "grandma" | "grandmother" => "grandmother",
        "grandpa" | "grandfather" => "grandfather",
        "co-worker" | "coworker" | "colleague" => "colleague",
        "neighbour" | "neighbor" => "neighbor",
        "kid" | "child" => "child",
        other => return other.to_string(),
    }
    .to_string()
}

/// A subject name as the SPEC writes it: a lowercase first name for a person, a
/// hyphenated lowercase name for an organisation.
pub fn subject_name(name: &str) -> String {
    match notes::subject_of(name) {
        n if n.is_empty() => "user".into(),
        n => n,
    }
}

/// Classifies a first-person clause with the rules.
fn classify_first_person(clause: &str) -> Option<(&'static str, Draft)> {
    for rule in rules() {
        if let Some(d) = rule.re.captures(clause).and_then(|c| (rule.build)(&c)) {
            return Some((rule.name, d));
        }
    }
    None
}

/// Reads a stored statement back into its attribute, in whatever person it
/// is written ("Lives in Berlin", "The user lives in Berlin", "Caroline moved
/// to Berlin"): residence = berlin. Used on existing records, hand-written
/// ones included, so they need no extra keys.
pub fn classify(content: &str) -> Option<(&'static str, Option<Attribute>)> {
    let first_line = content.lines().find(|l| !l.trim().is_empty())?.trim();
    attributes::read(first_line).map(|r| ("lexicon", Some(attribute_of_reading(r))))
}

/// A piece of what was said that gave no fact, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub text: String,
    /// "a question", "greeting or reaction", "about the listener"…
    pub why: &'static str,
}

/// What the rules read in one text: the facts, and the clauses that gave none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extraction {
    pub facts: Vec<Fact>,
    pub skipped: Vec<Skipped>,
}

/// Extracts standalone facts from prose (time words left unresolved).
pub fn extract(text: &str) -> Vec<Fact> {
    read(text, None).facts
}

/// [`read_as`] for a user whose name is not known.
pub fn read(text: &str, now: Option<Timestamp>) -> Extraction {
    read_as(text, now, &[])
}

/// Phrases that only hold the conversation together: "like I said", "you
/// know", "lol". Taken out of a statement; a sentence of nothing else is
/// filler.
const FILLER_PHRASES: &[&str] = &[
    "like i said",
    "like i mentioned",
    "like i told you",
    "as i said",
    "as i mentioned",
    "as i told you",
    "as i said before",
    "as mentioned",
    "like i said before",
    "if you remember",
    "you know what i mean",
    "you know",
    "i mean",
    "to be honest",
    "to be fair",
    "not gonna lie",
    "just saying",
    "no joke",
    "for real",
    "lol",
    "lmao",
    "rofl",
    "haha",
    "hahaha",
    "hehe",
    "ugh",
    "omg",
    "tbh",
    "ngl",
    "imo",
    "fyi",
    "btw",
    "lol ok",
    "ok",
    "okay",
    "um",
    "uh",
    "erm",
    "hmm",
];

/// The sentence without the filler phrases in it.
fn without_filler(sentence: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        let mut phrases: Vec<&str> = FILLER_PHRASES.to_vec();
        phrases.sort_by_key(|p| std::cmp::Reverse(p.len()));
        let alternation = phrases
            .iter()
            .map(|p| regex::escape(p).replace(' ', r"\s+"))
            .collect::<Vec<_>>()
            .join("|");
        Regex::new(&format!(r"(?i)(?:^|,\s*|\s+)(?:{alternation})\b[,.!]*")).expect("valid regex")
    });
    let out = re.replace_all(sentence, "");
    out.trim().trim_start_matches([',', ' ']).trim().to_string()
}

/// Words of time that say when, not what.
const WHEN: [&str; 8] = [
    "today",
    "tonight",
    "yesterday",
    "lately",
    "now",
    "right",
    "again",
    "still",
];

/// Whether a statement says no more than one thing and a judgement of it:
/// "The weather is nice today", "That was fun".
fn says_little(text: &str) -> bool {
    words_of(&text.to_lowercase())
        .filter(|w| {
            !FUNCTION_WORDS.contains(w)
                && !WHEN.contains(w)
                && !EVALUATIVE.contains(w)
                && !SMALL_TALK.contains(w)
        })
        .count()
        < 2
}

/// Why a piece that gave no fact is skipped, rather than kept as said: only
/// talk that carries nothing is.
fn carries_nothing(why: &str) -> bool {
    matches!(
        why,
        "a question"
            | "greeting or reaction"
            | "about the listener"
            | "small talk"
            | "a passing feeling"
            | "too little to stand alone"
            | "filler"
    )
}

/// A piece of a statement no rule reads, kept as an episode in its own words
/// (first-person words in the third person).
fn as_said(clause: &str, boost: f64) -> Result<Fact, &'static str> {
    // "If I lived in Paris …": a hypothetical is no fact.
    let first = clause
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase();
    if matches!(
        first.as_str(),
        "if" | "unless" | "whether" | "maybe" | "perhaps"
    ) {
        return Err("a hypothetical");
    }
    if is_social(clause) {
        return Err("small talk");
    }
    let text = strip_aside(&sentence_case(&rewrite::pronouns(clause.trim())));
    if content_words(&text.to_lowercase()) < 2 || evaluation_only(&text) {
        return Err("too little to stand alone");
    }
    Ok(Fact {
        attribute: attribute_of_text(&text),
        content: text,
        subject: "user".into(),
        category: "event",
        durability: "persistent",
        importance: ((0.6 + boost).min(1.0) * 100.0).round() / 100.0,
        rule: "as said",
        ..Fact::default()
    })
}

/// A note kept in its own words, as a fact.
fn fact_of_note(n: notes::Note, boost: f64) -> Fact {
    let importance = if n.reading.is_some() { 0.7 } else { 0.6 };
    let retraction = n.ends.is_some();
    let (content, said) = match n.ends {
        Some(positive) => (positive, Some(n.content)),
        None => (n.content, None),
    };
    let attribute = attribute_of_text(&content);
    Fact {
        content,
        said,
        subject: n.subject,
        category: n.category,
        durability: "persistent",
        importance: ((importance + boost).min(1.0) * 100.0).round() / 100.0,
        attribute,
        retraction,
        rule: "note",
        ..Fact::default()
    }
}

/// Reads an agent's notes: each kept as written, never retold. A line may
/// hold more than one sentence; a question or a line of small talk is
/// skipped, with why.
pub fn read_notes(lines: &[String], now: Option<Timestamp>, user_names: &[String]) -> Extraction {
    let mut out = Extraction::default();
    for line in lines {
        for (sentence, end) in sentences(line) {
            let sentence = terminated(&sentence, end);
            if end == Some('?') && is_question(&sentence) {
                out.skipped.push(Skipped {
                    text: sentence,
                    why: "a question",
                });
                continue;
            }
            if is_small_talk(&sentence) {
                out.skipped.push(Skipped {
                    text: sentence,
                    why: "greeting or reaction",
                });
                continue;
            }
            let body = strip_lead_in(&sentence);
            let body = if body.is_empty() {
                sentence.clone()
            } else {
                sentence_case(&body)
            };
            let boost = emphasis(&sentence);
            for n in notes::read(&body, user_names) {
                out.facts.push(fact_of_note(n, boost));
            }
        }
    }
    finish(out, now)
}

/// The sentence with the mark that ended it, or a full stop.
fn terminated(sentence: &str, end: Option<char>) -> String {
    let s = sentence.trim();
    match end {
        Some(c @ ('.' | '!')) => format!("{s}{c}"),
        _ if s.ends_with(['.', '!', '?', '"', '\'', ')']) => s.to_string(),
        _ => format!("{s}."),
    }
}

/// Reads prose into standalone facts: sentences, then clauses; greetings,
/// reactions, questions and filler are dropped (and named in `skipped`). A
/// sentence that already stands alone (an agent's note about the user or
/// someone named, an imperative note) is kept in its own words; first-person
/// speech is told in the third person with the speaker's own words, by
/// clause. Whatever else is said is kept as an episode, as said.
/// `user_names` (lowercase) are the names the user goes by. With `now`, time
/// words are resolved and the date written after them.
pub fn read_as(text: &str, now: Option<Timestamp>, user_names: &[String]) -> Extraction {
    let mut out = Extraction::default();
    let skip = |out: &mut Extraction, text: &str, why: &'static str| {
        out.skipped.push(Skipped {
            text: text.trim().to_string(),
            why,
        })
    };
    for (sentence, end) in sentences(text) {
        let question_mark = end == Some('?');
        if question_mark && is_question(&sentence) {
            skip(&mut out, &sentence, "a question");
            continue;
        }
        if is_small_talk(&sentence) {
            skip(&mut out, &sentence, "greeting or reaction");
            continue;
        }
        // "I'm learning Portuguese, any tips?": the question at the end is
        // no part of the statement.
        let sentence = match sentence.rsplit_once(", ") {
            Some((head, tail)) if question_mark && !mentions_speaker(tail) => {
                skip(&mut out, tail, "a question");
                head.to_string()
            }
            _ => sentence,
        };
        let bare = without_filler(&sentence);
        if bare.is_empty() || is_small_talk(&bare) {
            skip(&mut out, &sentence, "filler");
            continue;
        }
        let boost = emphasis(&sentence);
        let moment = is_moment(&bare);
        let of_work = is_about_work(&bare);
        let body = strip_lead_in(&normalise(&bare));
        if body.is_empty() || is_small_talk(&body) {
            skip(&mut out, &sentence, "greeting or reaction");
            continue;
        }
        // A statement about someone or something other than the speaker, that
        // stands alone: kept as it was written.
        let implied = with_implied_subject(&body);
        if !mentions_speaker(&body) && implied == body && !is_about_listener(&body) {
            // "The weather is nice today": about nobody, and saying nothing
            // beyond a judgement.
            if notes::about(&body, user_names) == notes::About::Unnamed && says_little(&body) {
                skip(&mut out, &sentence, "small talk");
                continue;
            }
            let note = terminated(&sentence_case(&strip_aside(&body)), end);
            for n in notes::read(&note, user_names) {
                let mut f = fact_of_note(n, boost);
                // "Sadly Miso passed away": what is known of Miso ends with it.
                if let Some((_, who)) = ending(&f.content) {
                    f.ends = Some(who);
                    f.category = "event";
                    f.attribute = None;
                }
                out.facts.push(f);
            }
            continue;
        }
        let body = implied;
        // The fact the sentence's last clause gave, for a clause that goes on
        // about it ("…, it was so powerful").
        let mut last: Option<usize> = None;
        for clause in clauses(&body) {
            let clause = clause
                .trim()
                .trim_end_matches(['.', '!', ','])
                .trim()
                .to_string();
            if clause.split_whitespace().count() < 2 || is_small_talk(&clause) {
                if !clause.is_empty() {
                    skip(&mut out, &clause, "greeting or reaction");
                }
                continue;
            }
            // A trailing aside ("lol", "just so you know") is no part of it.
            let clause = strip_aside(&clause);
            // "I switched jobs, I'm at GitHub now": at a place of work, said
            // in the speaker's words.
            let employer = of_work
                .then(|| at_work(&clause))
                .flatten()
                .and_then(|w| attribute_of_text(&w));
            match facts_of_clause(&clause, boost) {
                Ok(facts) => {
                    for mut f in facts {
                        if let Some(a) = &employer
                            && f.attribute.is_none()
                        {
                            f.attribute = Some(a.clone());
                        }
                        if moment
                            && f.category != "task"
                            && f.attribute.is_none()
                            && is_ongoing(&f.content)
                        {
                            // What the speaker is doing right now: the moment.
                            f.category = "task";
                            f.durability = "session";
                        }
                        out.facts.push(f);
                        last = Some(out.facts.len() - 1);
                    }
                }
                Err(why) => match last {
                    Some(i) if continues(&clause) && !out.facts[i].retraction => {
                        let f = &mut out.facts[i];
                        f.content = format!("{}; {}", f.content, rewrite::pronouns(&clause));
                    }
                    _ if !carries_nothing(why) => match as_said(&clause, boost) {
                        Ok(f) => {
                            out.facts.push(f);
                            last = Some(out.facts.len() - 1);
                        }
                        Err(why) => skip(&mut out, &clause, why),
                    },
                    _ => skip(&mut out, &clause, why),
                },
            }
        }
    }
    finish(out, now)
}

/// One fact per idea, and time words resolved.
fn finish(mut out: Extraction, now: Option<Timestamp>) -> Extraction {
    // One fact per idea: drop exact repeats within one input.
    let mut seen = std::collections::HashSet::new();
    out.facts
        .retain(|f| seen.insert((f.subject.clone(), norm(&f.content), f.retraction)));
    if let Some(now) = now {
        for f in &mut out.facts {
            if f.retraction {
                if let Some(said) = &f.said
                    && let Some(r) = when::resolve(said, now)
                {
                    f.said = Some(r.text);
                }
                continue;
            }
            if let Some(r) = when::resolve(&f.content, now) {
                f.content = r.text;
                f.when = Some(r.date);
            }
        }
    }
    out
}

/// Whether a clause goes on about what the one before it said: it opens with
/// a pronoun that points back ("it was so powerful", "which was fun").
fn continues(clause: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:it|it is|it was|that|that is|this|they|there|which|who|he|she|so)\b")
            .expect("valid regex")
    })
    .is_match(clause)
        && content_words(&clause.to_lowercase()) >= 2
        && !evaluation_only(clause)
}

/// Whether the sentence speaks of jobs: then "I'm at X" names an employer.
fn is_about_work(sentence: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:jobs?|employers?|companies|company|hired|offer|role|position)\b")
            .expect("valid regex")
    })
    .is_match(sentence)
}

/// "I am at GitHub now" → "I work at GitHub", for a sentence about work.
fn at_work(clause: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^I am (?:now )?at (?P<org>\p{Lu}[\w&.'-]*(?: \p{Lu}[\w&.'-]*)*)(?: now)?$")
            .expect("valid regex")
    });
    re.captures(clause)
        .map(|c| format!("I work at {}", &c["org"]))
}

/// Whether the sentence speaks of this very moment ("right now", "at the
/// moment", "today"): what it says the speaker is doing is a task of the
/// session, not a lasting fact.
fn is_moment(sentence: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:right now|at the moment|currently|at present|today|tonight|this (?:morning|afternoon|evening))\b|\bI(?:'m| am) off\b")
            .expect("valid regex")
    })
    .is_match(sentence)
}

/// Whether a third-person fact says what is going on: "Is fixing …".
fn is_ongoing(content: &str) -> bool {
    let mut words = content.split_whitespace();
    matches!(words.next(), Some("Is"))
        && words.next().is_some_and(|w| {
            w == "off" || matches!(lexicon::verb(w), Some((_, lexicon::VerbForm::Participle)))
        })
}

/// Words that only judge or react ("great", "so happy"), with no content of
/// their own.
const EVALUATIVE: &[&str] = &[
    "great",
    "awesome",
    "amazing",
    "cool",
    "fun",
    "nice",
    "happy",
    "glad",
    "good",
    "lovely",
    "wonderful",
    "fantastic",
    "proud",
    "excited",
    "exciting",
    "thankful",
    "grateful",
    "sad",
    "tough",
    "hard",
    "tricky",
    "important",
    "beautiful",
    "incredible",
    "special",
    "inspiring",
    "powerful",
    "cute",
    "sweet",
    "perfect",
    "blast",
    "worth",
    "best",
    "crazy",
    "wild",
    "bad",
    "tired",
    "busy",
    "stoked",
    "thrilled",
    "pumped",
    "lucky",
    "blessed",
    "sorry",
    "sure",
    "interesting",
    "true",
    "right",
    "okay",
    "ok",
    "fine",
    "well",
    "cool",
    "much",
    "lot",
    "thing",
    "things",
    "stuff",
    "super",
    "really",
    "totally",
    "pretty",
    "wow",
    "yeah",
];

/// Whether every content word of a clause only judges or reacts.
fn evaluation_only(clause: &str) -> bool {
    let lower = clause.to_lowercase();
    words_of(&lower)
        .filter(|w| !FUNCTION_WORDS.contains(w) && !WHEN.contains(w))
        .all(|w| EVALUATIVE.contains(&w))
}

fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
}

/// Small talk inside a statement: apologies, promises to keep in touch,
/// hopes and hedges, agreement. Nothing to remember in them.
fn is_social(clause: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:sorry|let me know|let us|i will keep you|keep you (?:posted|updated)|i will let you|can ?not wait|i hope (?:you|your|it|that|so|all|everything|we)\b|i am hoping (?:you|your|it|that|so|all|everything|we)\b|i am sure|i guess|i think so|i agree|i know|i get it|i mean|i bet|i wish|i appreciate|i am glad|i am happy for|glad to hear|good to (?:see|hear)|talk (?:to you )?(?:soon|later)|take care|thank)\b")
            .expect("valid regex")
    })
    .is_match(clause)
}

/// A thing of the speaker's world that holds a number: "the gate code at the
/// farm is 4490", "the wifi password is hunter22". One value at a time, so the
/// thing is the attribute.
fn numbered_thing(clause: &str) -> Option<Draft> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?i:the) (?P<thing>[\w' -]+?) (?:is|are|was) (?P<v>\S*\d\S*(?: \S+){0,3})$")
            .expect("valid regex")
    });
    let c = re.captures(clause)?;
    let thing = c["thing"].to_lowercase();
    let content = sentence_case(clause);
    Some(
        draft(content, "attribute", "persistent", 0.6)
            .attr(Attribute::new(format!("the:{thing}"), &c["v"])),
    )
}

/// Whether a clause is about the listener rather than the speaker.
fn is_about_listener(clause: &str) -> bool {
    static YOU: OnceLock<Regex> = OnceLock::new();
    YOU.get_or_init(|| Regex::new(r"(?i)\b(?:you|your|yours|yourself|u)\b").expect("valid regex"))
        .is_match(clause)
}

/// A first-person clause no rule family knows, told in the speaker's own
/// words: "I mostly write Ruby" → "Mostly writes Ruby".
fn in_own_words(clause: &str, retraction: bool) -> Result<Draft, &'static str> {
    if is_about_listener(clause) {
        return Err("about the listener");
    }
    if is_social(clause) {
        return Err("small talk");
    }
    let text = match rewrite::third_person_clause(clause) {
        Some(text) => text,
        // "My friends and family are my rocks": the speaker's own, told
        // from another subject.
        None => match clause
            .strip_prefix("My ")
            .or_else(|| clause.strip_prefix("my "))
        {
            // A verb with something after it: "my doctor insisted" says too
            // little on its own.
            Some(rest)
                if rest.split_whitespace().rev().skip(1).any(|w| {
                    matches!(w, "are" | "were" | "have" | "do")
                        || matches!(
                            lexicon::verb(w),
                            Some((_, lexicon::VerbForm::Third | lexicon::VerbForm::Past))
                        )
                }) =>
            {
                format!("The user's {}", rewrite::pronouns(rest))
            }
            _ if clause
                .split_whitespace()
                .any(|w| matches!(w, "I" | "we" | "We")) =>
            {
                return Err("no verb the lexicon knows");
            }
            _ => return Err("not about the speaker"),
        },
    };
    // A lead-in the rewrite moved to the end may be an aside: "Honestly, I
    // love it" → "Loves it honestly".
    let text = strip_aside(&text);
    if !retraction {
        let specific = text
            .split_whitespace()
            .skip(1)
            .any(|w| w.starts_with(char::is_uppercase) || w.contains(|c: char| c.is_ascii_digit()));
        // "Is so excited": a passing feeling.
        let mut first = text.split_whitespace();
        if matches!(first.next(), Some("Is" | "Was" | "Feels" | "Felt"))
            && evaluation_only(&first.collect::<Vec<_>>().join(" "))
        {
            return Err("a passing feeling");
        }
        let words = content_words(&text.to_lowercase());
        // "Is a welder", "Has a boat": a thing the speaker is or has.
        let is_a = {
            let w: Vec<&str> = text.split_whitespace().collect();
            w.len() >= 3 && matches!(w[0], "Is" | "Has" | "Was") && matches!(w[1], "a" | "an")
        };
        if evaluation_only(&text)
            || words == 0
            || (words < 2 && !specific && !is_habit(&text) && !is_a)
        {
            return Err("too little to stand alone");
        }
    }
    let verb = text
        .split_whitespace()
        .find(|w| !lexicon::is_adverb(w) || lexicon::verb(w).is_some())
        .unwrap_or("");
    let (category, importance) = match lexicon::verb(verb) {
        _ if text.starts_with("The user and others") => ("event", 0.55),
        Some((_, lexicon::VerbForm::Past)) => ("event", 0.55),
        Some((base, _))
            if matches!(
                base.as_str(),
                "love" | "like" | "enjoy" | "adore" | "prefer" | "hate" | "dislike"
            ) =>
        {
            ("preference", 0.6)
        }
        _ if is_ongoing(&text) => ("event", 0.5),
        _ => ("attribute", 0.5),
    };
    Ok(draft(text, category, "persistent", importance))
}

/// A verb that stands alone as something the speaker does: "Smokes",
/// "Knits", "Mostly cycles"; not a reaction ("Sees", "Agrees").
fn is_habit(text: &str) -> bool {
    const REACTIONS: &[&str] = &[
        "see",
        "know",
        "agree",
        "guess",
        "think",
        "hope",
        "bet",
        "wonder",
        "mean",
        "promise",
        "suppose",
        "understand",
        "remember",
        "forget",
        "care",
        "try",
        "do",
        "love",
        "like",
        "hate",
        "want",
        "need",
        "feel",
        "get",
        "say",
        "believe",
        "doubt",
        "wish",
        "win",
        "lose",
        "go",
        "come",
        "leave",
        "stay",
        "wait",
        "laugh",
        "cry",
        "apologize",
        "apologise",
    ];
    let words: Vec<&str> = text
        .trim_end_matches(['.', '!'])
        .split_whitespace()
        .collect();
    match words.as_slice() {
        [verb] | [_, verb] => matches!(
            lexicon::verb(verb),
            Some((base, lexicon::VerbForm::Third)) if !REACTIONS.contains(&base.as_str())
        ),
        _ => false,
    }
}

/// Whether the speaker is in the clause other than as its opening subject.
fn mentions_speaker(clause: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\b(?:I|me|my|My|myself|mine|we|We|our|Our|us|ourselves)\b")
            .expect("valid regex")
    })
    .is_match(clause)
}

/// A clause about the speaker with another subject, its first-person words
/// in the third person: "The support group made me feel accepted" → "The
/// support group made them feel accepted".
fn in_other_words(clause: &str) -> Result<Draft, &'static str> {
    if is_social(clause) {
        return Err("small talk");
    }
    let text = strip_aside(&sentence_case(&rewrite::pronouns(clause)));
    let has_verb = text
        .split_whitespace()
        .skip(1)
        .any(|w| lexicon::verb(w.trim_matches(|c: char| !c.is_alphanumeric())).is_some());
    if !has_verb {
        return Err("no verb the lexicon knows");
    }
    if evaluation_only(&text) || content_words(&text.to_lowercase()) < 2 {
        return Err("too little to stand alone");
    }
    Ok(draft(text, "attribute", "persistent", 0.5))
}

/// Asides at the end of a statement carry nothing: "…, fyi", "… lol".
fn strip_aside(text: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)(?:,?\s+(?:fyi|just fyi|lol|lmao|haha+|hehe+|btw|though|tbh|imo|honestly|right|you know|just so you know|i guess|for sure|anyway|as well|ugh+|good ?night|bye|cheers|ttyl))+\s*$")
            .expect("valid regex")
    })
    .replace(text, "")
    .trim()
    .to_string()
}

/// A first-person clause told again in the third person, in the speaker's
/// own words: "I just joined Google" → "Just joined Google", "my wife
/// Jennifer is a doctor" → "The user's wife Jennifer is a doctor". `None`
/// when it has no first-person subject the rewrite can turn.
fn retell(clause: &str) -> Option<String> {
    let c = clause
        .trim()
        .trim_end_matches(['.', '!', ',', ';', ':'])
        .trim();
    let told = rewrite::third_person_clause(c).or_else(|| {
        let lower = c.to_lowercase();
        ["my ", "our "].iter().find_map(|p| {
            lower
                .starts_with(p)
                .then(|| format!("The user's {}", rewrite::pronouns(&c[p.len()..])))
        })
    })?;
    Some(strip_aside(&told))
}

/// The attribute a statement states, read from its words by the lexicon.
pub fn attribute_of_text(content: &str) -> Option<Attribute> {
    attributes::read(content).map(attribute_of_reading)
}

/// The value of attribute `key` that a statement states, if it states one.
pub fn attribute_for(content: &str, key: &str) -> Option<Attribute> {
    let first_line = content.lines().find(|l| !l.trim().is_empty())?.trim();
    attributes::read_key(first_line, key).map(attribute_of_reading)
}

fn attribute_of_reading(r: attributes::Reading) -> Attribute {
    Attribute {
        value: if r.negated {
            format!("no longer {}", r.value)
        } else {
            r.value
        },
        key: r.key,
    }
}

fn facts_of_clause(clause: &str, boost: f64) -> Result<Vec<Fact>, &'static str> {
    let said = clause;
    let clause = &without_fillers(clause);
    let make = |subject: &str, rule: &'static str, d: Draft, retraction: bool| -> Fact {
        let importance = (d.importance + boost + if retraction { 0.1 } else { 0.0 }).min(1.0);
        Fact {
            content: d.content,
            subject: d.subject.unwrap_or_else(|| subject.to_string()),
            category: d.category,
            durability: d.durability,
            importance: (importance * 100.0).round() / 100.0,
            attribute: d.attribute,
            retraction,
            rule,
            ..Fact::default()
        }
    };
    // The speaker's words in the third person, with what the lexicon reads in
    // them: the rule families only say what kind of fact it is.
    let faithful = |mut d: Draft, words: &str| -> Draft {
        if let Some(told) = retell(words) {
            d.content = told;
        }
        d.attribute = attribute_of_text(&d.content);
        d
    };
    // An ending: a death, a break-up. The event is kept, and what is known of
    // the one it ends ends with it.
    if let Some((content, ends)) = ending(clause) {
        let d = faithful(draft(content, "event", "persistent", 0.7), said);
        let mut f = make("user", "ending", d, false);
        f.attribute = None;
        f.ends = Some(ends);
        return Ok(vec![f]);
    }
    // Someone else: "my wife Jennifer is a doctor", "Tom lives in Paris".
    if let Some((name, relation, rest)) = other_subject(clause) {
        // The speaker's own people are the speaker's ("The user's wife
        // Jennifer is a doctor"); a person named alone is their own subject.
        let subject = if relation.is_some() {
            "user".to_string()
        } else {
            subject_name(&name)
        };
        let positive = normalise(
            &format!("I {rest}")
                .replace("I is ", "I am ")
                .replace("I has ", "I have ")
                .replace("I was ", "I am "),
        );
        let positive = deconjugate(&positive);
        let found = match classify_first_person(&positive) {
            Some(ruled) => Ok(ruled),
            None => in_own_words(&positive, false).map(|d| ("other", d)),
        };
        let told = retell(said).unwrap_or_else(|| sentence_case(&rewrite::pronouns(said)));
        let (rule, mut d) = match found {
            Ok(found) => found,
            // What the words say of them is kept all the same.
            Err(_) => ("other", draft(told.clone(), "attribute", "persistent", 0.6)),
        };
        d.content = told;
        d.attribute = attribute_of_text(&d.content);
        return Ok(vec![make(&subject, rule, d, false)]);
    }
    let (positive, retraction, forget) = match strip_retraction(clause) {
        Some((p, forget)) => (p, true, forget),
        None => (clause.to_string(), false, false),
    };
    if forget && let Some(topic) = forget_topic(&positive) {
        // "Forget the part about my boat": whatever mentions the boat.
        let mut f = make(
            "user",
            "forget",
            draft(
                // The request does not say again what it asked to forget.
                "Asked to forget part of what they said".to_string(),
                "task",
                "session",
                0.5,
            ),
            false,
        );
        f.ends = Some(topic);
        return Ok(vec![f]);
    }
    if !is_first_person(&positive) {
        if retraction || is_about_listener(&positive) {
            return Err("about the listener");
        }
        // About the speaker all the same, told from another subject: "The
        // support group has made me feel accepted".
        if mentions_speaker(&positive) {
            let mut d = in_other_words(&positive)?;
            d.content = strip_aside(&sentence_case(&rewrite::pronouns(said)));
            d.attribute = attribute_of_text(&d.content);
            return Ok(vec![make("user", "own words", d, false)]);
        }
        // "The gate code at the farm is 4490": a number worth keeping.
        if let Some(mut d) = numbered_thing(&positive) {
            d.content = sentence_case(said);
            d.attribute = attribute_of_text(&d.content);
            return Ok(vec![make("user", "numbered", d, retraction)]);
        }
        // Not about the speaker nor anyone named.
        return Err("not about the speaker");
    }
    // A preference that is negated is a new value (a flip), not a retraction;
    // "forget that I like tea" is a retraction all the same.
    let retraction = forget || (retraction && !is_preference_clause(&positive));
    let (rule, d) = match classify_first_person(&positive) {
        Some(found) => found,
        None => ("own words", in_own_words(&positive, retraction)?),
    };
    let mut f = if retraction {
        // The statement it ends, in the speaker's words; what was said is
        // kept beside it.
        let d = faithful(d, &positive);
        let mut f = make("user", rule, d, true);
        f.said = retell(said);
        f
    } else {
        make("user", rule, faithful(d, said), false)
    };
    if f.content.is_empty() {
        f.content = sentence_case(said);
    }
    Ok(vec![f])
}

/// A death or a break-up: the statement to keep, and the name (or words)
/// whose current facts end with it. "Sadly Miso passed away last week" →
/// ("Miso passed away last week", "Miso").
fn ending(clause: &str) -> Option<(String, String)> {
    static DEATH: OnceLock<Regex> = OnceLock::new();
    let death = DEATH.get_or_init(|| {
        Regex::new(r"(?i)^(?:sadly,? |unfortunately,? |so )?(?:(?P<my>my|our) (?P<rel>[\w' -]+?),? )?(?P<name>\p{Lu}[\p{L}'-]+)?,? (?P<verb>passed away|passed|died|was put down|was put to sleep|is no longer with us)(?P<rest>.*)$").expect("valid regex")
    });
    if let Some(c) = death.captures(clause) {
        let name = c.name("name").map(|m| m.as_str().to_string());
        let rel = c.name("rel").map(|m| m.as_str().to_string());
        let who = name.clone().or(rel.clone())?;
        if matches!(
            who.as_str(),
            "I" | "It" | "That" | "This" | "He" | "She" | "They"
        ) {
            return None;
        }
        let subject = match (&name, &rel) {
            (Some(n), Some(r)) => format!("{n}, the user's {r},"),
            (Some(n), None) => n.clone(),
            (None, Some(r)) => format!("The user's {r}"),
            (None, None) => return None,
        };
        let content = format!("{subject} {}{}", &c["verb"], third_person(&c["rest"]));
        return Some((content, who));
    }
    static BREAKUP: OnceLock<Regex> = OnceLock::new();
    let breakup = BREAKUP.get_or_init(|| {
        Regex::new(r"(?i)^(?:(?:my (?P<rel>[\w' -]+?) |(?P<name>\p{Lu}[\p{L}'-]+) )and i|we|i) (?:have |just |finally )*(?:broke up|split up|separated|got divorced|divorced|ended things|called it off)(?: with (?P<with>(?:my )?[\p{L}'-]+))?(?P<rest>.*)$").expect("valid regex")
    });
    let c = breakup.captures(clause)?;
    let who = c
        .name("name")
        .or(c.name("with"))
        .or(c.name("rel"))
        .map(|m| m.as_str().trim_start_matches("my ").to_string())
        .unwrap_or_else(|| "partner".into());
    let content = format!(
        "Broke up with {}{}",
        if who.chars().next().is_some_and(char::is_uppercase) {
            who.clone()
        } else {
            format!("their {who}")
        },
        third_person(&c["rest"])
    );
    Some((content, who))
}

/// What "forget …" points at, when it is no statement of its own: "the part
/// about my boat" → "my boat".
fn forget_topic(positive: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:all |everything |the (?:part|bit|thing|stuff|one)s? |what i (?:said|told you) )?(?:about|regarding|on|of) (?P<topic>.+)$")
            .expect("valid regex")
    });
    let topic = re.captures(positive)?.name("topic")?.as_str().to_string();
    (content_words(&topic.to_lowercase()) >= 1).then_some(topic)
}

/// Whether a clause speaks of the speaker: "I …", "my …", or "I …" after a
/// short lead such as "Yesterday" or "Last week,".
fn is_first_person(clause: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^(?:(?:[\w']+ ){0,3}?(?:[\w']+,? ))?(?:i|we|my|our)\b|^every |^call me ")
            .expect("valid regex")
    })
    .is_match(clause)
}

/// "I lives in Paris" (from "Tom lives in Paris") → "I live in Paris": the
/// base form comes from the lexicon, never from a suffix guess.
fn deconjugate(clause: &str) -> String {
    let Some(rest) = clause.strip_prefix("I ") else {
        return clause.to_string();
    };
    let (verb, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let base = match verb {
        "is" => "am".to_string(),
        v => match lexicon::verb(v) {
            Some((base, lexicon::VerbForm::Third)) => base,
            _ => v.to_string(),
        },
    };
    format!("I {base} {tail}").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Fact {
        let facts = extract(text);
        assert_eq!(facts.len(), 1, "{text:?} gave {facts:#?}");
        facts.into_iter().next().unwrap()
    }

    fn contents(text: &str) -> Vec<String> {
        extract(text).into_iter().map(|f| f.content).collect()
    }

    #[test]
    fn words_of_recency_never_become_part_of_an_attribute() {
        assert_eq!(attribute_name("band now"), "band");
        assert_eq!(attribute_name("new girlfriend"), "girlfriend");
        assert_eq!(attribute_name("film these days"), "film");
        assert_eq!(attribute_name("current gym locker code"), "gym locker code");
        let blur = one("my favourite band now is Blur");
        let muse = one("My favorite band is Muse.");
        assert_eq!(blur.content, "The user's favourite band now is Blur");
        assert_eq!(
            blur.attribute.as_ref().map(|a| &a.key),
            muse.attribute.as_ref().map(|a| &a.key)
        );
        let sofia = one("my new girlfriend is Sofia");
        assert_eq!(sofia.content, "The user's new girlfriend is Sofia");
        assert_eq!(sofia.attribute.unwrap().key, "partner");
        let code = one("my door code is 1190");
        assert_eq!(code.attribute.unwrap().key, "code:door code");
    }

    #[test]
    fn residence() {
        let f = one("I live in Berlin.");
        assert_eq!(
            (f.content.as_str(), f.subject.as_str(), f.category),
            ("Lives in Berlin", "user", "attribute")
        );
        assert_eq!(
            f.attribute,
            Some(Attribute {
                key: "residence".into(),
                value: "berlin".into()
            })
        );
        let we = one("We just moved to Lisbon last year!");
        assert_eq!(
            we.content,
            "The user and others just moved to Lisbon last year"
        );
        assert_eq!(we.attribute.unwrap().value, "lisbon");
        let nyc = one("I'm based in New York City now");
        assert_eq!(nyc.content, "Is based in New York City now");
        assert_eq!(nyc.attribute.unwrap().value, "new york city");
        let r = one("I don't live in Berlin anymore");
        assert!(r.retraction);
        assert_eq!(r.attribute.unwrap().key, "residence");
    }

    #[test]
    fn work_and_profession() {
        assert_eq!(
            one("I work at Stripe as an SRE").content,
            "Works at Stripe as an SRE"
        );
        let f = one("I just joined Google");
        assert_eq!(f.content, "Just joined Google", "the speaker's own verb");
        assert_eq!(f.category, "profession");
        assert_eq!(f.attribute.unwrap().key, "employer");
        assert_eq!(
            one("I'm a software engineer").content,
            "Is a software engineer"
        );
        assert_eq!(
            one("I work as a nurse").attribute.unwrap().key,
            "profession"
        );
        let quit = one("I no longer work at Google");
        assert!(quit.retraction);
        assert_eq!(quit.attribute.unwrap().key, "employer");
        assert!(one("I quit my job at Initech").retraction);
    }

    #[test]
    fn identity() {
        let f = one("My name is Ana");
        assert_eq!(
            (f.content.as_str(), f.category, f.durability),
            ("The user's name is Ana", "identity", "permanent")
        );
        assert_eq!(one("I'm 34 years old").content, "Is 34 years old");
        assert_eq!(
            one("I turned 35 yesterday").attribute.unwrap(),
            Attribute {
                key: "age".into(),
                value: "35".into()
            }
        );
        assert_eq!(one("I'm from Porto").content, "Is from Porto");
    }

    #[test]
    fn diet_and_health() {
        let f = one("I'm vegetarian");
        assert_eq!(
            (f.content.as_str(), f.category),
            ("Is vegetarian", "preference")
        );
        let r = one("I'm not vegetarian anymore");
        assert!(r.retraction);
        assert_eq!(r.attribute.unwrap().key, "diet");
        let a = one("I am allergic to peanuts");
        assert_eq!(a.content, "Is allergic to peanuts");
        assert!(a.importance >= 0.8);
        let shellfish = one("I have a shellfish allergy");
        assert_eq!(shellfish.content, "Has a shellfish allergy");
        assert_eq!(shellfish.attribute.unwrap().key, "allergy:shellfish");
    }

    #[test]
    fn preferences_and_flips() {
        let f = one("I really love jazz music");
        assert_eq!(
            (f.content.as_str(), f.category),
            ("Really loves jazz music", "preference")
        );
        let like = one("I like coffee").attribute.unwrap();
        let hate = one("I hate coffee").attribute.unwrap();
        assert_eq!(like.key, hate.key, "one attribute, two values");
        assert_ne!(like.value, hate.value);
        let flip = one("I don't like coffee anymore");
        assert!(!flip.retraction, "a flipped preference is an update");
        assert_eq!(flip.attribute.unwrap().key, like.key);
        assert_eq!(
            one("My favourite colour is green").content,
            "The user's favourite colour is green"
        );
    }

    #[test]
    fn other_people_under_their_own_subject() {
        // The speaker's own people are the speaker's: one statement, in
        // their words, that names the partner.
        let jen = one("My wife Jennifer is a doctor.");
        assert_eq!(jen.content, "The user's wife Jennifer is a doctor");
        assert_eq!(jen.subject, "user");
        assert_eq!(
            jen.attribute,
            Some(Attribute {
                key: "partner".into(),
                value: "jennifer".into()
            })
        );
        let tom = one("Tom lives in Paris");
        assert_eq!(
            (tom.subject.as_str(), tom.content.as_str()),
            ("tom", "Tom lives in Paris.")
        );
        let org = extract("Acme Corp is hiring engineers");
        assert!(org.iter().all(|f| f.subject == "acme-corp"), "{org:?}");
    }

    #[test]
    fn several_facts_in_one_sentence() {
        let c = contents("I live in Lisbon, work at Stripe as an SRE and I'm allergic to peanuts.");
        assert_eq!(
            c,
            vec![
                "Lives in Lisbon",
                "Works at Stripe as an SRE",
                "Is allergic to peanuts"
            ]
        );
    }

    #[test]
    fn small_talk_and_questions_give_nothing() {
        for text in [
            "Hi!",
            "Thanks so much, that's great.",
            "ok cool",
            "How are you?",
            "Where do I live?",
            "Good morning!",
            "lol",
            "The weather is nice today.",
            "I'm good, how about you?",
            "I don't know.",
            "I'm so tired today.",
            "Okay, I'll try that.",
            "I'm fine, thanks.",
            "If I lived in Paris I would eat croissants daily.",
        ] {
            assert!(
                extract(text).is_empty(),
                "{text:?} gave {:?}",
                extract(text)
            );
        }
    }

    #[test]
    fn events_tasks_habits_beliefs() {
        let e = one("Yesterday I went hiking in the Alps with my sister");
        assert_eq!(e.category, "event");
        assert!(
            e.content
                .starts_with("Went hiking in the Alps with their sister"),
            "{e:?}"
        );
        let t = one("I need to renew my passport");
        assert_eq!(
            (t.content.as_str(), t.category, t.durability),
            ("Needs to renew their passport", "task", "session")
        );
        let p = one("I usually run 5k in the morning");
        assert_eq!(
            (p.content.as_str(), p.category),
            ("Usually runs 5k in the morning", "pattern")
        );
        let b = one("I think remote work is better for focus");
        assert_eq!(b.category, "belief");
    }

    #[test]
    fn remember_and_corrections_rank_high() {
        let plain = one("I like tea");
        let remembered = one("Remember that I like tea");
        assert!(remembered.importance > plain.importance);
        assert_eq!(remembered.content, plain.content);
        let corrected = one("Actually, I live in Porto");
        assert!(corrected.importance >= 0.9, "{corrected:?}");
        let forget = one("Forget that I like tea");
        assert!(forget.retraction);
    }

    #[test]
    fn stored_facts_read_back_into_attributes() {
        assert_eq!(
            classify("Lives in Berlin").unwrap().1.unwrap(),
            Attribute {
                key: "residence".into(),
                value: "berlin".into()
            }
        );
        assert_eq!(
            classify("Works at Stripe as an SRE")
                .unwrap()
                .1
                .unwrap()
                .key,
            "employer"
        );
        assert_eq!(classify("Is vegetarian.").unwrap().1.unwrap().key, "diet");
        assert_eq!(classify("Is named Ana").unwrap().1.unwrap().key, "name");
        assert_eq!(
            classify("Likes coffee").unwrap().1.unwrap().key,
            classify("Dislikes coffee").unwrap().1.unwrap().key
        );
        assert_eq!(
            classify("Is married to Jennifer").unwrap().1.unwrap().key,
            "partner"
        );
    }

    #[test]
    fn chat_style_sentences_without_a_subject() {
        let f = one("Just relocated to Austin, Texas!");
        assert_eq!(f.content, "Just relocated to Austin, Texas");
        assert_eq!(f.attribute.unwrap().key, "residence");
        assert_eq!(
            one("Started a new position at Netflix as a senior data scientist.").content,
            "Started a new position at Netflix as a senior data scientist"
        );
        let denver = one("I'm currently based out of Denver.");
        assert_eq!(denver.content, "Is currently based out of Denver");
        assert_eq!(denver.attribute.unwrap().value, "denver");
        let boulder = one("I've just moved over to Boulder.");
        assert_eq!(boulder.attribute.unwrap().value, "boulder");
    }

    #[test]
    fn more_retractions_and_flips() {
        let r = one("I've stopped being vegan.");
        assert!(r.retraction);
        assert_eq!(r.attribute.unwrap().key, "diet");
        let flip = one("Honestly, I don't really like sushi anymore.");
        assert_eq!(
            (flip.content.as_str(), flip.retraction),
            ("Does not really like sushi anymore", false)
        );
        assert_eq!(flip.attribute.unwrap().value, "dislikes");
        let facts = contents("I left the council and now work at a startup called Brightly.");
        assert_eq!(
            facts,
            vec![
                "Works at the council",
                "Now works at a startup called Brightly"
            ]
        );
        assert!(
            extract("I left the council and now work at a startup called Brightly.")[0].retraction
        );
    }

    #[test]
    fn relationship_status_and_relatives() {
        assert_eq!(
            one("I'm single.").attribute,
            one("I got engaged to Maria!").attribute.map(|a| Attribute {
                value: "single".into(),
                ..a
            })
        );
        assert_eq!(
            one("I got engaged to Maria!").content,
            "Got engaged to Maria"
        );
        assert_eq!(
            one("My mom lives in Florida.").subject,
            one("My mother moved to Arizona.").subject
        );
        let seattle = one("Currently living in Seattle.");
        assert_eq!(seattle.content, "Is living in Seattle");
        assert_eq!(seattle.durability, "persistent", "where they live lasts");
        let galway = one("These days I call Galway home.");
        assert_eq!(galway.content, "Calls Galway home");
        assert_eq!(galway.attribute.unwrap().value, "galway");
    }

    #[test]
    fn requests_to_remember_are_statements() {
        assert_eq!(
            one("Can you remember that my dog's name is Pepper?").content,
            "The user's dog's name is Pepper"
        );
        assert_eq!(one("Alex got a job as a paramedic.").subject, "alex");
    }

    #[test]
    fn conjugation() {
        for (a, b) in [
            ("walk", "walks"),
            ("go", "goes"),
            ("have", "has"),
            ("carry", "carries"),
            ("watch", "watches"),
            ("play", "plays"),
            ("went", "went"),
            ("can", "can"),
        ] {
            assert_eq!(conjugate(a), b);
        }
        assert_eq!(deconjugate("I lives in Paris"), "I live in Paris");
        assert_eq!(deconjugate("I watches films"), "I watch films");
    }

    fn read_at(text: &str) -> Extraction {
        let now = crate::clock::parse_time("2026-03-02T10:00:00Z").unwrap();
        read(text, Some(now))
    }

    fn why(text: &str) -> Vec<(String, &'static str)> {
        read_at(text)
            .skipped
            .into_iter()
            .map(|s| (s.text, s.why))
            .collect()
    }

    #[test]
    fn endings_in_ordinary_words() {
        let death = one("Sadly Miso passed away last week");
        assert_eq!(death.ends.as_deref(), Some("Miso"));
        assert_eq!(death.category, "event");
        assert!(
            death
                .content
                .starts_with("Sadly Miso passed away last week")
        );
        let breakup = one("I broke up with Karim");
        assert_eq!(breakup.ends.as_deref(), Some("Karim"));
        assert_eq!(breakup.content, "Broke up with Karim");
        let forget = one("forget the part about my boat");
        assert_eq!(forget.ends.as_deref(), Some("my boat"));
        assert!(!forget.content.contains("boat"), "{}", forget.content);
        assert_eq!(forget.durability, "session");
    }

    #[test]
    fn retractions_in_ordinary_words() {
        let after_all = one("Actually, I'm not lactose intolerant after all");
        // A retraction carries what it retracts; capture shows "Is no longer …".
        assert!(after_all.retraction);
        assert_eq!(after_all.content, "Is lactose intolerant");
        let turns_out = one("hmm turns out I'm not a morning person after all");
        assert!(turns_out.retraction, "{turns_out:?}");
        // The reason after "anymore" is its own clause, never part of the fact.
        // The reason is kept beside it, in the speaker's words.
        let e = read_at("I don't smoke anymore, my doctor insisted");
        assert_eq!(e.facts.len(), 2, "{:?}", e.facts);
        assert!(e.facts[0].retraction);
        assert_eq!(e.facts[0].content, "Smokes");
        assert_eq!(e.facts[0].said.as_deref(), Some("Does not smoke anymore"));
        assert_eq!(e.facts[1].content, "Their doctor insisted");
        let because = one("I don't eat meat anymore because of the climate");
        assert!(because.retraction, "{because:?}");
        // What it retracts has the same attribute as the plain statement.
        assert_eq!(one("I smoke.").content, "Smokes");
    }

    #[test]
    fn clauses_are_read_one_by_one() {
        assert_eq!(
            contents("I switched jobs, I'm at GitHub now"),
            vec!["Switched jobs", "Is at GitHub now"]
        );
        assert_eq!(
            contents("I quit the café and now I'm a graphic designer at a small studio")
                .last()
                .map(String::as_str),
            Some("Is a graphic designer at a small studio")
        );
        // What goes on about the fact stays with it, dated.
        let e = read_at("I went to a concert last night, it was the best show of the year");
        assert_eq!(e.facts.len(), 1, "{:?}", e.facts);
        assert_eq!(
            e.facts[0].content,
            "Went to a concert last night (2026-03-01), it was the best show of the year"
        );
    }

    #[test]
    fn skipped_clauses_say_why() {
        assert_eq!(
            why("hey! how are you? I just adopted a puppy named Biscuit"),
            vec![
                ("hey".to_string(), "greeting or reaction"),
                ("how are you".to_string(), "a question"),
            ]
        );
        assert_eq!(
            why("morning :) I'm learning Portuguese, any tips for the pronunciation?"),
            vec![
                ("morning".to_string(), "greeting or reaction"),
                ("any tips for the pronunciation".to_string(), "a question"),
            ]
        );
        assert_eq!(
            why("that's so cool!"),
            vec![("that's so cool".to_string(), "greeting or reaction")]
        );
        assert_eq!(
            why("I'm so excited"),
            vec![("I am so excited".to_string(), "a passing feeling")]
        );
    }

    #[test]
    fn the_speakers_words_in_the_third_person() {
        assert_eq!(one("I play the cello, fyi.").content, "Plays the cello");
        assert_eq!(one("I mostly write Ruby").content, "Mostly writes Ruby");
        assert_eq!(
            one("I usually cook on Sundays").content,
            "Usually cooks on Sundays"
        );
        assert_eq!(one("I'm colour-blind").content, "Is colour-blind");
        assert_eq!(one("I speak Italian").content, "Speaks Italian");
        assert_eq!(
            one("I'm originally from Kenya").content,
            "Is originally from Kenya"
        );
        let code = one("the gate code at the farm is 4490");
        assert_eq!(code.content, "The gate code at the farm is 4490.");
        assert_eq!(code.attribute.unwrap().key, "code:gate code");
        assert_eq!(
            one("my sister lives in Porto lol").content,
            "The user's sister lives in Porto"
        );
        let omar = one("My husband Omar is a dentist");
        assert_eq!(omar.content, "The user's husband Omar is a dentist");
        assert_eq!(omar.attribute.unwrap().value, "omar");
        let bruno = one("honestly my neighbour, Bruno, totally adores jazz");
        assert_eq!(
            bruno.content,
            "The user's neighbour, Bruno, totally adores jazz"
        );
        assert_eq!(bruno.attribute.unwrap().key, "friend:bruno");
        let dana = one("my partner Dana is a nurse");
        assert_eq!(dana.content, "The user's partner Dana is a nurse");
        assert_eq!(dana.attribute.unwrap().value, "dana");
    }

    #[test]
    fn the_moment_and_its_dates() {
        let task = one("at the moment I'm fixing a flaky login test");
        assert_eq!(
            (task.content.as_str(), task.category, task.durability),
            ("Is fixing a flaky login test", "task", "session")
        );
        let e = read_at("I ran a half marathon yesterday");
        assert_eq!(
            e.facts[0].content,
            "Ran a half marathon yesterday (2026-03-01)"
        );
        assert_eq!(e.facts[0].when, chrono::NaiveDate::from_ymd_opt(2026, 3, 1));
        let e = read_at("Last Sunday I hiked up Ben Nevis!");
        assert_eq!(
            e.facts[0].content,
            "Hiked up Ben Nevis last Sunday (2026-03-01)"
        );
    }
}

//! The OpenAI-compatible chat client (`POST {url}/chat/completions`, over ureq) and
//! the two model calls of capture: extraction of standalone facts (observe) and
//! reconciliation of one fact against the closest existing memories (reflect).
//!
//! Invariants: every answer goes through [`extract_json`], so prose, code fences and
//! reasoning blocks around the JSON are tolerated; whatever the model says is
//! validated before it leaves this module (known categories and durabilities,
//! importance within 0..=1, only the temporary ids we offered). Transient failures
//! (connection errors, 429, 5xx) are retried a bounded number of times with backoff;
//! a timeout is not retried, since it already cost the whole budget. Every error
//! names the endpoint, so the caller can warn and fall back to the rule engine.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use chrono::NaiveDate;

use crate::clock::Timestamp;
use crate::config::LlmConfig;

/// Retries after the first attempt, for connection errors, 429 and 5xx.
const RETRIES: u32 = 2;

/// Characters of an answer quoted in an error message.
const QUOTE: usize = 200;

/// Why a chat call gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// No answer: connection refused, DNS failure, reset, or the timeout ran out.
    #[error(
        "chat model at {endpoint} is unreachable: {message}; check the llm url \
         (ENGRAM_LLM_URL) and that the server is running, or unset it to use the \
         built-in rules"
    )]
    Unreachable { endpoint: String, message: String },

    /// The server answered with a non-success status (after retries for 429 and 5xx).
    #[error("chat model at {endpoint} answered HTTP {status}: {body}{}", status_hint(*.status))]
    Status {
        endpoint: String,
        status: u16,
        body: String,
    },

    /// The answer holds no JSON, or JSON of the wrong shape.
    #[error("chat model at {endpoint} gave an unusable answer: {message}")]
    Garbage { endpoint: String, message: String },
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => "; check the api key (ENGRAM_LLM_API_KEY)",
        404 => "; check the llm url (it should end in /v1) and the model name",
        429 => "; the server is rate limiting, try again later",
        _ => "",
    }
}

/// A client for one OpenAI-compatible chat endpoint and model.
pub struct ChatModel {
    endpoint: String,
    model: String,
    api_key: String,
    timeout_secs: f64,
    agent: ureq::Agent,
}

impl ChatModel {
    /// The client for `cfg`, or `None` when no url is configured. `cfg.url` is the
    /// API base (`http://host:port/v1`); a url that already ends in
    /// `/chat/completions` is used as it is. `timeout_secs` bounds each request
    /// (at least 0.1 s; infinite means no timeout).
    pub fn from_config(cfg: &LlmConfig, timeout_secs: f64) -> Option<ChatModel> {
        let url = cfg.url.trim().trim_end_matches('/');
        if url.is_empty() {
            return None;
        }
        let endpoint = if url.ends_with("/chat/completions") {
            url.to_string()
        } else {
            format!("{url}/chat/completions")
        };
        let timeout_secs = timeout_secs.max(0.1);
        let agent = ureq::Agent::config_builder()
            .timeout_global(Duration::try_from_secs_f64(timeout_secs).ok())
            .http_status_as_error(false)
            .build()
            .into();
        Some(ChatModel {
            endpoint,
            model: cfg.model.trim().to_string(),
            api_key: cfg.api_key.trim().to_string(),
            timeout_secs,
            agent,
        })
    }

    /// `openai:MODEL`, as shown in `--explain` and warnings.
    pub fn name(&self) -> String {
        format!("openai:{}", self.model)
    }

    /// The full url requests go to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// One chat completion at temperature 0 in JSON mode; the JSON found in
    /// `choices[0].message.content` (see [`extract_json`]).
    pub fn complete_json(&self, system: &str, user: &str) -> Result<Value, LlmError> {
        let body = json!({
            "model": self.model,
            "messages": [
                { "role": "system", "content": system },
                { "role": "user", "content": user },
            ],
            "temperature": 0,
            "response_format": { "type": "json_object" },
        });
        let envelope = self.post(&body)?;
        let content = message_content(&envelope).ok_or_else(|| {
            self.garbage(format!(
                "no choices[0].message.content in {}",
                quote(&envelope.to_string())
            ))
        })?;
        if let Value::Object(_) = content {
            return Ok(content);
        }
        let text = content.as_str().unwrap_or_default();
        extract_json(text).ok_or_else(|| self.garbage(format!("no JSON object in {}", quote(text))))
    }

    /// POSTs `body` and returns the parsed response envelope.
    fn post(&self, body: &Value) -> Result<Value, LlmError> {
        let mut attempt = 0;
        loop {
            let mut req = self.agent.post(&self.endpoint);
            if !self.api_key.is_empty() {
                req = req.header("Authorization", &format!("Bearer {}", self.api_key));
            }
            let outcome = req.send_json(body);
            let retryable = match &outcome {
                Ok(resp) => resp.status().as_u16() == 429 || resp.status().is_server_error(),
                Err(e) => !is_timeout(e),
            };
            if retryable && attempt < RETRIES {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(200 * u64::from(attempt)));
                continue;
            }
            let mut resp = outcome.map_err(|e| self.unreachable(&e))?;
            let status = resp.status();
            let text = resp
                .body_mut()
                .read_to_string()
                .map_err(|e| self.unreachable(&e))?;
            if !status.is_success() {
                return Err(LlmError::Status {
                    endpoint: self.endpoint.clone(),
                    status: status.as_u16(),
                    body: quote(&text),
                });
            }
            return serde_json::from_str(&text).map_err(|e| {
                self.garbage(format!("the response is not JSON ({e}): {}", quote(&text)))
            });
        }
    }

    fn unreachable(&self, e: &ureq::Error) -> LlmError {
        let message = if is_timeout(e) {
            format!(
                "no answer within {} s; a slow model needs a longer timeout",
                self.timeout_secs
            )
        } else {
            e.to_string()
        };
        LlmError::Unreachable {
            endpoint: self.endpoint.clone(),
            message,
        }
    }

    /// The error for an answer that is not what was asked for.
    pub fn garbage(&self, message: impl Into<String>) -> LlmError {
        LlmError::Garbage {
            endpoint: self.endpoint.clone(),
            message: message.into(),
        }
    }
}

fn is_timeout(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(io) => io.kind() == std::io::ErrorKind::TimedOut,
        _ => false,
    }
}

/// `choices[0].message.content`: a string, an object (some servers decode JSON mode
/// themselves), or a list of text parts (joined).
fn message_content(envelope: &Value) -> Option<Value> {
    let content = envelope.pointer("/choices/0/message/content")?;
    match content {
        Value::String(_) | Value::Object(_) => Some(content.clone()),
        Value::Array(parts) => {
            let text: String = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            Some(Value::String(text))
        }
        _ => None,
    }
}

/// The first `QUOTE` characters of `text`, for error messages.
fn quote(text: &str) -> String {
    let text = text.trim();
    let mut out: String = text.chars().take(QUOTE).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    format!("`{out}`")
}

/// The JSON object or array in a model's answer, tolerating what models wrap it in.
/// Tried in order: a reasoning block (`<think>…</think>`) is dropped; the whole text;
/// the inside of each ```` ```json ```` or ```` ``` ```` fence (an unclosed fence runs
/// to the end); the first balanced `{…}` or `[…]` span that parses, found by a scan
/// that knows strings and escapes, so prose before and after is ignored. In the scan
/// an object, or an array of objects or arrays, wins over an array of scalars such as
/// a `[1]` footnote in the prose. Scalars are never returned.
pub fn extract_json(text: &str) -> Option<Value> {
    let text = match text.rfind("</think>") {
        Some(end) => &text[end + "</think>".len()..],
        None => text,
    };
    let text = text.trim_start_matches('\u{feff}').trim();
    if let Some(value) = parse_structure(text) {
        return Some(value);
    }
    for inner in fenced_blocks(text) {
        if let Some(value) = parse_structure(inner.trim()) {
            return Some(value);
        }
    }
    let spans = balanced_spans(text);
    let parsed = || spans.iter().filter_map(|span| parse_structure(span));
    parsed()
        .find(|v| match v {
            Value::Array(items) => !items.is_empty() && items.iter().all(is_container),
            _ => true,
        })
        .or_else(|| parsed().next())
}

fn is_container(v: &Value) -> bool {
    v.is_object() || v.is_array()
}

fn parse_structure(text: &str) -> Option<Value> {
    serde_json::from_str::<Value>(text)
        .ok()
        .filter(is_container)
}

/// The insides of the ``` fences in `text`, skipping the language tag.
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // The language tag runs to the end of the line; `{` or `[` starts content.
        let body_start = after.find(['\n', '{', '[']).map_or(after.len(), |i| {
            if after[i..].starts_with('\n') {
                i + 1
            } else {
                i
            }
        });
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                blocks.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                blocks.push(body);
                break;
            }
        }
    }
    blocks
}

/// Every balanced `{…}` or `[…]` span of `text`, by start position. Brackets inside
/// JSON strings (with `\"` escapes) do not count; a mismatched closer ends a span
/// attempt.
fn balanced_spans(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    for (start, &b) in bytes.iter().enumerate() {
        if b != b'{' && b != b'[' {
            continue;
        }
        let mut closers = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        for (i, &c) in bytes.iter().enumerate().skip(start) {
            if in_string {
                match c {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                b'"' => in_string = true,
                b'{' => closers.push(b'}'),
                b'[' => closers.push(b']'),
                b'}' | b']' => {
                    if closers.pop() != Some(c) {
                        break;
                    }
                    if closers.is_empty() {
                        spans.push(&text[start..=i]);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    spans
}

/// The categories a fact may have (the rule engine's); anything else becomes
/// `attribute`.
pub use crate::models::rules::CATEGORIES;

/// The durabilities a fact may have; anything else becomes `persistent`.
pub const DURABILITIES: [&str; 4] = ["transient", "session", "persistent", "permanent"];

/// One standalone fact found in the input.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ExtractedFact {
    /// Third person, one idea, readable alone ("Lives in Lisbon").
    pub content: String,
    /// `user` for the speaker, a lowercase first name for another person, a
    /// hyphenated lowercase name for an organisation.
    pub subject: String,
    /// One of [`CATEGORIES`].
    pub category: String,
    /// One of [`DURABILITIES`].
    pub durability: String,
    /// 0..=1.
    pub importance: f64,
    /// What the fact is a value of, when one value holds at a time
    /// (`residence`, `employer`, `favorite:band`, `my:door code`); lowercase,
    /// without words of recency ("new", "now").
    #[serde(default)]
    pub attribute: Option<String>,
    /// The day it happened, when the text says (time words resolved).
    pub date: Option<NaiveDate>,
}

/// The system prompt of extraction (observe).
pub const EXTRACT_PROMPT: &str = r#"You turn what a user tells an AI assistant into long-term memories.
Answer with a JSON object and nothing else:
{"facts": [{"content": "...", "subject": "...", "category": "...", "durability": "...", "importance": 0.5, "attribute": "...", "date": "YYYY-MM-DD"}]}
Answer {"facts": []} when there is nothing worth remembering: greetings, small talk, thanks, questions, chatter about the weather.

content
- One idea per fact: "I live in Lisbon and work at Stripe" is two facts.
- Each fact must stand alone, read months later without the conversation: resolve pronouns and words like "there" or "that job"; keep the dates, places and names that were said.
- Third person, present tense when still true, in the speaker's own words: change the subject and the verb that agrees with it, keep the rest ("I mostly write Ruby" -> "Mostly writes Ruby"). For the speaker, leave the name out and start with the verb: "Lives in Lisbon", "Works at Stripe as an SRE", "Is allergic to peanuts", "Prefers tea to coffee". For anyone else, name them and say who they are to the speaker, so the fact never reads as the speaker's own: "Omar, the user's husband, is a dentist"; "Bruno, the user's neighbour, adores jazz"; "The user's sister is allergic to cats".
- Time words are resolved against the date of the conversation given with the text, and the date is written after them: said on 2026-03-02, "I ran a half marathon yesterday" -> "Ran a half marathon yesterday (2026-03-01)", "last month" -> "(2026-02)". Put that day in "date" when the fact happened on a known day.
- Leave out asides and filler ("fyi", "lol", "just so you know"), greetings and questions around the statement.
- A correction or a change is a fact with the new value ("Actually I moved to Porto" -> "Lives in Porto"; "I switched jobs, I'm at GitHub now" -> "Works at GitHub"); a retraction states the new state ("I'm not vegetarian any more", "I'm not lactose intolerant after all" -> "Is no longer vegetarian", "Is no longer lactose intolerant"). An ending is an event that names what ended ("Sadly Miso passed away last week" -> "Miso, the user's cat, passed away last week (2026-02-23)").
- Only what the speaker states or clearly implies; never the assistant's suggestions, never guesses.
- Write in the language of the text.

subject
- "user" for the speaker.
- Another person: their first name in lowercase ("my wife Jennifer is a doctor" -> "jennifer"). The link to the speaker is a separate fact about "user": "Is married to Jennifer".
- An organisation, product, project or pet: its name in lowercase with hyphens ("Acme Corp" -> "acme-corp").

category, exactly one of:
- identity: name, age, birthday, nationality, where they live, languages
- profession: job, employer, role, studies, work skills
- preference: likes, dislikes, favourites, how they want things done
- belief: opinions, values, religion, politics
- relationship: family, partner, friends, colleagues, pets
- attribute: health, allergies, possessions, appearance, other lasting traits
- pattern: habits and routines ("Runs every morning")
- event: something that happened or is planned at a time ("Visited Japan in May 2023")
- task: something to do, a reminder, a deadline

durability, exactly one of:
- transient: true for minutes or hours (current mood)
- session: true for this conversation or task: what they are doing at the moment ("at the moment I'm fixing a flaky login test" -> "Is fixing a flaky login test", category task)
- persistent: true for months or years but may change (job, city, preferences)
- permanent: will not change (birthplace, past events, lifelong conditions)

attribute, only when the subject has one value of it at a time, so that a new value replaces the old:
- residence, employer, role, profession, partner, name, age, birthday, origin, diet
- favorite:<thing> for a favourite ("favorite:band"); my:<thing> for a code, number or other value the speaker owns ("my:door code")
- lowercase, never with words like "new", "now", "current", "these days" ("my new phone number" -> "my:phone number")
- leave it out for things that have many values at once: likes, dislikes, hobbies, pets, languages, allergies, events

importance, a number from 0 to 1:
- 0.9 to 1: "remember that ...", corrections of earlier information, health and safety (allergies)
- 0.7 to 0.8: stated preferences, identity, job, close relationships
- 0.4 to 0.6: ordinary personal details and events
- 0.1 to 0.3: minor details

Example. Said on 2026-03-02: "Hi! My wife Jennifer is a doctor, and please remember that I hate cilantro. We hiked Ben Nevis yesterday, fyi."
{"facts": [
 {"content": "Is married to Jennifer", "subject": "user", "category": "relationship", "durability": "persistent", "importance": 0.8, "attribute": "partner"},
 {"content": "Jennifer, the user's wife, is a doctor", "subject": "jennifer", "category": "profession", "durability": "persistent", "importance": 0.6, "attribute": "profession"},
 {"content": "Hates cilantro", "subject": "user", "category": "preference", "durability": "persistent", "importance": 0.9},
 {"content": "Hiked Ben Nevis with Jennifer yesterday (2026-03-01)", "subject": "user", "category": "event", "durability": "permanent", "importance": 0.5, "date": "2026-03-01"}
]}"#;

/// Extracts standalone facts from `text`. `speaker_hint` names the speaker (e.g. a
/// chat participant); facts about them get the subject `user`.
///
/// The answer is validated: facts with empty content are dropped (and exact
/// duplicates); importance is clamped into 0..=1 (missing: 0.5); an unknown category
/// becomes `attribute`, an unknown durability `persistent`; the subject is
/// lowercased and trimmed with inner spaces turned into hyphens, and an empty one,
/// or one naming the speaker, becomes `user`. A top-level array of facts is accepted
/// as well as `{"facts": [...]}`; any other shape is [`LlmError::Garbage`].
pub fn extract_facts(
    model: &ChatModel,
    text: &str,
    speaker_hint: Option<&str>,
    now: Timestamp,
) -> Result<Vec<ExtractedFact>, LlmError> {
    let speaker = speaker_hint.map(str::trim).filter(|s| !s.is_empty());
    // The date the time words are resolved against.
    let said = format!("Said on {}.", now.format("%Y-%m-%d (%A)"));
    let user = match speaker {
        Some(name) => format!(
            "The speaker is {name}. Facts about {name} have the subject \"user\".\n{said}\n\nText:\n{text}"
        ),
        None => format!("{said}\n\nText:\n{text}"),
    };
    let answer = model.complete_json(EXTRACT_PROMPT, &user)?;
    facts_from_answer(&answer, speaker).map_err(|message| model.garbage(message))
}

fn facts_from_answer(answer: &Value, speaker: Option<&str>) -> Result<Vec<ExtractedFact>, String> {
    let items = match answer {
        Value::Array(items) => items,
        Value::Object(map) => match map.get("facts").or_else(|| map.get("memories")) {
            Some(Value::Array(items)) => items,
            Some(Value::Null) => return Ok(Vec::new()),
            _ => {
                return Err(format!(
                    "expected {{\"facts\": [...]}}, got {}",
                    quote(&answer.to_string())
                ));
            }
        },
        _ => {
            return Err(format!(
                "expected an object, got {}",
                quote(&answer.to_string())
            ));
        }
    };
    let mut facts: Vec<ExtractedFact> = Vec::new();
    for fact in items
        .iter()
        .filter_map(|item| fact_from_value(item, speaker))
    {
        let duplicate = facts
            .iter()
            .any(|f| f.subject == fact.subject && f.content.eq_ignore_ascii_case(&fact.content));
        if !duplicate {
            facts.push(fact);
        }
    }
    Ok(facts)
}

fn fact_from_value(item: &Value, speaker: Option<&str>) -> Option<ExtractedFact> {
    // A bare string is a fact with defaults: small models do that.
    let field = |key: &str| item.get(key).and_then(Value::as_str).map(str::trim);
    let content = item.as_str().or_else(|| field("content"))?.trim();
    if content.is_empty() {
        return None;
    }
    let category = field("category").unwrap_or_default().to_lowercase();
    let durability = field("durability").unwrap_or_default().to_lowercase();
    let importance = match item.get("importance") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|x| !x.is_nan())
    .unwrap_or(0.5)
    .clamp(0.0, 1.0);
    let attribute = field("attribute")
        .map(|a| crate::models::rules::attribute_name(&a.to_lowercase()))
        .filter(|a| !a.is_empty());
    // A day that is no date is no date: dropped, never guessed.
    let date = field("date").and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
    Some(ExtractedFact {
        date,
        attribute,
        content: content.to_string(),
        subject: normalize_subject(field("subject").unwrap_or_default(), speaker),
        category: if CATEGORIES.contains(&category.as_str()) {
            category
        } else {
            "attribute".to_string()
        },
        durability: if DURABILITIES.contains(&durability.as_str()) {
            durability
        } else {
            "persistent".to_string()
        },
        importance,
    })
}

fn normalize_subject(subject: &str, speaker: Option<&str>) -> String {
    let subject = subject
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase();
    let is_speaker = |name: &str| {
        let name = name.trim().to_lowercase();
        let first = name.split_whitespace().next().unwrap_or_default();
        subject == name.split_whitespace().collect::<Vec<_>>().join("-") || subject == first
    };
    match subject.as_str() {
        "" | "user" | "the-user" | "speaker" | "the-speaker" | "me" | "i" => "user".to_string(),
        _ if speaker.is_some_and(is_speaker) => "user".to_string(),
        _ => subject,
    }
}

/// What reconciliation does with a new fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Store the fact as a new memory.
    Add,
    /// Replace the target memory with `content` (the old one is superseded).
    Update,
    /// Retract the target memory (it is invalidated).
    Delete,
    /// Nothing new; the target, if any, is reinforced.
    Noop,
}

/// The reconciliation of one fact. `target` is always one of the temporary ids the
/// caller offered (never an id the model made up); `content` is set for `Add` and
/// `Update` only.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub op: Op,
    pub target: Option<u32>,
    pub content: Option<String>,
    pub reason: String,
}

/// The system prompt of reconciliation (reflect).
pub const RECONCILE_PROMPT: &str = r#"You keep a memory store consistent. You get one new fact and the existing memories closest to it, each with a temporary numeric id. Choose one operation and answer with a JSON object and nothing else:
{"op": "ADD" | "UPDATE" | "DELETE" | "NOOP", "id": <id of the existing memory concerned, or null>, "content": <the memory to store for ADD and UPDATE, else null>, "reason": <a short reason>}

- NOOP: an existing memory already says this (a restatement, or the same with less detail). id: that memory.
- UPDATE: the fact gives a new value of the same attribute as an existing memory: moved to another city, new job, a preference that flipped, a corrected or more detailed version of the same thing. id: the memory it replaces; content: the complete new memory, standalone, in the style of the fact.
- DELETE: the fact retracts an existing memory without giving a new value ("Is no longer vegetarian" against "Is vegetarian"). id: the memory retracted.
- ADD: no existing memory covers this attribute. id: null; content: the fact.

Use only the ids listed. Memories about a different subject, or a different attribute of the same subject, are unrelated to the fact: ADD. Liking two things is not a contradiction ("Likes jazz" and "Likes rock" are both kept).

Examples:
Existing: [0] Lives in Berlin. Fact: Lives in Lisbon -> {"op": "UPDATE", "id": 0, "content": "Lives in Lisbon", "reason": "moved from Berlin to Lisbon"}
Existing: [0] Works at Stripe as an SRE. Fact: Is an SRE at Stripe -> {"op": "NOOP", "id": 0, "content": null, "reason": "restatement"}
Existing: [0] Is vegetarian. Fact: Is no longer vegetarian -> {"op": "DELETE", "id": 0, "content": null, "reason": "no longer vegetarian"}
Existing: [0] Lives in Lisbon. Fact: Has a dog named Rex -> {"op": "ADD", "id": null, "content": "Has a dog named Rex", "reason": "new information"}"#;

/// Reconciles `fact` against `existing`: the closest existing memories under
/// temporary ids chosen by the caller (never real record ids) with their content.
/// With no existing memory the answer is `Add` without asking the model.
///
/// The model's answer is checked against the ids offered (op names are
/// case-insensitive, `NONE` is read as `NOOP`, an id may be a number or a numeric
/// string):
/// - `UPDATE` with an id not offered, or none, becomes `Add` of the fact;
/// - `NOOP` with an id not offered, or none, becomes `Add` of the fact, so a memory
///   is never lost to an invented id;
/// - `DELETE` with an id not offered, or none, becomes `Noop` with no target and a
///   reason saying the id was invented, so nothing is retracted on a guess;
/// - `ADD` never has a target; `Add` or `Update` without content use the fact's.
///
/// An answer without a known op is [`LlmError::Garbage`].
pub fn reconcile(
    model: &ChatModel,
    fact: &ExtractedFact,
    existing: &[(u32, String)],
) -> Result<Decision, LlmError> {
    if existing.is_empty() {
        return Ok(Decision {
            op: Op::Add,
            target: None,
            content: Some(fact.content.clone()),
            reason: "no existing memory to compare with".to_string(),
        });
    }
    let mut user = String::from("Existing memories:\n");
    for (id, content) in existing {
        user.push_str(&format!("[{id}] {}\n", content.trim()));
    }
    user.push_str(&format!(
        "\nNew fact (subject: {}, category: {}): {}",
        fact.subject, fact.category, fact.content
    ));
    let answer = model.complete_json(RECONCILE_PROMPT, &user)?;
    decide(&answer, fact, existing).map_err(|message| model.garbage(message))
}

fn decide(
    answer: &Value,
    fact: &ExtractedFact,
    existing: &[(u32, String)],
) -> Result<Decision, String> {
    // Some models wrap the decision in a one-element list.
    let answer = match answer {
        Value::Array(items) if items.len() == 1 => &items[0],
        _ => answer,
    };
    let text = |key: &str| {
        answer
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let op = match text("op")
        .or_else(|| text("event"))
        .map(str::to_ascii_uppercase)
    {
        Some(op) if op == "ADD" => Op::Add,
        Some(op) if op == "UPDATE" => Op::Update,
        Some(op) if op == "DELETE" => Op::Delete,
        Some(op) if op == "NOOP" || op == "NONE" || op == "NO_OP" => Op::Noop,
        _ => {
            return Err(format!(
                "expected {{\"op\": \"ADD|UPDATE|DELETE|NOOP\", ...}}, got {}",
                quote(&answer.to_string())
            ));
        }
    };
    let named = match answer.get("id") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().trim_matches(['[', ']']).parse::<u64>().ok(),
        _ => None,
    };
    let target = named
        .and_then(|id| u32::try_from(id).ok())
        .filter(|id| existing.iter().any(|(offered, _)| offered == id));
    let reason = text("reason")
        .unwrap_or("the model gave no reason")
        .to_string();
    let content = text("content").map(str::to_string);
    let invented = match named {
        Some(id) => format!("the model named id {id}, which was not offered"),
        None => "the model named no id".to_string(),
    };
    let add_fact = |why: String| Decision {
        op: Op::Add,
        target: None,
        content: Some(fact.content.clone()),
        reason: why,
    };
    Ok(match (op, target) {
        (Op::Add, _) => Decision {
            op: Op::Add,
            target: None,
            content: content.or_else(|| Some(fact.content.clone())),
            reason,
        },
        (Op::Update, Some(id)) => Decision {
            op: Op::Update,
            target: Some(id),
            content: content.or_else(|| Some(fact.content.clone())),
            reason,
        },
        (Op::Delete, Some(id)) => Decision {
            op: Op::Delete,
            target: Some(id),
            content: None,
            reason,
        },
        (Op::Noop, Some(id)) => Decision {
            op: Op::Noop,
            target: Some(id),
            content: None,
            reason,
        },
        (Op::Update, None) => add_fact(format!("UPDATE dropped ({invented}); added instead")),
        (Op::Noop, None) => add_fact(format!("NOOP dropped ({invented}); added instead")),
        (Op::Delete, None) => Decision {
            op: Op::Noop,
            target: None,
            content: None,
            reason: format!("DELETE ignored: {invented}"),
        },
    })
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::thread::{self, JoinHandle};
    use std::time::{Duration, Instant};

    use super::*;

    fn said_on() -> Timestamp {
        crate::clock::parse_time("2026-03-02T10:00:00Z").unwrap()
    }

    // ---- tolerant JSON parsing ----

    #[test]
    fn whole_text_is_json() {
        assert_eq!(extract_json(r#" {"a": 1} "#), Some(json!({"a": 1})));
        assert_eq!(extract_json("[1, 2]"), Some(json!([1, 2])));
    }

    #[test]
    fn scalars_are_not_answers() {
        assert_eq!(extract_json("42"), None);
        assert_eq!(extract_json(r#""text""#), None);
        assert_eq!(extract_json("no json here"), None);
        assert_eq!(extract_json(""), None);
    }

    #[test]
    fn json_fence_with_prose_around() {
        let text = "Here you go:\n```json\n{\"facts\": []}\n```\nAnything else?";
        assert_eq!(extract_json(text), Some(json!({"facts": []})));
    }

    #[test]
    fn bare_fence() {
        let text = "Sure.\n```\n[{\"a\": \"b\"}]\n```";
        assert_eq!(extract_json(text), Some(json!([{"a": "b"}])));
    }

    #[test]
    fn unclosed_fence_runs_to_the_end() {
        let text = "```json\n{\"op\": \"ADD\"}";
        assert_eq!(extract_json(text), Some(json!({"op": "ADD"})));
    }

    #[test]
    fn balanced_span_with_prose_before_and_after() {
        let text = "The answer is {\"op\": \"NOOP\", \"id\": 0} as requested.";
        assert_eq!(extract_json(text), Some(json!({"op": "NOOP", "id": 0})));
    }

    #[test]
    fn braces_inside_strings_do_not_count() {
        let text =
            r#"Result: {"content": "Uses {curly} and ] and [ in code", "n": {"x": "}"}} done"#;
        assert_eq!(
            extract_json(text),
            Some(json!({"content": "Uses {curly} and ] and [ in code", "n": {"x": "}"}}))
        );
    }

    #[test]
    fn escaped_quotes_inside_strings() {
        let text = r#"ok {"content": "Said \"hi {\" twice", "k": [1]} end"#;
        assert_eq!(
            extract_json(text),
            Some(json!({"content": "Said \"hi {\" twice", "k": [1]}))
        );
    }

    #[test]
    fn unparsable_span_is_skipped() {
        let text = "I think {this} is it: {\"a\": [1, {\"b\": 2}]}";
        assert_eq!(extract_json(text), Some(json!({"a": [1, {"b": 2}]})));
    }

    #[test]
    fn object_beats_scalar_array_footnote() {
        let text = "See [1] below: {\"facts\": []}";
        assert_eq!(extract_json(text), Some(json!({"facts": []})));
        assert_eq!(extract_json("No facts: []"), Some(json!([])));
    }

    #[test]
    fn reasoning_block_is_dropped() {
        let text = "<think>maybe {\"op\": \"DELETE\"}?</think>\n{\"op\": \"ADD\"}";
        assert_eq!(extract_json(text), Some(json!({"op": "ADD"})));
    }

    #[test]
    fn unbalanced_text_gives_none() {
        assert_eq!(extract_json("{\"a\": [1, 2}"), None);
        assert_eq!(extract_json("{\"a\": \"unterminated}"), None);
    }

    // ---- validation of answers ----

    fn fact(content: &str) -> ExtractedFact {
        ExtractedFact {
            content: content.into(),
            subject: "user".into(),
            category: "identity".into(),
            durability: "persistent".into(),
            importance: 0.7,
            attribute: None,
            date: None,
        }
    }

    #[test]
    fn facts_are_validated() {
        let answer = json!({"facts": [
            {"content": "  Lives in Lisbon ", "subject": "", "category": "Identity",
             "durability": "PERSISTENT", "importance": 1.7},
            {"content": "", "subject": "user"},
            {"content": "Jennifer is a doctor", "subject": " Jennifer ", "category": "job",
             "durability": "forever", "importance": -2},
            {"content": "Uses Rust", "subject": "Acme Corp", "importance": "0.4"},
            {"content": "Likes tea", "subject": "Caroline", "category": "preference"},
            {"content": "lives in lisbon", "subject": "user", "category": "identity"},
            "Has a cat",
            17
        ]});
        let facts = facts_from_answer(&answer, Some("Caroline")).unwrap();
        let got: Vec<_> = facts
            .iter()
            .map(|f| {
                (
                    f.content.as_str(),
                    f.subject.as_str(),
                    f.category.as_str(),
                    f.durability.as_str(),
                    f.importance,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("Lives in Lisbon", "user", "identity", "persistent", 1.0),
                (
                    "Jennifer is a doctor",
                    "jennifer",
                    "attribute",
                    "persistent",
                    0.0
                ),
                ("Uses Rust", "acme-corp", "attribute", "persistent", 0.4),
                ("Likes tea", "user", "preference", "persistent", 0.5),
                ("Has a cat", "user", "attribute", "persistent", 0.5),
            ]
        );
    }

    #[test]
    fn facts_shapes() {
        assert_eq!(facts_from_answer(&json!({"facts": []}), None), Ok(vec![]));
        assert_eq!(facts_from_answer(&json!({"facts": null}), None), Ok(vec![]));
        assert_eq!(
            facts_from_answer(&json!([{"content": "Is tall"}]), None).unwrap()[0].content,
            "Is tall"
        );
        assert!(facts_from_answer(&json!({"answer": "none"}), None).is_err());
    }

    #[test]
    fn decisions_keep_only_offered_ids() {
        let existing = vec![
            (0, "Lives in Berlin".to_string()),
            (1, "Is vegetarian".to_string()),
        ];
        let new = fact("Lives in Lisbon");
        let d = |answer: Value| decide(&answer, &new, &existing).unwrap();

        let update =
            d(json!({"op": "update", "id": 0, "content": "Lives in Lisbon", "reason": "moved"}));
        assert_eq!(
            (update.op, update.target, update.content.as_deref()),
            (Op::Update, Some(0), Some("Lives in Lisbon"))
        );
        assert_eq!(update.reason, "moved");

        let update = d(json!({"op": "UPDATE", "id": 7, "content": "Lives in Lisbon (merged)"}));
        assert_eq!(
            (update.op, update.target, update.content.as_deref()),
            (Op::Add, None, Some("Lives in Lisbon"))
        );
        assert!(update.reason.contains("id 7"));

        let noop = d(json!({"op": "Noop", "id": "1"}));
        assert_eq!(
            (noop.op, noop.target, noop.content),
            (Op::Noop, Some(1), None)
        );
        let noop = d(json!({"op": "NONE", "id": 9}));
        assert_eq!(
            (noop.op, noop.target, noop.content.as_deref()),
            (Op::Add, None, Some("Lives in Lisbon"))
        );
        let noop = d(json!({"op": "NOOP", "id": null}));
        assert_eq!(noop.op, Op::Add);

        let delete = d(json!({"op": "DELETE", "id": 1, "content": "x"}));
        assert_eq!(
            (delete.op, delete.target, delete.content),
            (Op::Delete, Some(1), None)
        );
        let delete = d(json!({"op": "delete", "id": 4}));
        assert_eq!((delete.op, delete.target), (Op::Noop, None));
        assert!(delete.reason.contains("not offered"));

        let add = d(json!({"op": "ADD", "id": 0}));
        assert_eq!(
            (add.op, add.target, add.content.as_deref()),
            (Op::Add, None, Some("Lives in Lisbon"))
        );
        assert_eq!(add.reason, "the model gave no reason");

        assert!(decide(&json!({"op": "MERGE"}), &new, &existing).is_err());
        assert!(decide(&json!({"facts": []}), &new, &existing).is_err());
    }

    #[test]
    fn from_config_builds_the_endpoint() {
        let cfg = |url: &str| LlmConfig {
            url: url.into(),
            model: "qwen3".into(),
            api_key: String::new(),
        };
        assert!(ChatModel::from_config(&cfg(""), 5.0).is_none());
        assert!(ChatModel::from_config(&cfg("  "), 5.0).is_none());
        let m = ChatModel::from_config(&cfg("http://h:1/v1/"), 5.0).unwrap();
        assert_eq!(m.endpoint(), "http://h:1/v1/chat/completions");
        assert_eq!(m.name(), "openai:qwen3");
        let m = ChatModel::from_config(&cfg("http://h:1/v1/chat/completions"), 5.0).unwrap();
        assert_eq!(m.endpoint(), "http://h:1/v1/chat/completions");
        assert!(ChatModel::from_config(&cfg("http://h:1/v1"), f64::INFINITY).is_some());
    }

    // ---- against a local HTTP server ----

    enum Reply {
        /// Status and body.
        Answer(u16, String),
        /// Accept, read the request, never answer.
        Hang,
    }

    struct Seen {
        request_line: String,
        headers: String,
        body: Value,
    }

    struct Server {
        url: String,
        handle: JoinHandle<Vec<Seen>>,
    }

    impl Server {
        /// The requests the server saw, once it has played its script.
        fn seen(self) -> Vec<Seen> {
            self.handle.join().unwrap()
        }
    }

    /// A server that answers one connection per reply in `script`, then stops. It
    /// also stops when no client comes for a while, so a failed test cannot hang.
    fn serve(script: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let handle = thread::spawn(move || {
            let mut seen = Vec::new();
            let deadline = Instant::now() + Duration::from_secs(20);
            for reply in script {
                let Some(mut stream) = accept(&listener, deadline) else {
                    break;
                };
                let Some(request) = read_request(&mut stream) else {
                    continue;
                };
                seen.push(request);
                match reply {
                    Reply::Answer(status, body) => {
                        let head = format!(
                            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n\
                             Content-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = stream.write_all(head.as_bytes());
                        let _ = stream.write_all(body.as_bytes());
                        let _ = stream.flush();
                    }
                    Reply::Hang => {
                        // Until the client gives up and closes, or the read timeout.
                        let mut buf = [0u8; 256];
                        while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
                    }
                }
            }
            seen
        });
        Server { url, handle }
    }

    fn accept(listener: &TcpListener, deadline: Instant) -> Option<TcpStream> {
        loop {
            match listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false).ok()?;
                    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
                    return Some(stream);
                }
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock && Instant::now() < deadline =>
                {
                    thread::sleep(Duration::from_millis(5));
                }
                Err(_) => return None,
            }
        }
    }

    fn read_request(stream: &mut TcpStream) -> Option<Seen> {
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        let head_end = loop {
            if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                break i;
            }
            let n = stream.read(&mut buf).ok().filter(|&n| n > 0)?;
            data.extend_from_slice(&buf[..n]);
        };
        let head = String::from_utf8_lossy(&data[..head_end]).to_string();
        let length: usize = head
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.trim().parse().ok())
            .unwrap_or(0);
        let mut body = data[head_end + 4..].to_vec();
        while body.len() < length {
            let n = stream.read(&mut buf).ok().filter(|&n| n > 0)?;
            body.extend_from_slice(&buf[..n]);
        }
        let (request_line, headers) = head.split_once("\r\n").unwrap_or((&head, ""));
        Some(Seen {
            request_line: request_line.to_string(),
            headers: headers.to_lowercase(),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        })
    }

    /// A chat completion whose message content is `content`.
    fn chat(content: &str) -> Reply {
        let body = json!({
            "id": "x",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
        });
        Reply::Answer(200, body.to_string())
    }

    fn model(url: &str, api_key: &str, timeout_secs: f64) -> ChatModel {
        let cfg = LlmConfig {
            url: url.into(),
            model: "test-model".into(),
            api_key: api_key.into(),
        };
        ChatModel::from_config(&cfg, timeout_secs).unwrap()
    }

    #[test]
    fn extraction_over_http() {
        let answer = json!({"facts": [
            {"content": "Lives in Lisbon", "subject": "user", "category": "identity",
             "durability": "persistent", "importance": 0.7},
            {"content": "Jennifer is a doctor", "subject": "jennifer", "category": "profession",
             "durability": "persistent", "importance": 0.6},
        ]});
        let server = serve(vec![chat(&answer.to_string())]);
        let m = model(&server.url, "", 5.0);
        let facts = extract_facts(
            &m,
            "I live in Lisbon; my wife Jennifer is a doctor.",
            Some("Sam"),
            said_on(),
        )
        .unwrap();
        assert_eq!(facts.len(), 2);
        assert_eq!(
            facts[0],
            ExtractedFact {
                content: "Lives in Lisbon".into(),
                subject: "user".into(),
                category: "identity".into(),
                durability: "persistent".into(),
                importance: 0.7,
                attribute: None,
                date: None,
            }
        );
        assert_eq!(facts[1].subject, "jennifer");
        let seen = server.seen();
        assert_eq!(seen.len(), 1);
        let user = seen[0].body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("my wife Jennifer") && user.contains("Sam"));
        assert!(user.contains("Said on 2026-03-02 (Monday)."), "{user}");
        assert_eq!(seen[0].body["messages"][0]["content"], EXTRACT_PROMPT);
    }

    #[test]
    fn extraction_from_fenced_answer_with_prose() {
        let content = "Sure! Here are the facts:\n```json\n{\"facts\": [{\"content\": \"Is allergic to peanuts\", \
                       \"subject\": \"user\", \"category\": \"attribute\", \"durability\": \"permanent\", \
                       \"importance\": 0.95}]}\n```\nLet me know if you need more.";
        let server = serve(vec![chat(content)]);
        let facts = extract_facts(
            &model(&server.url, "", 5.0),
            "I'm allergic to peanuts",
            None,
            said_on(),
        )
        .unwrap();
        assert_eq!(facts.len(), 1);
        assert_eq!(facts[0].content, "Is allergic to peanuts");
        assert_eq!(facts[0].durability, "permanent");
        assert_eq!(server.seen().len(), 1);
    }

    #[test]
    fn reconciliation_with_a_valid_id() {
        let server = serve(vec![chat(
            r#"{"op": "update", "id": 3, "content": "Lives in Lisbon", "reason": "moved"}"#,
        )]);
        let existing = vec![
            (2, "Works at Stripe".to_string()),
            (3, "Lives in Berlin".to_string()),
        ];
        let d = reconcile(
            &model(&server.url, "", 5.0),
            &fact("Lives in Lisbon"),
            &existing,
        )
        .unwrap();
        assert_eq!(
            d,
            Decision {
                op: Op::Update,
                target: Some(3),
                content: Some("Lives in Lisbon".into()),
                reason: "moved".into(),
            }
        );
        let seen = server.seen();
        let user = seen[0].body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("[3] Lives in Berlin") && user.contains("Lives in Lisbon"));
    }

    #[test]
    fn reconciliation_drops_an_invented_id() {
        let server = serve(vec![
            chat(r#"{"op": "UPDATE", "id": 42, "content": "Lives in Lisbon", "reason": "moved"}"#),
            chat(r#"{"op": "DELETE", "id": 42, "content": null, "reason": "retracted"}"#),
        ]);
        let m = model(&server.url, "", 5.0);
        let existing = vec![(0, "Lives in Berlin".to_string())];
        let d = reconcile(&m, &fact("Lives in Lisbon"), &existing).unwrap();
        assert_eq!(
            (d.op, d.target, d.content.as_deref()),
            (Op::Add, None, Some("Lives in Lisbon"))
        );
        let d = reconcile(&m, &fact("Is no longer in Berlin"), &existing).unwrap();
        assert_eq!((d.op, d.target, d.content), (Op::Noop, None, None));
        assert!(d.reason.contains("42"));
        assert_eq!(server.seen().len(), 2);
    }

    #[test]
    fn reconciliation_without_existing_memories_asks_nothing() {
        // No server: a call would fail.
        let m = model("http://127.0.0.1:9/v1", "", 1.0);
        let d = reconcile(&m, &fact("Lives in Lisbon"), &[]).unwrap();
        assert_eq!(
            (d.op, d.target, d.content.as_deref()),
            (Op::Add, None, Some("Lives in Lisbon"))
        );
    }

    #[test]
    fn garbage_answer_is_an_error() {
        let server = serve(vec![chat("I cannot help with that.")]);
        let m = model(&server.url, "", 5.0);
        let err = extract_facts(&m, "hello", None, said_on()).unwrap_err();
        assert!(matches!(err, LlmError::Garbage { .. }), "{err}");
        assert!(err.to_string().contains(m.endpoint()));
        assert_eq!(server.seen().len(), 1);
    }

    #[test]
    fn wrong_shape_is_garbage() {
        let server = serve(vec![
            chat(r#"{"memories_found": 2}"#),
            Reply::Answer(200, "not json at all".into()),
        ]);
        let m = model(&server.url, "", 5.0);
        let err = extract_facts(&m, "hello", None, said_on()).unwrap_err();
        assert!(matches!(err, LlmError::Garbage { .. }), "{err}");
        let err = m.complete_json("s", "u").unwrap_err();
        assert!(matches!(err, LlmError::Garbage { .. }), "{err}");
        assert_eq!(server.seen().len(), 2);
    }

    #[test]
    fn server_error_is_retried_a_bounded_number_of_times() {
        let fail = || Reply::Answer(500, r#"{"error": "boom"}"#.into());
        let server = serve(vec![fail(), fail(), fail()]);
        let m = model(&server.url, "", 5.0);
        let err = m.complete_json("s", "u").unwrap_err();
        assert!(matches!(err, LlmError::Status { status: 500, .. }), "{err}");
        assert!(err.to_string().contains(m.endpoint()));
        assert_eq!(server.seen().len(), 3);
    }

    #[test]
    fn server_error_then_success() {
        let server = serve(vec![
            Reply::Answer(500, "{}".into()),
            chat(r#"{"facts": [{"content": "Likes jazz", "subject": "user"}]}"#),
        ]);
        let facts =
            extract_facts(&model(&server.url, "", 5.0), "I like jazz", None, said_on()).unwrap();
        assert_eq!(facts.len(), 1);
        assert_eq!(facts[0].content, "Likes jazz");
        assert_eq!(server.seen().len(), 2);
    }

    #[test]
    fn client_error_is_not_retried() {
        let server = serve(vec![Reply::Answer(401, r#"{"error": "bad key"}"#.into())]);
        let err = model(&server.url, "wrong", 5.0)
            .complete_json("s", "u")
            .unwrap_err();
        assert!(matches!(err, LlmError::Status { status: 401, .. }), "{err}");
        assert!(err.to_string().contains("api key"));
        assert_eq!(server.seen().len(), 1);
    }

    #[test]
    fn hanging_server_times_out() {
        let server = serve(vec![Reply::Hang]);
        let m = model(&server.url, "", 0.5);
        let err = m.complete_json("s", "u").unwrap_err();
        assert!(matches!(err, LlmError::Unreachable { .. }), "{err}");
        assert_eq!(server.seen().len(), 1);
    }

    #[test]
    fn request_carries_model_temperature_and_token() {
        let server = serve(vec![chat("{}"), chat("{}")]);
        model(&server.url, "sk-test", 5.0)
            .complete_json("sys", "usr")
            .unwrap();
        model(&server.url, "", 5.0)
            .complete_json("sys", "usr")
            .unwrap();
        let seen = server.seen();
        assert_eq!(seen[0].request_line, "POST /v1/chat/completions HTTP/1.1");
        let body = &seen[0].body;
        assert_eq!(body["model"], "test-model");
        assert_eq!(body["temperature"].as_f64(), Some(0.0));
        assert_eq!(body["response_format"], json!({"type": "json_object"}));
        assert_eq!(
            body["messages"],
            json!([{"role": "system", "content": "sys"}, {"role": "user", "content": "usr"}])
        );
        assert!(
            seen[0].headers.contains("authorization: bearer sk-test"),
            "{}",
            seen[0].headers
        );
        assert!(!seen[1].headers.contains("authorization"));
    }
}

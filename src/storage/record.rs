//! The record: one memory, as it lives in a markdown file with YAML frontmatter.
//!
//! This module owns the file format and nothing else: it parses text into a
//! [`Record`] and renders a record back into text. It knows nothing of paths on
//! disk beyond what the caller tells it. Invariants:
//! - keys it does not know survive a parse/render round trip, in their place;
//! - rendering a parsed record that was not changed gives back the same keys in the
//!   same order, so rewrites do not churn in git;
//! - a file with no frontmatter, or frontmatter without `id`, is still a record
//!   (a note written by hand): the caller supplies the fallbacks.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde_yaml::{Mapping, Value};

use crate::clock::{Timestamp, format_time, parse_time};

/// The memory tier a record belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Working,
    Episodic,
    Semantic,
    Procedural,
}

impl Kind {
    /// All kinds, in tier order.
    pub const ALL: [Kind; 4] = [
        Kind::Working,
        Kind::Episodic,
        Kind::Semantic,
        Kind::Procedural,
    ];

    /// The lowercase name used in files, folders and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Working => "working",
            Kind::Episodic => "episodic",
            Kind::Semantic => "semantic",
            Kind::Procedural => "procedural",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Kind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "working" => Ok(Kind::Working),
            "episodic" => Ok(Kind::Episodic),
            "semantic" => Ok(Kind::Semantic),
            "procedural" => Ok(Kind::Procedural),
            other => Err(format!(
                "unknown kind '{other}'; use working, episodic, semantic or procedural"
            )),
        }
    }
}

/// Where a record stands in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Status {
    #[default]
    Active,
    Superseded,
    Invalidated,
    Archived,
}

impl Status {
    /// All statuses.
    pub const ALL: [Status; 4] = [
        Status::Active,
        Status::Superseded,
        Status::Invalidated,
        Status::Archived,
    ];

    /// The lowercase name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Superseded => "superseded",
            Status::Invalidated => "invalidated",
            Status::Archived => "archived",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Status {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "active" => Ok(Status::Active),
            "superseded" => Ok(Status::Superseded),
            "invalidated" => Ok(Status::Invalidated),
            "archived" => Ok(Status::Archived),
            other => Err(format!(
                "unknown status '{other}'; use active, superseded, invalidated or archived"
            )),
        }
    }
}

/// One memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: String,
    pub kind: Kind,
    pub created: Timestamp,
    pub updated: Option<Timestamp>,
    pub subject: Option<String>,
    pub category: Option<String>,
    /// What the fact is a value of (`residence`, `favorite:band`, `my:door code`):
    /// one current value per subject, attribute and scope.
    pub attribute: Option<String>,
    /// A keyed fact's key (`engram set KEY VALUE`): one current value per key
    /// and scope; the body is the value.
    pub key: Option<String>,
    pub durability: Option<String>,
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub importance: Option<f64>,
    pub confidence: Option<f64>,
    pub reinforced: Option<u64>,
    pub last_reinforced: Option<Timestamp>,
    /// A procedure's runs that went well and badly (`engram outcome`).
    pub successes: Option<u64>,
    pub failures: Option<u64>,
    /// How the procedure's latest run went: `success` or `failure`.
    pub last_outcome: Option<String>,
    pub status: Status,
    pub valid_from: Option<Timestamp>,
    pub valid_to: Option<Timestamp>,
    pub expires: Option<Timestamp>,
    pub supersedes: Option<String>,
    pub superseded_by: Option<String>,
    /// What invalidated the record: a wikilink to a record, or a command.
    pub invalidated_by: Option<String>,
    /// Why the record ended (or was restored), in words.
    pub reason: Option<String>,
    pub sources: Vec<String>,
    pub tags: Vec<String>,
    pub pinned: Option<bool>,
    /// The session turn a working-memory entry entered at (for its salience).
    pub turn: Option<u64>,
    /// Who said it, for a message kept as said: user, assistant, system, tool.
    pub role: Option<String>,
    /// Whether consolidation has read this episode.
    pub consolidated: Option<bool>,
    /// Caller-owned strings, kept verbatim.
    pub meta: BTreeMap<String, String>,
    /// Keys the tool does not know, with their values, in file order.
    pub extra: Mapping,
    /// The order of keys as read from the file (empty for a new record).
    pub key_order: Vec<String>,
    /// Whether the file had frontmatter at all.
    pub has_frontmatter: bool,
    /// Whether `id` came from the file (false: derived from the path by the caller).
    pub id_in_file: bool,
    /// Everything after the frontmatter, verbatim.
    pub body: String,
}

/// The keys engram knows, in the order it writes them for a new record.
pub const KNOWN_KEYS: [&str; 34] = [
    "id",
    "kind",
    "subject",
    "category",
    "attribute",
    "key",
    "durability",
    "user",
    "agent",
    "session",
    "created",
    "updated",
    "importance",
    "confidence",
    "reinforced",
    "last_reinforced",
    "successes",
    "failures",
    "last_outcome",
    "status",
    "valid_from",
    "valid_to",
    "expires",
    "supersedes",
    "superseded_by",
    "invalidated_by",
    "reason",
    "sources",
    "tags",
    "pinned",
    "turn",
    "role",
    "consolidated",
    "meta",
];

/// The tag of a session summary (an episode `consolidate --session` writes):
/// what `--format context` shows as the last session and a transcript opens
/// with.
pub const SUMMARY_TAG: &str = "summary";

/// A failure to parse a record file, with the 1-based line it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

/// What the caller knows about a file that the file itself may not say.
#[derive(Debug, Clone)]
pub struct Fallbacks {
    /// Id to use when the frontmatter has none (derived from the path).
    pub id: String,
    /// Kind to use when the frontmatter has none (from the top folder).
    pub kind: Kind,
    /// Creation time to use when the frontmatter has none (the file's mtime).
    pub created: Timestamp,
}

/// The largest frontmatter engram reads, in bytes; a bigger one makes the file
/// broken (reported, skipped) rather than a cost on every sync.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The deepest nesting of lists and maps that a frontmatter may have.
pub const MAX_FRONTMATTER_DEPTH: usize = 32;

/// Refuses frontmatter too big or too deeply nested to be a note's properties,
/// before the YAML parser spends time on it. Depth counts the brackets of flow
/// lists and maps (a value that starts with `[` or `{`), outside quotes; block
/// nesting deep enough to matter cannot fit in the size limit.
fn check_frontmatter_size(frontmatter: &str) -> Result<(), ParseError> {
    if frontmatter.len() > MAX_FRONTMATTER_BYTES {
        return Err(ParseError {
            line: 2,
            message: format!(
                "the frontmatter is {} KiB, more than the {} KiB engram reads; move long values into the note's body",
                frontmatter.len() / 1024,
                MAX_FRONTMATTER_BYTES / 1024
            ),
        });
    }
    let too_deep = |line: usize| ParseError {
        line,
        message: format!(
            "the frontmatter nests lists or maps more than {MAX_FRONTMATTER_DEPTH} deep; flatten it"
        ),
    };
    // `opens`: whether a value may start here (line start, after `: ` or a
    // list's `- `, or inside a flow collection after `[`, `{`, `,`); only there
    // does a bracket open a collection, a quote a quoted value, `|` or `>` a
    // block of text (whose more indented lines are text, not structure).
    let (mut depth, mut quote, mut opens) = (0usize, None::<char>, true);
    let mut text_block_at: Option<usize> = None;
    for (i, line_text) in frontmatter.lines().enumerate() {
        let indent = line_text.len() - line_text.trim_start_matches(' ').len();
        if let Some(at) = text_block_at {
            if line_text.trim().is_empty() || indent > at {
                continue;
            }
            text_block_at = None;
        }
        if quote.is_none() && depth == 0 {
            opens = true;
        }
        let mut blank_so_far = true;
        let mut escaped = false;
        let mut chars = line_text.chars().peekable();
        while let Some(c) = chars.next() {
            let spaced = chars.peek().is_none_or(|n| n.is_whitespace());
            match (quote, c) {
                (Some('"'), _) if escaped => escaped = false,
                (Some('"'), '\\') => escaped = true,
                // `''` inside single quotes is a quote, not the end.
                (Some('\''), '\'') if chars.peek() == Some(&'\'') => {
                    chars.next();
                }
                (Some(q), c) if c == q => {
                    quote = None;
                    opens = false;
                }
                (Some(_), _) => {}
                (None, ' ' | '\t') => continue,
                (None, '#') if opens && depth == 0 => break,
                (None, '"' | '\'') if opens => quote = Some(c),
                (None, '|' | '>') if opens && depth == 0 => {
                    text_block_at = Some(indent);
                    break;
                }
                (None, '[' | '{') if opens || depth > 0 => {
                    depth += 1;
                    if depth > MAX_FRONTMATTER_DEPTH {
                        return Err(too_deep(i + 2));
                    }
                    opens = true;
                }
                (None, ']' | '}') if depth > 0 => {
                    depth -= 1;
                    opens = false;
                }
                (None, c) => {
                    opens = (c == ':' && (spaced || depth > 0))
                        || (c == '-' && spaced && (blank_so_far || opens))
                        || (c == ',' && depth > 0);
                }
            }
            blank_so_far = false;
        }
    }
    Ok(())
}

impl Record {
    /// A new record with the given identity and content and no optional fields.
    pub fn new(id: String, kind: Kind, created: Timestamp, content: &str) -> Record {
        Record {
            id,
            kind,
            created,
            updated: None,
            subject: None,
            category: None,
            attribute: None,
            key: None,
            durability: None,
            user: None,
            agent: None,
            session: None,
            importance: None,
            confidence: None,
            reinforced: None,
            last_reinforced: None,
            successes: None,
            failures: None,
            last_outcome: None,
            status: Status::Active,
            valid_from: None,
            valid_to: None,
            expires: None,
            supersedes: None,
            superseded_by: None,
            invalidated_by: None,
            reason: None,
            sources: Vec::new(),
            tags: Vec::new(),
            pinned: None,
            turn: None,
            role: None,
            consolidated: None,
            meta: BTreeMap::new(),
            extra: Mapping::new(),
            key_order: Vec::new(),
            has_frontmatter: true,
            id_in_file: true,
            body: format!("{}\n", content.trim()),
        }
    }

    /// The memory's content: the body without surrounding whitespace.
    pub fn content(&self) -> &str {
        self.body.trim()
    }

    /// The body as said: without the one line break that ends the file (a
    /// message kept whole has its own spaces and breaks).
    pub fn verbatim(&self) -> &str {
        self.body.strip_suffix('\n').unwrap_or(&self.body)
    }

    /// Sets the body to `text` as given, spaces and breaks kept, ended by a
    /// line break.
    pub fn set_verbatim(&mut self, text: &str) {
        self.body = format!("{text}\n");
    }

    /// Ends the record at `now` with `status` (superseded, invalidated,
    /// archived) and why: it stops being valid then (an earlier end is kept)
    /// and is marked updated. Every ending goes through here, so none lacks a
    /// reason.
    fn end(&mut self, status: Status, reason: String, now: Timestamp) {
        self.status = status;
        if self.valid_to.is_none_or(|t| t > now) {
            self.valid_to = Some(now);
        }
        self.reason = Some(reason);
        self.updated = Some(now);
    }

    /// Ends the record as superseded by the record `by` links to.
    pub fn supersede(&mut self, by: String, reason: String, now: Timestamp) {
        self.end(Status::Superseded, reason, now);
        self.superseded_by = Some(by);
    }

    /// Ends the record as no longer true; `by` is a wikilink to the record
    /// that retracted it, or the command that did.
    pub fn invalidate(&mut self, by: String, reason: String, now: Timestamp) {
        self.end(Status::Invalidated, reason, now);
        self.invalidated_by = Some(by);
    }

    /// Archives the record (expired, decayed, evicted, summarised).
    pub fn archive(&mut self, reason: String, now: Timestamp) {
        self.end(Status::Archived, reason, now);
    }

    /// Brings an ended record back: active again from `now`, with no end and
    /// no link to what ended it; the reason says why it came back.
    pub fn restore(&mut self, reason: String, now: Timestamp) {
        self.status = Status::Active;
        self.valid_to = None;
        self.superseded_by = None;
        self.invalidated_by = None;
        self.reason = Some(reason);
        self.updated = Some(now);
    }

    /// A restatement: one more reinforcement, and confidence a quarter of the
    /// way up to 1 (from 0.7 when unknown).
    pub fn reinforce(&mut self, now: Timestamp) {
        self.reinforced = Some(self.reinforced.unwrap_or(0) + 1);
        self.last_reinforced = Some(now);
        let c = self.confidence.unwrap_or(0.7);
        self.confidence = Some(round3(c + (1.0 - c) * 0.25));
    }

    /// One more run of a procedure counted, as it went (`last_outcome`).
    pub fn count_run(&mut self, success: bool, now: Timestamp) {
        let (successes, failures) = (self.successes.unwrap_or(0), self.failures.unwrap_or(0));
        let (successes, failures) = if success {
            (successes + 1, failures)
        } else {
            (successes, failures + 1)
        };
        self.successes = Some(successes);
        self.failures = Some(failures);
        self.last_outcome = Some(if success { "success" } else { "failure" }.into());
        self.updated = Some(now);
    }

    /// Whether the record has expired at `t`.
    pub fn is_expired_at(&self, t: Timestamp) -> bool {
        self.expires.is_some_and(|e| e <= t)
    }

    /// Parses a record file's text. `fallbacks` fill in what a hand-written note lacks.
    pub fn parse(text: &str, fallbacks: &Fallbacks) -> Result<Record, ParseError> {
        let (frontmatter, body) = split_frontmatter(text)?;
        let mut record = Record::new(fallbacks.id.clone(), fallbacks.kind, fallbacks.created, "");
        record.body = body.to_string();
        record.id_in_file = false;
        record.has_frontmatter = frontmatter.is_some();
        let Some(frontmatter) = frontmatter else {
            return Ok(record);
        };
        check_frontmatter_size(frontmatter)?;
        let value: Value = if frontmatter.trim().is_empty() {
            Value::Mapping(Mapping::new())
        } else {
            serde_yaml::from_str(frontmatter).map_err(|e| {
                // serde_yaml counts lines from the start of the frontmatter; a
                // person needs the file's own line numbers, which we give.
                let text = e.to_string();
                let text = text.split(" at line ").next().unwrap_or(&text).to_string();
                ParseError {
                    // +1 for the opening `---` line.
                    line: e.location().map_or(1, |l| l.line() + 1),
                    message: format!("invalid YAML frontmatter: {text}"),
                }
            })?
        };
        let mut value = value;
        unicode_breaks_to_newlines(&mut value);
        let mapping = match value {
            Value::Mapping(m) => m,
            Value::Null => Mapping::new(),
            _ => {
                return Err(ParseError {
                    line: 2,
                    message: "frontmatter must be a map of `key: value` lines".into(),
                });
            }
        };
        for (key, value) in mapping {
            let Some(name) = key.as_str().map(str::to_string) else {
                // Non-string keys are kept as they are.
                record.extra.insert(key, value);
                continue;
            };
            record.key_order.push(name.clone());
            let line = key_line(frontmatter, &name);
            let err = |message: String| ParseError { line, message };
            if !KNOWN_KEYS.contains(&name.as_str()) {
                record.extra.insert(Value::String(name), value);
                continue;
            }
            if value.is_null() {
                continue;
            }
            match name.as_str() {
                "id" => {
                    let id =
                        scalar_string(&value).ok_or_else(|| err("`id` must be a string".into()))?;
                    if !id.trim().is_empty() {
                        record.id = id.trim().to_string();
                        record.id_in_file = true;
                    }
                }
                // A note's own `kind: book` or `status: draft` (Obsidian properties)
                // is not ours: kept verbatim, and the record takes the defaults.
                "kind" => match string_field(&value, "kind").and_then(|s| s.parse()) {
                    Ok(kind) => record.kind = kind,
                    Err(_) => {
                        record.extra.insert(Value::String(name), value);
                    }
                },
                "status" => match string_field(&value, "status").and_then(|s| s.parse()) {
                    Ok(status) => record.status = status,
                    Err(_) => {
                        record.extra.insert(Value::String(name), value);
                    }
                },
                "created" => record.created = time_field(&value, "created").map_err(err)?,
                "updated" => record.updated = Some(time_field(&value, "updated").map_err(err)?),
                "last_reinforced" => {
                    record.last_reinforced =
                        Some(time_field(&value, "last_reinforced").map_err(err)?)
                }
                "valid_from" => {
                    record.valid_from = Some(time_field(&value, "valid_from").map_err(err)?)
                }
                "valid_to" => record.valid_to = Some(time_field(&value, "valid_to").map_err(err)?),
                "expires" => record.expires = Some(time_field(&value, "expires").map_err(err)?),
                "subject" => record.subject = Some(string_field(&value, "subject").map_err(err)?),
                "category" => {
                    record.category = Some(string_field(&value, "category").map_err(err)?)
                }
                "attribute" => {
                    record.attribute = Some(string_field(&value, "attribute").map_err(err)?)
                }
                "invalidated_by" => {
                    record.invalidated_by =
                        Some(string_field(&value, "invalidated_by").map_err(err)?)
                }
                "reason" => record.reason = Some(string_field(&value, "reason").map_err(err)?),
                "durability" => {
                    record.durability = Some(string_field(&value, "durability").map_err(err)?)
                }
                "user" => record.user = Some(string_field(&value, "user").map_err(err)?),
                "agent" => record.agent = Some(string_field(&value, "agent").map_err(err)?),
                "session" => record.session = Some(string_field(&value, "session").map_err(err)?),
                "role" => record.role = Some(string_field(&value, "role").map_err(err)?),
                "key" => record.key = Some(string_field(&value, "key").map_err(err)?),
                "last_outcome" => {
                    record.last_outcome = Some(string_field(&value, "last_outcome").map_err(err)?)
                }
                "successes" | "failures" => {
                    let n = value.as_u64().ok_or_else(|| {
                        err(format!(
                            "`{name}` must be a whole number (runs counted by engram outcome)"
                        ))
                    })?;
                    if name == "successes" {
                        record.successes = Some(n);
                    } else {
                        record.failures = Some(n);
                    }
                }
                "supersedes" => {
                    record.supersedes = Some(string_field(&value, "supersedes").map_err(err)?)
                }
                "superseded_by" => {
                    record.superseded_by = Some(string_field(&value, "superseded_by").map_err(err)?)
                }
                "importance" => {
                    record.importance = Some(unit_field(&value, "importance").map_err(err)?)
                }
                "confidence" => {
                    record.confidence = Some(unit_field(&value, "confidence").map_err(err)?)
                }
                "reinforced" => {
                    record.reinforced = Some(value.as_u64().ok_or_else(|| {
                        err(
                            "`reinforced` must be a whole number (how often it was restated)"
                                .into(),
                        )
                    })?)
                }
                "turn" => {
                    record.turn = Some(value.as_u64().ok_or_else(|| {
                        err("`turn` must be a whole number (the session turn)".into())
                    })?)
                }
                "consolidated" => {
                    record.consolidated = Some(
                        value
                            .as_bool()
                            .ok_or_else(|| err("`consolidated` must be true or false".into()))?,
                    )
                }
                "pinned" => {
                    record.pinned = Some(
                        value
                            .as_bool()
                            .ok_or_else(|| err("`pinned` must be true or false".into()))?,
                    )
                }
                "sources" => record.sources = list_field(&value, "sources").map_err(err)?,
                "tags" => {
                    record.tags = list_field(&value, "tags")
                        .map_err(err)?
                        .into_iter()
                        .map(|t| t.trim_start_matches('#').to_string())
                        .filter(|t| !t.is_empty())
                        .collect()
                }
                "meta" => {
                    let Value::Mapping(m) = &value else {
                        return Err(err("`meta` must be a map of strings".into()));
                    };
                    for (k, v) in m {
                        let (Some(k), Some(v)) = (scalar_string(k), scalar_string(v)) else {
                            return Err(err("`meta` must be a map of strings".into()));
                        };
                        record.meta.insert(k, v);
                    }
                }
                _ => unreachable!("every known key is matched"),
            }
        }
        Ok(record)
    }

    /// Renders the record as file text. Keys keep the order they had in the file;
    /// keys new to this record follow in engram's order, then unknown keys.
    pub fn render(&self) -> String {
        let mut known = self.known_values();
        let mut mapping = Mapping::new();
        let mut extra = self.extra.clone();
        // A person's own `status: draft` stays until engram gives the record a
        // status of its own (superseded, invalidated, archived).
        if self.status != Status::Active {
            extra.shift_remove("status");
        } else if extra.contains_key("status") {
            known.remove("status");
        }
        if extra.contains_key("kind") {
            known.remove("kind");
        }
        for key in &self.key_order {
            if let Some(value) = known.remove(key.as_str()) {
                mapping.insert(Value::String(key.clone()), value);
            } else if let Some(value) = extra.shift_remove(key.as_str()) {
                mapping.insert(Value::String(key.clone()), value);
            }
        }
        for key in KNOWN_KEYS {
            if let Some(value) = known.remove(key) {
                mapping.insert(Value::String(key.to_string()), value);
            }
        }
        for (key, value) in extra {
            mapping.insert(key, value);
        }
        let mut mapping = Value::Mapping(mapping);
        unicode_breaks_to_newlines(&mut mapping);
        let yaml = serde_yaml::to_string(&mapping).expect("a mapping renders");
        let mut out = String::with_capacity(yaml.len() + self.body.len() + 8);
        out.push_str("---\n");
        out.push_str(&yaml);
        if !yaml.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("---\n");
        out.push_str(&self.body);
        out
    }

    fn known_values(&self) -> BTreeMap<&'static str, Value> {
        let mut m = BTreeMap::new();
        let s = |v: &str| Value::String(v.to_string());
        let t = |v: &Timestamp| Value::String(format_time(v));
        m.insert("id", s(&self.id));
        m.insert("kind", s(self.kind.as_str()));
        m.insert("created", t(&self.created));
        let opt_str = [
            ("subject", &self.subject),
            ("category", &self.category),
            ("attribute", &self.attribute),
            ("durability", &self.durability),
            ("user", &self.user),
            ("agent", &self.agent),
            ("session", &self.session),
            ("supersedes", &self.supersedes),
            ("superseded_by", &self.superseded_by),
            ("invalidated_by", &self.invalidated_by),
            ("reason", &self.reason),
            ("role", &self.role),
            ("key", &self.key),
            ("last_outcome", &self.last_outcome),
        ];
        for (key, value) in opt_str {
            if let Some(v) = value {
                m.insert(key, s(v));
            }
        }
        let opt_time = [
            ("updated", &self.updated),
            ("last_reinforced", &self.last_reinforced),
            ("valid_from", &self.valid_from),
            ("valid_to", &self.valid_to),
            ("expires", &self.expires),
        ];
        for (key, value) in opt_time {
            if let Some(v) = value {
                m.insert(key, t(v));
            }
        }
        if let Some(v) = self.importance {
            m.insert("importance", Value::Number(round3(v).into()));
        }
        if let Some(v) = self.confidence {
            m.insert("confidence", Value::Number(round3(v).into()));
        }
        if let Some(v) = self.reinforced {
            m.insert("reinforced", Value::Number(v.into()));
        }
        if let Some(v) = self.turn {
            m.insert("turn", Value::Number(v.into()));
        }
        if let Some(v) = self.successes {
            m.insert("successes", Value::Number(v.into()));
        }
        if let Some(v) = self.failures {
            m.insert("failures", Value::Number(v.into()));
        }
        // Written with the id, which every rendered record gets: a hand note
        // that engram rewrites gets both at once, so the next rewrite adds
        // nothing (a render of a parsed render is the same text).
        m.insert("status", s(self.status.as_str()));
        if !self.sources.is_empty() || self.has_key("sources") {
            m.insert(
                "sources",
                Value::Sequence(self.sources.iter().map(|v| s(v)).collect()),
            );
        }
        if !self.tags.is_empty() || self.has_key("tags") {
            m.insert(
                "tags",
                Value::Sequence(self.tags.iter().map(|v| s(v)).collect()),
            );
        }
        if let Some(v) = self.pinned {
            m.insert("pinned", Value::Bool(v));
        }
        if let Some(v) = self.consolidated {
            m.insert("consolidated", Value::Bool(v));
        }
        if !self.meta.is_empty() || self.has_key("meta") {
            let mut meta = Mapping::new();
            for (k, v) in &self.meta {
                meta.insert(s(k), s(v));
            }
            m.insert("meta", Value::Mapping(meta));
        }
        m
    }

    fn has_key(&self, key: &str) -> bool {
        self.key_order.iter().any(|k| k == key)
    }
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Splits text into (frontmatter, body). No frontmatter: `(None, whole text)`.
const UNICODE_BREAKS: [char; 2] = ['\u{2028}', '\u{2029}'];

/// `text` with U+2028 and U+2029 as newlines: what a frontmatter value holds
/// once written (see [`Record::render`]).
pub fn plain_breaks(text: &str) -> String {
    text.replace(UNICODE_BREAKS, "\n")
}

/// Writes U+2028 and U+2029 (line and paragraph separators) in frontmatter
/// strings as newlines: YAML counts them as line breaks, and left as they are
/// they can end a block value on the closing `---` line.
fn unicode_breaks_to_newlines(value: &mut Value) {
    match value {
        Value::String(s) if s.contains(UNICODE_BREAKS) => *s = plain_breaks(s),
        Value::Sequence(items) => items.iter_mut().for_each(unicode_breaks_to_newlines),
        Value::Mapping(map) => map
            .iter_mut()
            .for_each(|(_, v)| unicode_breaks_to_newlines(v)),
        Value::Tagged(tagged) => unicode_breaks_to_newlines(&mut tagged.value),
        _ => {}
    }
}

fn split_frontmatter(text: &str) -> Result<(Option<&str>, &str), ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((None, text));
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if trimmed == "---" || trimmed == "..." {
            return Ok((Some(&rest[..offset]), &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(ParseError {
        line: 1,
        message: "frontmatter opened with `---` is never closed; add a `---` line after it".into(),
    })
}

/// The 1-based file line of a top-level key in the frontmatter (for messages).
fn key_line(frontmatter: &str, key: &str) -> usize {
    frontmatter
        .lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or(1, |i| i + 2)
}

fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn string_field(value: &Value, key: &str) -> Result<String, String> {
    scalar_string(value).ok_or_else(|| format!("`{key}` must be a single value, not a list or map"))
}

fn time_field(value: &Value, key: &str) -> Result<Timestamp, String> {
    let text = string_field(value, key)?;
    parse_time(&text).map_err(|e| format!("`{key}`: {e}"))
}

fn unit_field(value: &Value, key: &str) -> Result<f64, String> {
    match value.as_f64() {
        Some(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{key}` must be a number from 0 to 1")),
    }
}

fn list_field(value: &Value, key: &str) -> Result<Vec<String>, String> {
    match value {
        Value::Sequence(items) => items
            .iter()
            .map(|v| scalar_string(v).ok_or_else(|| format!("`{key}` must be a list of strings")))
            .collect(),
        // Obsidian accepts a single value, or a comma-separated one, where a list is meant.
        other => Ok(string_field(other, key)?
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()),
    }
}

/// The name that opens a record said by someone: one to three words, each
/// starting with a capital letter, then `": "` ("Caroline: …", "Dr Ana Lima:
/// …"). Lowercased, as the index keeps it. `None` for any other text.
pub fn speaker_of(content: &str) -> Option<String> {
    let (head, rest) = content.split_once(": ")?;
    if rest.trim().is_empty() || head.is_empty() || head.len() > 60 {
        return None;
    }
    let words: Vec<&str> = head.split(' ').collect();
    let is_name = |w: &&str| {
        let mut chars = w.chars();
        chars.next().is_some_and(char::is_uppercase)
            && chars.all(|c| c.is_alphanumeric() || matches!(c, '\'' | '.' | '-'))
    };
    (words.len() <= 3 && words.iter().all(is_name)).then(|| head.to_lowercase())
}

#[cfg(test)]
mod tests {
    #[test]
    fn huge_or_deep_frontmatter_is_a_broken_file_found_fast() {
        let fallbacks = Fallbacks {
            id: "x".into(),
            kind: Kind::Semantic,
            created: crate::clock::parse_time("2026-11-20").unwrap(),
        };
        for (levels, why) in [(50_000, "KiB"), (20_000, "nests")] {
            let deep = format!(
                "---\na: {}{}\n---\nbody\n",
                "[".repeat(levels),
                "]".repeat(levels)
            );
            let start = std::time::Instant::now();
            let e = Record::parse(&deep, &fallbacks).unwrap_err();
            assert!(e.message.contains(why), "{levels}: {}", e.message);
            assert!(start.elapsed().as_secs() < 1, "{:?}", start.elapsed());
        }
        let maps = format!("---\na: {}1{}\n---\n", "{a: ".repeat(40), "}".repeat(40));
        assert!(
            Record::parse(&maps, &fallbacks)
                .unwrap_err()
                .message
                .contains("nests")
        );
        let big = format!("---\nnote: \"{}\"\n---\n", "x".repeat(100_000));
        assert!(
            Record::parse(&big, &fallbacks)
                .unwrap_err()
                .message
                .contains("KiB")
        );
        // Quotes, apostrophes and a few brackets are ordinary properties.
        let fine =
            "---\ntitle: Don't [stop]\ntags: [a, \"[b\"]\nx: {a: [1, [2, [3]]]}\n---\nbody\n";
        assert!(Record::parse(fine, &fallbacks).is_ok());
    }

    use super::*;

    fn fallbacks() -> Fallbacks {
        Fallbacks {
            id: "derived0000000000000000000".into(),
            kind: Kind::Semantic,
            created: parse_time("2026-01-01T00:00:00Z").unwrap(),
        }
    }

    const SAMPLE: &str = "---\nid: 01jdq3k8v6w2m4x9t5r7c1b0ze\nkind: semantic\nsubject: user\ncategory: preference\nuser: alice\ncreated: 2026-11-20T09:12:44Z\nupdated: 2026-11-21T18:02:10Z\nimportance: 0.8\nconfidence: 0.9\nreinforced: 2\nstatus: active\nsources: [\"[[episodic/2026-11/went-vegetarian-7c1b0z]]\"]\ntags: [food]\n---\nIs vegetarian.\n";

    #[test]
    fn parses_the_spec_example() {
        let r = Record::parse(SAMPLE, &fallbacks()).unwrap();
        assert_eq!(r.id, "01jdq3k8v6w2m4x9t5r7c1b0ze");
        assert_eq!(r.kind, Kind::Semantic);
        assert_eq!(r.subject.as_deref(), Some("user"));
        assert_eq!(r.user.as_deref(), Some("alice"));
        assert_eq!(r.importance, Some(0.8));
        assert_eq!(r.reinforced, Some(2));
        assert_eq!(r.tags, vec!["food"]);
        assert_eq!(
            r.sources,
            vec!["[[episodic/2026-11/went-vegetarian-7c1b0z]]"]
        );
        assert_eq!(r.content(), "Is vegetarian.");
        assert!(r.id_in_file);
    }

    #[test]
    fn render_then_parse_is_identity() {
        let r = Record::parse(SAMPLE, &fallbacks()).unwrap();
        let again = Record::parse(&r.render(), &fallbacks()).unwrap();
        assert_eq!(r, again);
        // And rendering is stable: a second render is byte-identical.
        assert_eq!(r.render(), again.render());
    }

    #[test]
    fn new_record_round_trips_with_every_field() {
        let t = parse_time("2026-11-20T09:12:44Z").unwrap();
        let mut r = Record::new(
            "01abc".into(),
            Kind::Episodic,
            t,
            "Went to Lisbon: it was *great*",
        );
        r.subject = Some("user".into());
        r.user = Some("a: tricky \"value\"\nwith newline".into());
        r.importance = Some(0.7);
        r.expires = Some(t);
        r.tags = vec!["travel".into(), "2026".into()];
        r.meta.insert("dia_id".into(), "D1:3".into());
        r.pinned = Some(true);
        let parsed = Record::parse(&r.render(), &fallbacks()).unwrap();
        assert_eq!(parsed.user, r.user);
        assert_eq!(parsed.tags, r.tags);
        assert_eq!(parsed.meta, r.meta);
        assert_eq!(parsed.expires, r.expires);
        assert_eq!(parsed.pinned, Some(true));
        assert_eq!(parsed.content(), r.content());
    }

    #[test]
    fn unknown_keys_survive_in_place() {
        let text = "---\nid: x1\nmood: happy\nkind: semantic\ncreated: 2026-11-20T09:12:44Z\naliases: [a, b]\n---\nBody\n";
        let mut r = Record::parse(text, &fallbacks()).unwrap();
        r.status = Status::Invalidated;
        let out = r.render();
        let keys: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split_once(':').map(|(k, _)| k))
            .filter(|k| !k.starts_with(' ') && !k.starts_with('-'))
            .collect();
        assert_eq!(&keys[..5], &["id", "mood", "kind", "created", "aliases"]);
        assert!(out.contains("status: invalidated"));
        assert!(out.contains("mood: happy"));
    }

    #[test]
    fn a_note_without_frontmatter_is_a_record() {
        let r = Record::parse("# Groceries\n\nBuy oat milk.\n", &fallbacks()).unwrap();
        assert_eq!(r.id, "derived0000000000000000000");
        assert!(!r.id_in_file);
        assert!(!r.has_frontmatter);
        assert_eq!(r.kind, Kind::Semantic);
        assert_eq!(r.content(), "# Groceries\n\nBuy oat milk.");
    }

    #[test]
    fn frontmatter_without_id_uses_the_fallback_and_keeps_its_keys() {
        let r = Record::parse(
            "---\ntags: [idea]\nkind: procedural\n---\nStep one\n",
            &fallbacks(),
        )
        .unwrap();
        assert_eq!(r.id, "derived0000000000000000000");
        assert_eq!(r.kind, Kind::Procedural);
        assert_eq!(r.tags, vec!["idea"]);
    }

    #[test]
    fn errors_name_the_line() {
        let bad_yaml = "---\nid: x\nkind: semantic\ntags: [unclosed\n---\nbody\n";
        let e = Record::parse(bad_yaml, &fallbacks()).unwrap_err();
        assert!(e.line >= 4, "{e:?}");
        let bad_value = "---\nid: x\nkind: semantic\nimportance: high\n---\nbody\n";
        let e = Record::parse(bad_value, &fallbacks()).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("importance"));
        let unclosed_list = "---\nid: x\ntags: [a\n---\nbody\n";
        assert!(Record::parse(unclosed_list, &fallbacks()).is_err());
        let unclosed = "---\nid: x\nbody without end\n";
        assert_eq!(Record::parse(unclosed, &fallbacks()).unwrap_err().line, 1);
    }

    #[test]
    fn obsidian_style_values_are_accepted() {
        let text =
            "---\ntags: \"#food, travel\"\ncreated: 2026-11-20\nsources: \"[[a]]\"\n---\nx\n";
        let r = Record::parse(text, &fallbacks()).unwrap();
        assert_eq!(r.tags, vec!["food", "travel"]);
        assert_eq!(format_time(&r.created), "2026-11-20T00:00:00Z");
        assert_eq!(r.sources, vec!["[[a]]"]);
    }

    #[test]
    fn obsidian_status_and_kind_properties_are_kept_not_rejected() {
        let text = "---\nstatus: draft\nkind: book\ntags: [reading]\n---\nDune\n";
        let mut r = Record::parse(text, &fallbacks()).unwrap();
        assert_eq!((r.kind, r.status), (Kind::Semantic, Status::Active));
        let again = r.render();
        assert!(
            again.contains("status: draft") && again.contains("kind: book"),
            "{again}"
        );
        // Once engram gives it a status, engram's wins.
        r.status = Status::Invalidated;
        let forgotten = r.render();
        assert!(
            forgotten.contains("status: invalidated") && !forgotten.contains("draft"),
            "{forgotten}"
        );
        assert_eq!(
            Record::parse(&forgotten, &fallbacks()).unwrap().status,
            Status::Invalidated
        );
    }

    #[test]
    fn crlf_frontmatter_parses() {
        let text = "---\r\nid: x\r\nkind: episodic\r\n---\r\nHello\r\n";
        let r = Record::parse(text, &fallbacks()).unwrap();
        assert_eq!(r.kind, Kind::Episodic);
        assert_eq!(r.content(), "Hello");
    }

    #[test]
    fn a_speaker_is_a_short_capitalised_name_before_a_colon() {
        assert_eq!(
            speaker_of("Caroline: I went to a group").as_deref(),
            Some("caroline")
        );
        assert_eq!(
            speaker_of("Dr Ana Lima: the results").as_deref(),
            Some("dr ana lima")
        );
        assert_eq!(speaker_of("Note: buy milk"), Some("note".into()));
        assert_eq!(speaker_of("remember this: buy milk"), None);
        assert_eq!(speaker_of("A Very Long Heading Here: text"), None);
        assert_eq!(speaker_of("Caroline:"), None);
        assert_eq!(speaker_of("Time 10:30 is fine"), None);
    }
}

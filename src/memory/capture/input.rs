//! Capture input: the items to store and the defaults that flags supply.
//!
//! `--input jsonl` is validated line by line before anything is used, so bad
//! input names its line and writes nothing. [`build_record`] is where an item
//! and the flags become a [`Record`].

use std::collections::BTreeMap;

use chrono::Duration;

use crate::clock::{Timestamp, parse_time};
use crate::error::{Error, Result};
use crate::storage::record::{Kind, Record, plain_breaks};

/// The most text one record holds, in bytes: a raw capture's text, or a JSONL
/// line's or chat message's content.
pub const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// Why a text of `len` bytes cannot be one record, if it cannot.
fn over_record_limit(len: usize) -> Option<String> {
    (len as u64 > MAX_RECORD_BYTES).then(|| {
        format!(
            "{} KiB; a record holds at most {} KiB: split it",
            len / 1024,
            MAX_RECORD_BYTES / 1024
        )
    })
}

/// The most text capture reads for facts at once: the rules read every clause
/// and reconcile each fact, about 4 KiB a second of conversation (64 KiB is a
/// long chat session; a longer one is captured in parts).
pub const MAX_EXTRACT_BYTES: u64 = 64 * 1024;

/// The most `--input jsonl` or `--input chat` read at once.
pub const MAX_BULK_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// One thing to remember, before it becomes a record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaptureItem {
    pub content: String,
    pub kind: Option<Kind>,
    pub subject: Option<String>,
    pub category: Option<String>,
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub importance: Option<f64>,
    pub created: Option<Timestamp>,
    pub tags: Vec<String>,
    pub meta: BTreeMap<String, String>,
    /// Who said it, for a chat message: user, assistant, system, tool.
    pub role: Option<String>,
}

/// Values from flags, applied where an item says nothing.
#[derive(Debug, Clone, Default)]
pub struct CaptureDefaults {
    pub kind: Option<Kind>,
    pub subject: Option<String>,
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub importance: Option<f64>,
    pub tags: Vec<String>,
    pub ttl: Option<Duration>,
}

/// Parses `--input jsonl`: one JSON object per line, blank lines skipped. Every
/// line is checked before any is used; the error names the line.
pub fn parse_jsonl(text: &str) -> Result<Vec<CaptureItem>> {
    let text = without_bom(text);
    let mut items = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let n = i + 1;
        // Room for the other fields; a longer line cannot hold a record.
        if let Some(why) = over_record_limit(line.len().saturating_sub(64 * 1024)) {
            return Err(Error::Input(format!(
                "line {n} of the JSONL input is over {why}; nothing was captured"
            )));
        }
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            Error::Input(format!(
                "line {n} of the JSONL input is not JSON: {e}; nothing was captured"
            ))
        })?;
        items.push(item_from_json(&value).map_err(|e| {
            Error::Input(format!(
                "line {n} of the JSONL input: {e}; nothing was captured"
            ))
        })?);
    }
    if items.is_empty() {
        return Err(Error::Input(
            "the JSONL input has no records; give one JSON object per line".into(),
        ));
    }
    Ok(items)
}

fn item_from_json(value: &serde_json::Value) -> std::result::Result<CaptureItem, String> {
    let obj = value
        .as_object()
        .ok_or("expected a JSON object like {\"content\": \"...\"}")?;
    let string = |key: &str| -> std::result::Result<Option<String>, String> {
        match obj.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            // As a frontmatter value holds it once written.
            Some(serde_json::Value::String(s)) => Ok(Some(plain_breaks(s))),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let content = string("content")?
        .map(|c| without_controls(&c).0)
        .filter(|c| !c.trim().is_empty())
        .ok_or("`content` is missing or empty")?;
    if let Some(why) = over_record_limit(content.len()) {
        return Err(format!("`content` is {why}"));
    }
    let kind = string("kind")?.map(|k| k.parse::<Kind>()).transpose()?;
    let importance = match obj.get("importance") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or("`importance` must be a number from 0 to 1")?,
        ),
    };
    let created = string("created")?.map(|t| parse_time(&t)).transpose()?;
    let tags = match obj.get("tags") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(a)) => {
            let tags = a
                .iter()
                .map(|t| {
                    t.as_str()
                        .map(plain_breaks)
                        .ok_or("`tags` must be a list of strings")
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            // The same cleaning as `a,b` tags: a list is no different.
            split_tags(&tags.join(","))
        }
        Some(serde_json::Value::String(s)) => split_tags(&plain_breaks(s)),
        Some(_) => return Err("`tags` must be a list of strings".into()),
    };
    let meta = match obj.get("meta") {
        None | Some(serde_json::Value::Null) => BTreeMap::new(),
        Some(serde_json::Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (plain_breaks(k), plain_breaks(&v))
            })
            .collect(),
        Some(_) => return Err("`meta` must be an object of strings".into()),
    };
    Ok(CaptureItem {
        content,
        kind,
        subject: string("subject")?,
        category: string("category")?,
        user: string("user")?,
        agent: string("agent")?,
        session: string("session")?,
        role: string("role")?,
        importance,
        created,
        tags,
        meta,
    })
}

/// Parses `--input chat`: a JSON array of `{"role", "content"}` messages, one
/// item per message with its `role`. `content` is a string, or a list of
/// content parts as OpenAI and Anthropic send them (`[{"type": "text",
/// "text": "…"}]`), whose text parts are joined. For extraction
/// (`assistant_chars` given) the user's messages are kept in full, the
/// assistant's cut to that many characters, and other roles left out; for a
/// transcript (`None`) every message with text is kept whole, and one with
/// none (an assistant's tool call) is skipped.
pub fn parse_chat(input: &str, assistant_chars: Option<usize>) -> Result<Vec<CaptureItem>> {
    let bad = |why: &str| {
        Error::Input(format!(
            "--input chat: {why}; expected a JSON array of {{\"role\", \"content\"}} messages"
        ))
    };
    let value: serde_json::Value =
        serde_json::from_str(without_bom(input)).map_err(|e| bad(&e.to_string()))?;
    let messages = value.as_array().ok_or_else(|| bad("not an array"))?;
    let mut items = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m
            .get("role")
            .and_then(|r| r.as_str())
            .ok_or_else(|| bad(&format!("message {} has no role", i + 1)))?;
        let content = match m.get("content").and_then(message_text) {
            Some(content) => content,
            None if assistant_chars.is_none() => continue,
            None => return Err(bad(&format!("message {} has no text content", i + 1))),
        };
        let content = without_controls(&content).0;
        if let Some(why) = over_record_limit(content.len()) {
            return Err(bad(&format!("message {} is {why}", i + 1)));
        }
        let content = match (role, assistant_chars) {
            // A transcript keeps the message as said.
            (_, None) => content,
            ("user", _) => content.trim().to_string(),
            ("assistant", Some(chars)) => content.trim().chars().take(chars).collect(),
            _ => continue,
        };
        if content.trim().is_empty() {
            continue;
        }
        items.push(CaptureItem {
            content,
            role: Some(role.trim().to_lowercase()),
            ..CaptureItem::default()
        });
    }
    if items.is_empty() {
        return Err(bad(if assistant_chars.is_some() {
            "no user or assistant message with text"
        } else {
            "no message with text"
        }));
    }
    Ok(items)
}

/// A message's text: a string, or the text parts of a content-part list joined
/// by blank lines (images and other parts carry no text to keep).
fn message_text(content: &serde_json::Value) -> Option<String> {
    match content {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    serde_json::Value::String(s) => Some(s.as_str()),
                    serde_json::Value::Object(o) => o.get("text").and_then(|t| t.as_str()),
                    _ => None,
                })
                .collect();
            Some(texts.join("\n\n"))
        }
        _ => None,
    }
}

/// The text without NUL and the other control characters but tab, newline and
/// carriage return (they make git treat a file as binary and mean nothing in a
/// note), and how many were removed.
pub fn without_controls(text: &str) -> (String, usize) {
    let keep = |c: &char| !c.is_control() || matches!(c, '\t' | '\n' | '\r');
    let removed = text.chars().filter(|c| !keep(c)).count();
    if removed == 0 {
        return (text.to_string(), 0);
    }
    (text.chars().filter(keep).collect(), removed)
}

/// The text without a leading UTF-8 byte-order mark (Windows editors write one).
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Splits `a,b, c` into tags (a leading `#` is dropped, as Obsidian writes them).
pub fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(|t| t.trim().trim_start_matches('#').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Builds the record for an item: flags fill what the item leaves out; raw
/// records are episodic unless told otherwise.
pub fn build_record(
    item: &CaptureItem,
    defaults: &CaptureDefaults,
    id: String,
    now: Timestamp,
) -> Record {
    let kind = item.kind.or(defaults.kind).unwrap_or(Kind::Episodic);
    let created = item.created.unwrap_or(now);
    let mut r = Record::new(id, kind, created, &item.content);
    r.subject = item.subject.clone().or_else(|| defaults.subject.clone());
    r.category = item.category.clone();
    r.user = item.user.clone().or_else(|| defaults.user.clone());
    r.agent = item.agent.clone().or_else(|| defaults.agent.clone());
    r.session = item.session.clone().or_else(|| defaults.session.clone());
    if kind == Kind::Working && r.session.is_none() {
        r.session = Some("default".into());
    }
    r.importance = item.importance.or(defaults.importance);
    let mut tags = defaults.tags.clone();
    for t in &item.tags {
        if !tags.contains(t) {
            tags.push(t.clone());
        }
    }
    r.tags = tags;
    r.meta = item.meta.clone();
    r.role = item.role.clone();
    if r.role.is_some() {
        // A message is kept as said, spaces and breaks around it too.
        r.set_verbatim(&item.content);
    }
    // The CLI checks that the expiry is writable; a TTL too long for that
    // (only reachable through the library) gives no expiry rather than a panic.
    r.expires = defaults
        .ttl
        .and_then(|ttl| crate::clock::shift(now, ttl).ok());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_lines_become_items() {
        let items = parse_jsonl(
            "{\"content\": \"a\", \"kind\": \"semantic\", \"tags\": [\"x\"], \"meta\": {\"dia_id\": \"D1:1\", \"n\": 3}}\n\n{\"content\": \"b\", \"importance\": 0.9}\n",
        )
        .unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].kind, Some(Kind::Semantic));
        assert_eq!(items[0].meta["dia_id"], "D1:1");
        assert_eq!(items[0].meta["n"], "3");
        assert_eq!(items[1].importance, Some(0.9));
    }

    #[test]
    fn a_bad_line_is_named_and_nothing_is_taken() {
        let e = parse_jsonl("{\"content\": \"a\"}\n{\"content\": 5}\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = parse_jsonl("{\"content\": \"a\"}\nnot json\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = parse_jsonl("{\"content\": \"a\", \"kind\": \"dream\"}").unwrap_err();
        assert!(e.to_string().contains("unknown kind"), "{e}");
    }

    #[test]
    fn flags_fill_in_and_ttl_sets_expiry() {
        let now = parse_time("2026-11-20T00:00:00Z").unwrap();
        let item = CaptureItem {
            content: "x".into(),
            user: Some("bob".into()),
            ..CaptureItem::default()
        };
        let defaults = CaptureDefaults {
            user: Some("alice".into()),
            agent: Some("a1".into()),
            tags: vec!["t".into()],
            ttl: Some(Duration::days(30)),
            ..CaptureDefaults::default()
        };
        let r = build_record(&item, &defaults, "id1".into(), now);
        assert_eq!(r.user.as_deref(), Some("bob"), "the item wins over flags");
        assert_eq!(r.agent.as_deref(), Some("a1"));
        assert_eq!(r.kind, Kind::Episodic);
        assert_eq!(r.expires, Some(parse_time("2026-12-20T00:00:00Z").unwrap()));
        assert_eq!(r.tags, vec!["t"]);
    }
}

//! Names: record ids, slugs and the vault-relative path of a record.
//!
//! Invariant: every path this module builds from values a user typed (subject,
//! session, content) is made of safe components only — lowercase ASCII letters,
//! digits, `-` and `_` — so it can never leave the vault, hide in a dot folder or
//! collide with a reserved name.

use sha2::{Digest, Sha256};

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::storage::record::Kind;

const CROCKFORD: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A new record id: a ULID in lowercase (sortable by creation time).
pub fn new_id(generator: &mut ulid::Generator, now: Timestamp) -> String {
    let t = std::time::UNIX_EPOCH
        + std::time::Duration::from_millis(now.timestamp_millis().max(0) as u64);
    // The generator is monotonic within a millisecond; on overflow fall back to random.
    let ulid = generator
        .generate_from_datetime(t)
        .unwrap_or_else(|_| ulid::Ulid::from_datetime(t));
    ulid.to_string().to_ascii_lowercase()
}

/// The id of a note that has none in its file: 26 Crockford base32 characters
/// from the SHA-256 of its vault-relative path (with `/` separators).
pub fn derived_id(relative_path: &str) -> String {
    let digest = Sha256::digest(relative_path.as_bytes());
    let mut bits: u128 = 0;
    for byte in &digest[..16] {
        bits = (bits << 8) | u128::from(*byte);
    }
    (0..26)
        .map(|i| CROCKFORD[((bits >> (i * 5 % 128)) & 31) as usize] as char)
        .collect()
}

/// The short id used in file names: the last six characters of the id.
pub fn short_id(id: &str) -> String {
    let clean: Vec<char> = id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    clean[clean.len().saturating_sub(6)..].iter().collect()
}

/// A file-name slug from content: the first words, lowercase ASCII, joined by `-`.
pub fn slug(content: &str) -> String {
    const MAX_WORDS: usize = 6;
    const MAX_LEN: usize = 48;
    let mut out = String::new();
    let words = content
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(MAX_WORDS);
    for word in words {
        let word = word.to_ascii_lowercase();
        if out.len() + word.len() + 1 > MAX_LEN {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word);
    }
    if out.is_empty() { "note".into() } else { out }
}

/// A single safe folder name from any value (subject, session): lowercase ASCII
/// letters, digits, `-` and `_`; anything else becomes `-`; never empty, never
/// starting with a dot, at most 64 bytes.
pub fn path_component(value: &str) -> String {
    let mut out = String::new();
    for c in value.chars() {
        let c = c.to_ascii_lowercase();
        let keep = c.is_ascii_alphanumeric() || c == '_' || c == '-';
        let c = if keep { c } else { '-' };
        if c == '-' && out.ends_with('-') {
            continue;
        }
        out.push(c);
    }
    let out = out.trim_matches('-');
    let out: String = out.chars().take(64).collect();
    if out.is_empty() { "_".into() } else { out }
}

/// The vault-relative path (with `/`) where a new record is written.
pub fn record_path(
    kind: Kind,
    id: &str,
    content: &str,
    subject: Option<&str>,
    session: Option<&str>,
    created: Timestamp,
) -> String {
    let file = format!("{}-{}.md", slug(content), short_id(id));
    match kind {
        Kind::Semantic => format!(
            "semantic/{}/{file}",
            path_component(subject.unwrap_or("general"))
        ),
        Kind::Episodic => format!("episodic/{}/{file}", created.format("%Y-%m")),
        Kind::Working => format!(
            "working/{}/{file}",
            path_component(session.unwrap_or("default"))
        ),
        Kind::Procedural => format!("procedural/{file}"),
    }
}

/// An Obsidian wikilink to a record: `[[semantic/user/lives-in-berlin-c1b0ze]]`.
/// `supersedes`, `superseded_by` and `sources` are written this way so the
/// lineage shows in Obsidian's graph.
pub fn wikilink(relative_path: &str) -> String {
    format!("[[{}]]", relative_path.trim_end_matches(".md"))
}

/// What a person typed to name one record (an `ID` argument), read but not yet
/// looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordRef {
    /// A full id, a short id, a prefix of either, or a bare file name.
    Key(String),
    /// A path in the vault as typed (absolute or vault-relative, `.md` optional).
    Path(String),
    /// A wikilink's target: a vault-relative path or a bare note name, without
    /// `.md`, alias or heading.
    Link(String),
}

impl RecordRef {
    /// Reads an `ID` argument: `[[target|alias]]` or `[[target#heading]]` is a
    /// wikilink; text with a `/` or `\`, or ending in `.md`, is a path; anything
    /// else is a key (an id, a short id, a prefix of either).
    pub fn parse(input: &str) -> Result<RecordRef> {
        let input = input.trim();
        if input.is_empty() {
            return Err(Error::Input(
                "give a record: an id, a short id, a path or a [[wikilink]]".into(),
            ));
        }
        if let Some(inner) = input.strip_prefix("[[") {
            let Some(inner) = inner.strip_suffix("]]") else {
                return Err(Error::Input(format!(
                    "'{input}' is not a wikilink: close it with ]]"
                )));
            };
            let target = inner.split('|').next().unwrap_or("");
            let target = target.split('#').next().unwrap_or("").trim();
            let target = strip_md(target).trim_end_matches('/');
            if target.is_empty() {
                return Err(Error::Input(format!(
                    "'{input}' names no note: write [[path/to/note]]"
                )));
            }
            return Ok(RecordRef::Link(target.to_string()));
        }
        let is_path = input.contains('/') || input.contains('\\') || has_md(input);
        Ok(if is_path {
            RecordRef::Path(input.to_string())
        } else {
            RecordRef::Key(input.to_string())
        })
    }

    /// The vault-relative file this reference names, when it names one by path
    /// and that path stays inside the vault (for a file that may be gone):
    /// `None` for a key, an absolute path or one with `..`.
    pub fn relative_path(&self) -> Option<String> {
        let text = match self {
            RecordRef::Key(_) => return None,
            RecordRef::Path(p) | RecordRef::Link(p) => p.trim_start_matches("./"),
        };
        let safe = !text.starts_with('/')
            && !text.contains('\\')
            && std::path::Path::new(text)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        safe.then(|| with_md(text))
    }
}

/// Whether a path ends in `.md` (any case).
fn has_md(path: &str) -> bool {
    path.len() >= 3
        && path
            .get(path.len() - 3..)
            .is_some_and(|end| end.eq_ignore_ascii_case(".md"))
}

fn strip_md(path: &str) -> &str {
    if has_md(path) {
        &path[..path.len() - 3]
    } else {
        path
    }
}

/// Whether a path names a markdown file (by its extension, in any case).
pub fn is_markdown(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

/// `path` with `.md` added unless it has it.
pub fn with_md(path: &str) -> String {
    if has_md(path) {
        path.to_string()
    } else {
        format!("{path}.md")
    }
}

/// The kind a note has by where it lives: its top folder, else semantic.
pub fn kind_from_path(relative_path: &str) -> Kind {
    let top = relative_path.split('/').next().unwrap_or("");
    top.parse().unwrap_or(Kind::Semantic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_time;

    #[test]
    fn ids_are_lowercase_ulids_and_monotonic() {
        let mut g = ulid::Generator::new();
        let now = parse_time("2026-11-20T09:12:44Z").unwrap();
        let a = new_id(&mut g, now);
        let b = new_id(&mut g, now);
        assert_eq!(a.len(), 26);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        );
        assert!(a < b, "ids made in one run sort in creation order");
    }

    #[test]
    fn derived_ids_are_stable_and_distinct() {
        assert_eq!(derived_id("notes/a.md"), derived_id("notes/a.md"));
        assert_ne!(derived_id("notes/a.md"), derived_id("notes/b.md"));
        assert_eq!(derived_id("x").len(), 26);
    }

    #[test]
    fn slugs_are_short_ascii_words() {
        assert_eq!(slug("Is vegetarian."), "is-vegetarian");
        assert_eq!(
            slug("Lives in Lisbon, Portugal since 2024 and loves it"),
            "lives-in-lisbon-portugal-since-2024"
        );
        assert_eq!(slug("日本語"), "note");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert!(slug(&"word ".repeat(100)).len() <= 48);
    }

    #[test]
    fn path_components_cannot_escape() {
        for hostile in [
            "../../etc",
            "/abs/path",
            "..",
            ".",
            ".hidden",
            "a/b\\c",
            "",
            "\0nul",
            "C:\\x",
        ] {
            let c = path_component(hostile);
            assert!(!c.is_empty());
            assert!(
                !c.contains('/') && !c.contains('\\') && !c.contains('.'),
                "{hostile} -> {c}"
            );
            assert!(!c.starts_with('.'));
        }
        assert_eq!(path_component("Alice Smith"), "alice-smith");
        assert_eq!(path_component("acme-corp"), "acme-corp");
    }

    #[test]
    fn record_paths_follow_the_layout() {
        let t = parse_time("2026-11-20T09:12:44Z").unwrap();
        let id = "01jdq3k8v6w2m4x9t5r7c1b0ze";
        assert_eq!(
            record_path(Kind::Semantic, id, "Is vegetarian.", Some("user"), None, t),
            "semantic/user/is-vegetarian-c1b0ze.md"
        );
        assert_eq!(
            record_path(Kind::Episodic, id, "Went hiking", None, None, t),
            "episodic/2026-11/went-hiking-c1b0ze.md"
        );
        assert_eq!(
            record_path(Kind::Working, id, "x", None, Some("../s1"), t),
            "working/s1/x-c1b0ze.md"
        );
        assert_eq!(
            record_path(Kind::Procedural, id, "Deploy", None, None, t),
            "procedural/deploy-c1b0ze.md"
        );
    }

    #[test]
    fn kind_follows_the_top_folder() {
        assert_eq!(kind_from_path("episodic/2026-11/x.md"), Kind::Episodic);
        assert_eq!(kind_from_path("notes/x.md"), Kind::Semantic);
        assert_eq!(kind_from_path("x.md"), Kind::Semantic);
    }

    #[test]
    fn record_refs_tell_keys_paths_and_wikilinks_apart() {
        let key = |s: &str| RecordRef::Key(s.to_string());
        let path = |s: &str| RecordRef::Path(s.to_string());
        let link = |s: &str| RecordRef::Link(s.to_string());
        let parse = |s: &str| RecordRef::parse(s).unwrap();
        assert_eq!(
            parse("01jdq3k8v6w2m4x9t5r7c1b0ze"),
            key("01jdq3k8v6w2m4x9t5r7c1b0ze")
        );
        assert_eq!(parse("  c1b0ze \n"), key("c1b0ze"));
        assert_eq!(parse("is-vegetarian-c1b0ze"), key("is-vegetarian-c1b0ze"));
        assert_eq!(
            parse("semantic/user/is-vegetarian-c1b0ze.md"),
            path("semantic/user/is-vegetarian-c1b0ze.md")
        );
        assert_eq!(
            parse("semantic/user/is-vegetarian-c1b0ze"),
            path("semantic/user/is-vegetarian-c1b0ze")
        );
        assert_eq!(parse("note.MD"), path("note.MD"));
        assert_eq!(parse("notes\\x"), path("notes\\x"));
        assert_eq!(
            parse("[[semantic/user/is-vegetarian-c1b0ze]]"),
            link("semantic/user/is-vegetarian-c1b0ze")
        );
        assert_eq!(
            parse("[[semantic/user/is-vegetarian-c1b0ze.md|veggie]]"),
            link("semantic/user/is-vegetarian-c1b0ze")
        );
        assert_eq!(parse("[[ideas#Later|x]]"), link("ideas"));
        assert_eq!(parse("[[café]]"), link("café"));
    }

    #[test]
    fn malformed_record_refs_are_input_errors() {
        for bad in ["", "   ", "[[]]", "[[|alias]]", "[[#heading]]", "[[open"] {
            assert!(
                matches!(RecordRef::parse(bad), Err(Error::Input(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn record_refs_give_safe_relative_paths_only() {
        let rel = |s: &str| RecordRef::parse(s).unwrap().relative_path();
        assert_eq!(
            rel("semantic/a/x-c1b0ze").as_deref(),
            Some("semantic/a/x-c1b0ze.md")
        );
        assert_eq!(rel("./notes/x.md").as_deref(), Some("notes/x.md"));
        assert_eq!(rel("[[notes/x|X]]").as_deref(), Some("notes/x.md"));
        assert_eq!(rel("c1b0ze"), None, "a key is not a path");
        for escaping in [
            "../x.md",
            "notes/../../x",
            "/etc/passwd",
            "[[../../x]]",
            "a\\..\\b.md",
        ] {
            assert_eq!(rel(escaping), None, "{escaping}");
        }
    }
}

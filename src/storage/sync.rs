//! The sync diff: which files changed since the index last saw them.
//!
//! Pure functions over what the state remembers and what a walk of the vault
//! found. Cheap by design: only files whose size or modification time differ are
//! read and hashed by the caller; a file whose bytes hash the same is unchanged
//! whatever its mtime. A path that disappeared while a new path appeared with the
//! same bytes is a rename.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::storage::vault::FoundFile;

/// What the index holds of one file, as remembered in `.engram/state.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: String,
    /// The record id; empty when the file failed to parse.
    pub id: String,
    /// Why the file could not be parsed (`line: message`), if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken: Option<String>,
}

/// The first pass of a sync: stat only, no file read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatDiff {
    /// New files and files whose size or mtime changed: read and hash these.
    pub to_check: Vec<FoundFile>,
    /// Paths the state knows that the walk did not find.
    pub missing: Vec<String>,
    /// Files with the same size and mtime as remembered.
    pub unchanged: usize,
}

impl StatDiff {
    /// Whether the vault matches the state exactly.
    pub fn is_clean(&self) -> bool {
        self.to_check.is_empty() && self.missing.is_empty()
    }
}

/// Compares a walk of the vault with the remembered state by size and mtime.
pub fn stat_diff(known: &BTreeMap<String, FileEntry>, found: &[FoundFile]) -> StatDiff {
    let mut diff = StatDiff::default();
    let mut seen = std::collections::HashSet::with_capacity(found.len());
    for file in found {
        seen.insert(file.rel.as_str());
        match known.get(&file.rel) {
            Some(e) if e.size == file.size && e.mtime_ns == file.mtime_ns => diff.unchanged += 1,
            _ => diff.to_check.push(file.clone()),
        }
    }
    diff.missing = known
        .keys()
        .filter(|k| !seen.contains(k.as_str()))
        .cloned()
        .collect();
    diff
}

/// What happened to one checked file, once its bytes were hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// Same bytes as remembered: only the stamp moves.
    Touched,
    /// Not known before.
    Added,
    /// Known, with different bytes.
    Modified,
}

/// Classifies a checked file by its hash against the state.
pub fn classify(known: &BTreeMap<String, FileEntry>, rel: &str, hash: &str) -> Checked {
    match known.get(rel) {
        Some(e) if e.hash == hash => Checked::Touched,
        Some(_) => Checked::Modified,
        None => Checked::Added,
    }
}

/// Pairs removed paths with added paths holding the same bytes: renames.
/// Returns (from, to) pairs; each path is used at most once.
pub fn pair_renames(
    known: &BTreeMap<String, FileEntry>,
    missing: &[String],
    added: &[(String, String)],
) -> Vec<(String, String)> {
    let mut by_hash: HashMap<&str, Vec<&str>> = HashMap::new();
    for rel in missing {
        if let Some(e) = known.get(rel) {
            by_hash
                .entry(e.hash.as_str())
                .or_default()
                .push(rel.as_str());
        }
    }
    let mut pairs = Vec::new();
    for (to, hash) in added {
        if let Some(from) = by_hash.get_mut(hash.as_str()).and_then(|f| f.pop()) {
            pairs.push((from.to_string(), to.clone()));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(size: u64, mtime: i64, hash: &str) -> FileEntry {
        FileEntry {
            size,
            mtime_ns: mtime,
            hash: hash.into(),
            id: "x".into(),
            broken: None,
        }
    }

    fn found(rel: &str, size: u64, mtime: i64) -> FoundFile {
        FoundFile {
            rel: rel.into(),
            size,
            mtime_ns: mtime,
        }
    }

    #[test]
    fn unchanged_files_are_not_read() {
        let known = BTreeMap::from([("a.md".to_string(), entry(3, 10, "h"))]);
        let diff = stat_diff(&known, &[found("a.md", 3, 10)]);
        assert!(diff.is_clean());
        assert_eq!(diff.unchanged, 1);
    }

    #[test]
    fn size_or_mtime_changes_and_new_files_are_checked() {
        let known = BTreeMap::from([
            ("a.md".to_string(), entry(3, 10, "h")),
            ("b.md".to_string(), entry(3, 10, "h")),
            ("gone.md".to_string(), entry(3, 10, "h")),
        ]);
        let diff = stat_diff(
            &known,
            &[
                found("a.md", 4, 10),
                found("b.md", 3, 11),
                found("new.md", 1, 1),
            ],
        );
        let checked: Vec<&str> = diff.to_check.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(checked, vec!["a.md", "b.md", "new.md"]);
        assert_eq!(diff.missing, vec!["gone.md"]);
        assert_eq!(diff.unchanged, 0);
    }

    #[test]
    fn hashes_decide_between_touched_and_modified() {
        let known = BTreeMap::from([("a.md".to_string(), entry(3, 10, "h1"))]);
        assert_eq!(classify(&known, "a.md", "h1"), Checked::Touched);
        assert_eq!(classify(&known, "a.md", "h2"), Checked::Modified);
        assert_eq!(classify(&known, "b.md", "h1"), Checked::Added);
    }

    #[test]
    fn same_bytes_at_a_new_path_is_a_rename() {
        let known = BTreeMap::from([
            ("old.md".to_string(), entry(3, 10, "h1")),
            ("other.md".to_string(), entry(3, 10, "h2")),
        ]);
        let pairs = pair_renames(
            &known,
            &["old.md".into(), "other.md".into()],
            &[
                ("new.md".into(), "h1".into()),
                ("fresh.md".into(), "h9".into()),
            ],
        );
        assert_eq!(pairs, vec![("old.md".to_string(), "new.md".to_string())]);
    }
}

//! The sync diff: which files changed since the index last saw them.
//!
//! Pure functions over what the index remembers and what a walk of the vault
//! found. Cheap by design: only files whose size or modification time differ are
//! read and hashed by the caller; a file whose bytes hash the same is unchanged
//! whatever its mtime. A path that disappeared while a new path appeared with the
//! same bytes is a rename.
//!
//! Cheaper still when nothing changed: every commit of the index carries a
//! [`Summary`] whose [`Fingerprint`] is an order-free sum of a hash of (path,
//! size, mtime) over every file it knows. A walk that sums the same over what it
//! found and gets the same fingerprint has found nothing new, and no per-file
//! state is read at all.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::storage::vault::FoundFile;

/// How close to a commit a file's mtime may be and still hide a change: a file
/// rewritten with the same size within one tick of the filesystem clock keeps
/// its mtime. Such "racy" files are hashed again by the next sync (as git does).
pub const RACY_WINDOW_NS: i64 = 20_000_000;

/// At most this many racy files are remembered (the newest).
const RACY_MAX: usize = 1024;

/// An order-free digest of a set of (path, size, mtime): the count and the
/// wrapping sum of a 128-bit hash of each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fingerprint {
    pub count: u64,
    pub sum: u128,
}

impl Fingerprint {
    fn of(rel: &str, size: u64, mtime_ns: i64) -> u128 {
        let mut bytes = Vec::with_capacity(rel.len() + 17);
        bytes.extend_from_slice(rel.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&mtime_ns.to_le_bytes());
        xxhash_rust::xxh3::xxh3_128(&bytes)
    }

    pub fn add(&mut self, rel: &str, size: u64, mtime_ns: i64) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(Self::of(rel, size, mtime_ns));
    }

    pub fn remove(&mut self, rel: &str, size: u64, mtime_ns: i64) {
        self.count = self.count.saturating_sub(1);
        self.sum = self.sum.wrapping_sub(Self::of(rel, size, mtime_ns));
    }

    /// The fingerprint of what a walk found.
    pub fn of_found(found: &[FoundFile]) -> Fingerprint {
        let mut print = Fingerprint::default();
        for f in found {
            print.add(&f.rel, f.size, f.mtime_ns);
        }
        print
    }
}

/// What a commit of the index says about the files it was made from (stored
/// as the commit's payload, so it is always the summary of that commit).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The schema and analyzer version that made the index.
    pub schema: u32,
    /// Files known (indexed and broken).
    pub count: u64,
    /// [`Fingerprint::sum`] of the files known, in hex.
    pub print: String,
    /// Files that failed to parse, by path.
    #[serde(default)]
    pub broken: BTreeMap<String, FileEntry>,
    /// Files whose mtime was within [`RACY_WINDOW_NS`] of a commit, with it.
    #[serde(default)]
    pub racy: BTreeMap<String, i64>,
    /// The embedder the vector rows were made by.
    #[serde(default)]
    pub embedder: String,
    /// Records with no vector row yet (the embedder failed).
    #[serde(default)]
    pub unembedded: u64,
}

impl Summary {
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint {
            count: self.count,
            sum: u128::from_str_radix(&self.print, 16).unwrap_or(0),
        }
    }

    pub fn set_fingerprint(&mut self, print: Fingerprint) {
        self.count = print.count;
        self.print = format!("{:032x}", print.sum);
    }

    /// Remembers `rel` as racy if its mtime is within the window of `now_ns`;
    /// forgets it otherwise.
    pub fn note_racy(&mut self, rel: &str, mtime_ns: i64, now_ns: i64) {
        if mtime_ns >= now_ns.saturating_sub(RACY_WINDOW_NS) {
            self.racy.insert(rel.to_string(), mtime_ns);
        } else {
            self.racy.remove(rel);
        }
    }

    /// Keeps the newest [`RACY_MAX`] racy files.
    pub fn trim_racy(&mut self) {
        if self.racy.len() <= RACY_MAX {
            return;
        }
        let mut by_time: Vec<(i64, String)> = std::mem::take(&mut self.racy)
            .into_iter()
            .map(|(rel, t)| (t, rel))
            .collect();
        by_time.sort_unstable_by(|a, b| b.cmp(a));
        by_time.truncate(RACY_MAX);
        self.racy = by_time.into_iter().map(|(t, rel)| (rel, t)).collect();
    }
}

/// What the index holds of one file.
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

/// Size and mtime of every file the index knows, by path.
pub type Stamps = HashMap<String, (u64, i64)>;

/// Compares a walk of the vault with the remembered stamps by size and mtime.
pub fn stat_diff(known: &Stamps, found: &[FoundFile]) -> StatDiff {
    let mut diff = StatDiff::default();
    let mut seen = std::collections::HashSet::with_capacity(found.len());
    for file in found {
        seen.insert(file.rel.as_str());
        match known.get(&file.rel) {
            Some((size, mtime)) if *size == file.size && *mtime == file.mtime_ns => {
                diff.unchanged += 1
            }
            _ => diff.to_check.push(file.clone()),
        }
    }
    diff.missing = known
        .keys()
        .filter(|k| !seen.contains(k.as_str()))
        .cloned()
        .collect();
    diff.missing.sort();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stamps(entries: &[(&str, u64, i64)]) -> Stamps {
        entries
            .iter()
            .map(|(rel, size, mtime)| (rel.to_string(), (*size, *mtime)))
            .collect()
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
        let known = stamps(&[("a.md", 3, 10)]);
        let diff = stat_diff(&known, &[found("a.md", 3, 10)]);
        assert!(diff.is_clean());
        assert_eq!(diff.unchanged, 1);
    }

    #[test]
    fn size_or_mtime_changes_and_new_files_are_checked() {
        let known = stamps(&[("a.md", 3, 10), ("b.md", 3, 10), ("gone.md", 3, 10)]);
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
}

//! Doctor: check every file and the derived state, report what is wrong and,
//! with `fix`, repair what can be repaired without a person (index drift,
//! missing vectors, stray temporary files). A broken record file is never
//! changed: the report names the file, the line and what to do.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::storage::store::{NoProgress, Store};
use crate::storage::sync;
use crate::storage::vault::VaultLock;
use crate::storage::vectors::VectorFile;

/// One finding.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Problem {
    /// `broken_file`, `duplicate_id`, `index_drift`, `vectors`, `temp_file`,
    /// `not_indexed`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
    pub fixed: bool,
}

impl Problem {
    fn new(
        kind: &'static str,
        path: Option<String>,
        line: Option<usize>,
        message: String,
    ) -> Problem {
        Problem {
            kind,
            path,
            line,
            message,
            fixed: false,
        }
    }
}

/// Checks the vault; with `fix`, repairs drift. A fix needs the lock; a check
/// without it (a reader who may not write to the vault) reports only.
pub fn doctor(store: &mut Store, lock: Option<&VaultLock>, fix: bool) -> Result<Vec<Problem>> {
    let fix_lock = lock.filter(|_| fix);
    let mut problems = Vec::new();
    let vault = store.vault().clone();
    let found = vault.walk();
    // Every file is read and parsed: doctor is the one command that may.
    let mut ids: HashMap<String, Vec<String>> = HashMap::new();
    for file in &found {
        match vault.read(&file.rel) {
            Ok(loaded) => {
                if loaded.record.id_in_file {
                    ids.entry(loaded.record.id.clone())
                        .or_default()
                        .push(file.rel.clone());
                }
            }
            Err(Error::Parse { line, message, .. }) => problems.push(Problem::new(
                "broken_file",
                Some(file.rel.clone()),
                Some(line),
                format!("{message}; edit the file to fix it (engram skips it until then)"),
            )),
            Err(e) => problems.push(Problem::new(
                "broken_file",
                Some(file.rel.clone()),
                None,
                e.to_string(),
            )),
        }
    }
    let mut duplicates: Vec<_> = ids
        .into_iter()
        .filter(|(_, paths)| paths.len() > 1)
        .collect();
    duplicates.sort();
    for (id, paths) in duplicates {
        problems.push(Problem::new(
            "duplicate_id",
            Some(paths[1..].join(", ")),
            None,
            format!(
                "id {id} is in {} files ({}); give the copies new ids or delete them",
                paths.len(),
                paths.join(", ")
            ),
        ));
    }
    for entry in walkdir::WalkDir::new(vault.root()).into_iter().flatten() {
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_file() && name.starts_with(".engram-tmp-") {
            let rel = entry
                .path()
                .strip_prefix(vault.root())
                .unwrap_or(entry.path())
                .display()
                .to_string();
            let mut p = Problem::new(
                "temp_file",
                Some(rel),
                None,
                "a temporary file left by an interrupted write".into(),
            );
            if fix_lock.is_some() {
                p.fixed = std::fs::remove_file(entry.path()).is_ok();
            }
            problems.push(p);
        }
    }
    for (path, why) in vault.unindexable() {
        problems.push(Problem::new("not_indexed", Some(path), None, why));
    }
    let mut drift = Vec::new();
    let diff = sync::stat_diff(&store.known_stamps()?, &found);
    for f in &diff.to_check {
        drift.push(Problem::new(
            "index_drift",
            Some(f.rel.clone()),
            None,
            "changed or new since the index last saw it".into(),
        ));
    }
    for rel in &diff.missing {
        drift.push(Problem::new(
            "index_drift",
            Some(rel.clone()),
            None,
            "in the index but no longer on disk".into(),
        ));
    }
    let (known, broken) = store.file_counts();
    let indexed = store.index().num_docs() as usize;
    if indexed != known - broken {
        drift.push(Problem::new(
            "index_drift",
            None,
            None,
            format!(
                "the index holds {indexed} records where {} files parse",
                known - broken
            ),
        ));
    }
    if let Some(embedder) = store.embedder() {
        let live = known - broken;
        let message = match VectorFile::open(&vault.vectors_path()) {
            Ok(Some(file)) if file.header().embedder != embedder.name() => Some(format!(
                "vectors were made by {}, the embedder is {}",
                file.header().embedder,
                embedder.name()
            )),
            Ok(Some(file)) => {
                let rows = store.live_vector_rows(&file)?;
                (rows < live).then(|| format!("{} of {live} records have no vector", live - rows))
            }
            Ok(None) if live > 0 => Some("the vector file is missing".into()),
            Err(e) => Some(e.to_string()),
            Ok(None) => None,
        };
        if let Some(m) = message {
            drift.push(Problem::new("vectors", None, None, m));
        }
    }
    if let Some(lock) = fix_lock.filter(|_| !drift.is_empty()) {
        let mut report = store.sync_locked(lock, &NoProgress)?;
        let (known, broken) = store.file_counts();
        if store.index().num_docs() as usize != known - broken {
            // Drift that a sync cannot explain: rebuild from the files.
            *store = Store::open_empty(vault.clone(), lock)?;
            report = store.sync_locked(lock, &NoProgress)?;
        }
        let vectors_ok = report.warnings.is_empty();
        for p in &mut drift {
            p.fixed = p.kind != "vectors" || vectors_ok;
        }
    }
    problems.extend(drift);
    Ok(problems)
}

//! engram: memory for AI agents as plain markdown files, found again with a
//! tantivy index and a sidecar vector file.
//!
//! Layers, top to bottom: `cli` (flags, printing, exit codes) → use cases
//! (`capture`, `recall`, `sync`, `doctor`, `forget`) → storage (`vault`, `index`,
//! `vectors`) and models (`embed`) → `record`.

pub mod capture;
pub mod cli;
pub mod clock;
pub mod config;
pub mod consolidate;
pub mod doctor;
pub mod embed;
pub mod error;
pub mod extract;
pub mod forget;
pub mod fusion;
pub mod git;
pub mod index;
pub mod llm;
pub mod naming;
pub mod prune;
pub mod recall;
pub mod reconcile;
pub mod record;
pub mod store;
pub mod sync;
pub mod vault;
pub mod vectors;
pub mod watch;
pub mod working;

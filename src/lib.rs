//! engram: memory for AI agents as plain markdown files, found again with a
//! tantivy index and a sidecar vector file.
//!
//! Layers, top to bottom: `cli` (flags, printing, exit codes) → use cases
//! (`capture`, `recall`, `sync`, `doctor`, `forget`) → storage (`vault`, `index`,
//! `vectors`) and models (`embed`) → `record`.

pub mod clock;
pub mod config;
pub mod error;
pub mod index;
pub mod naming;
pub mod record;
pub mod vault;
pub mod embed;
pub mod vectors;
pub mod store;
pub mod sync;
pub mod capture;
pub mod forget;
pub mod fusion;
pub mod recall;
pub mod doctor;
pub mod cli;

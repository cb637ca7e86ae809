//! engram: memory for AI agents as plain markdown files, found again with a
//! tantivy index and a sidecar vector file.
//!
//! The folders are the layers, and dependencies point down only (see
//! `ARCHITECTURE.md`):
//! - [`cli`]: flags, printing, exit codes; the only code that knows clap;
//! - [`memory`]: the use cases: capture, recall, reconcile, consolidate,
//!   prune, forget, working memory;
//! - [`storage`]: the files and what is derived from them: record format,
//!   vault, index, vectors, sync, the record writer, git, watch, doctor;
//! - [`models`]: what reads or embeds text: the built-in rule engine, the
//!   built-in and HTTP embedders, the chat-model client;
//! - crate-wide: [`error`], [`config`], [`clock`].

pub mod cli;
pub mod clock;
pub mod config;
pub mod error;
pub mod memory;
pub mod models;
pub mod storage;

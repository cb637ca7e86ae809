//! Models: what reads or embeds text. Nothing here knows of files, the vault
//! or the index.
//!
//! - [`rules`]: the built-in, offline rule engine that reads statements into
//!   facts and attributes;
//! - [`embed`]: the embedder trait, the built-in static embedder and the
//!   OpenAI-compatible HTTP client;
//! - [`llm`]: the OpenAI-compatible chat client and the prompts for capture,
//!   reconciliation, consolidation and pruning.

pub mod embed;
pub mod llm;
pub mod rules;

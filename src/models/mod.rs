//! Models: what reads or embeds text. Nothing here knows of files, the vault
//! or the index.
//!
//! - [`rules`]: the built-in, offline rule engine that reads statements into
//!   facts and attributes;
//! - [`lexicon`]: parts of speech and verb forms from WordNet word lists;
//! - [`rewrite`]: a first-person clause told in the third person;
//! - [`when`]: time words resolved against the time of capture;
//! - [`vocabulary`]: the words people ask about a kind of fact with;
//! - [`embed`]: the embedder trait, the built-in static embedder and the
//!   OpenAI-compatible HTTP client;
//! - [`llm`]: the OpenAI-compatible chat client and the prompts for capture,
//!   reconciliation, consolidation and pruning.

pub mod embed;
pub mod lexicon;
pub mod llm;
pub mod rewrite;
pub mod rules;
pub mod vocabulary;
pub mod when;

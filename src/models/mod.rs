//! Models: what reads or embeds text. Nothing here knows of files, the vault
//! or the index.
//!
//! - [`rules`]: the built-in, offline rule engine that reads statements into
//!   facts and attributes;
//! - [`attributes`]: what a statement is a value of, from the word list
//!   `data/lexicon/attributes.txt`, in any person;
//! - [`lexicon`]: parts of speech and verb forms from WordNet word lists;
//! - [`notes`]: a statement that stands alone, kept in its own words, and
//!   who it is about;
//! - [`rewrite`]: a first-person clause told in the third person;
//! - [`when`]: time words resolved against the time of capture;
//! - [`vocabulary`]: the words people ask about a kind of fact with;
//! - [`embed`]: the embedder trait, the built-in static embedder and the
//!   OpenAI-compatible HTTP client;
//! - [`llm`]: the OpenAI-compatible chat client and the prompts for capture,
//!   reconciliation, consolidation and pruning.

pub mod attributes;
pub mod embed;
pub mod lexicon;
pub mod llm;
pub mod notes;
pub mod rewrite;
pub mod rules;
pub mod vocabulary;
pub mod when;

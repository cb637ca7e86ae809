//! Embedders: turn texts into unit vectors for the sidecar vector file.
//!
//! [`Embedder`] is the seam; [`http::HttpEmbedder`] speaks the OpenAI-compatible
//! `/v1/embeddings` protocol. Which one is in effect comes from the vault config
//! and `ENGRAM_EMBED_*` (see [`from_config`]); with none configured, recall runs
//! on BM25 alone.

pub mod http;

use crate::config::Config;
use crate::error::{Error, Result};

/// Something that embeds texts.
pub trait Embedder {
    /// A name that identifies the model; a vector file made by another name is
    /// re-embedded.
    fn name(&self) -> String;

    /// One L2-normalised vector per text, in order.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>>;
}

/// The embedder the config asks for, if any.
pub fn from_config(config: &Config) -> Result<Option<Box<dyn Embedder>>> {
    match config.embedder_provider() {
        "none" => Ok(None),
        "openai" => {
            let e = &config.embedder;
            if e.url.is_empty() {
                return Err(Error::Input(
                    "embedder provider is openai but no URL is set; set embedder.url in .engram/config.yaml or ENGRAM_EMBED_URL".into(),
                ));
            }
            Ok(Some(Box::new(http::HttpEmbedder::new(
                &e.url,
                &e.model,
                &e.api_key,
                e.batch_size.max(1),
                e.timeout_secs,
            ))))
        }
        other => Err(Error::Input(format!(
            "unknown embedder provider '{other}' in .engram/config.yaml; use none or openai"
        ))),
    }
}

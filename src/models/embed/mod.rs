//! Embedders: turn texts into unit vectors for the sidecar vector file.
//!
//! [`Embedder`] is the seam ([`embedder`]). [`Builtin`] is the default: a
//! static table ([`table`]) distilled from all-MiniLM-L6-v2, compiled into the
//! binary, offline and fast; [`http::HttpEmbedder`] speaks the
//! OpenAI-compatible `/v1/embeddings` protocol. Which one is in effect comes
//! from the vault config and `ENGRAM_EMBED_*` (see [`from_config`]);
//! `provider: none` turns vectors off (recall is BM25 alone).

pub mod builtin;
pub mod embedder;
pub mod http;
pub mod table;

pub use builtin::{Builtin, builtin_embedding};
pub use embedder::{Embedder, normalize};

use crate::config::Config;
use crate::error::{Error, Result};

/// The embedder the config asks for, if any.
pub fn from_config(config: &Config) -> Result<Option<Box<dyn Embedder>>> {
    match config.embedder_provider() {
        "none" => Ok(None),
        "builtin" => Ok(Some(Box::new(Builtin))),
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
            "unknown embedder provider '{other}' in .engram/config.yaml; use builtin, openai or none"
        ))),
    }
}

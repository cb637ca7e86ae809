//! The OpenAI-compatible embeddings client (`POST {url}/embeddings`), over ureq.
//! Works with OpenAI, Ollama, vLLM, llama.cpp server and LM Studio. Transient
//! failures (connection errors, 429, 5xx) are retried a bounded number of times
//! with backoff; anything else fails at once with a message naming the endpoint.

use std::time::Duration;

use serde_json::json;

use crate::error::{Error, Result};
use crate::models::embed::embedder::{Embedder, normalize};

const RETRIES: u32 = 2;

/// A client for one endpoint and model.
pub struct HttpEmbedder {
    endpoint: String,
    model: String,
    api_key: String,
    batch_size: usize,
    agent: ureq::Agent,
}

impl HttpEmbedder {
    /// `url` is the API base (`http://host:port/v1`); a URL that already ends in
    /// `/embeddings` is used as it is.
    pub fn new(
        url: &str,
        model: &str,
        api_key: &str,
        batch_size: usize,
        timeout_secs: f64,
    ) -> Self {
        let url = url.trim_end_matches('/');
        let endpoint = if url.ends_with("/embeddings") {
            url.to_string()
        } else {
            format!("{url}/embeddings")
        };
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs_f64(timeout_secs.max(0.1))))
            .http_status_as_error(false)
            .build()
            .into();
        HttpEmbedder {
            endpoint,
            model: model.to_string(),
            api_key: api_key.to_string(),
            batch_size,
            agent,
        }
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::Model {
            url: self.endpoint.clone(),
            message: message.into(),
        }
    }

    fn request(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let body = json!({ "model": self.model, "input": texts });
        let mut attempt = 0;
        loop {
            let mut req = self.agent.post(&self.endpoint);
            if !self.api_key.is_empty() {
                req = req.header("Authorization", &format!("Bearer {}", self.api_key));
            }
            let outcome = req.send_json(&body);
            let retryable = match &outcome {
                Ok(resp) => resp.status().as_u16() == 429 || resp.status().is_server_error(),
                Err(_) => true,
            };
            if retryable && attempt < RETRIES {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(200 * u64::from(attempt)));
                continue;
            }
            let mut resp = outcome.map_err(|e| self.error(e.to_string()))?;
            let status = resp.status();
            if !status.is_success() {
                let text = resp.body_mut().read_to_string().unwrap_or_default();
                return Err(self.error(format!(
                    "HTTP {status}: {}",
                    text.chars().take(200).collect::<String>()
                )));
            }
            let value: serde_json::Value = resp
                .body_mut()
                .read_json()
                .map_err(|e| self.error(format!("the answer is not JSON: {e}")))?;
            return self.parse(&value, texts.len());
        }
    }

    fn parse(&self, value: &serde_json::Value, expected: usize) -> Result<Vec<Vec<f32>>> {
        let data = value
            .get("data")
            .and_then(|d| d.as_array())
            .ok_or_else(|| self.error("the answer has no `data` array"))?;
        let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
        for (pos, item) in data.iter().enumerate() {
            let index = item
                .get("index")
                .and_then(|i| i.as_u64())
                .map_or(pos, |i| i as usize);
            let vector: Vec<f32> = item
                .get("embedding")
                .and_then(|e| e.as_array())
                .ok_or_else(|| self.error("an item has no `embedding` array"))?
                .iter()
                .map(|x| x.as_f64().map(|x| x as f32))
                .collect::<Option<_>>()
                .ok_or_else(|| self.error("an embedding holds a non-number"))?;
            let slot = out.get_mut(index).ok_or_else(|| {
                self.error(format!("an item has index {index} for {expected} inputs"))
            })?;
            *slot = Some(vector);
        }
        let mut vectors: Vec<Vec<f32>> =
            out.into_iter().collect::<Option<_>>().ok_or_else(|| {
                self.error(format!("fewer embeddings than the {expected} inputs sent"))
            })?;
        let dim = vectors.first().map_or(0, Vec::len);
        if dim == 0 || vectors.iter().any(|v| v.len() != dim) {
            return Err(self.error("embeddings are empty or of different lengths"));
        }
        vectors.iter_mut().for_each(|v| normalize(v));
        Ok(vectors)
    }
}

impl Embedder for HttpEmbedder {
    fn name(&self) -> String {
        format!("openai:{}", self.model)
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let mut all = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.batch_size) {
            all.extend(self.request(batch)?);
        }
        Ok(all)
    }
}

//! Settings of a vault: defaults < `.engram/config.yaml` < `ENGRAM_*` environment
//! variables < flags (flags are applied by the commands that take them).
//!
//! Unknown keys in the file are ignored so that a newer vault still opens; a value
//! of the wrong type is an error that names the file and the key.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// All settings of a vault.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Config {
    pub embedder: EmbedderConfig,
    pub llm: LlmConfig,
    pub recall: RecallConfig,
    pub working: WorkingConfig,
    pub episodic: EpisodicConfig,
    pub consolidate: ConsolidateConfig,
    pub prune: PruneConfig,
    /// How long a command waits for another process's vault lock, in seconds.
    pub lock_timeout_secs: f64,
    pub git: GitConfig,
    /// The names each user goes by (`ana: [Ana, Ana Silva]`): a note that
    /// names the user ("Ana prefers dark mode") is about the user. A user's
    /// own name (`--user ana`) counts without being listed.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub users: std::collections::BTreeMap<String, Vec<String>>,
}

/// Reviewing the vault in git.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct GitConfig {
    /// Every command that changes the vault commits exactly its changes (when the
    /// vault is in a git work tree); same as `--commit` on every command.
    pub auto_commit: bool,
}

/// Which embedder makes the vectors.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct EmbedderConfig {
    /// `builtin` (offline, compiled in), `openai` (any OpenAI-compatible
    /// `/v1/embeddings` endpoint) or `none`. Empty: `openai` when a URL is set,
    /// else `builtin`.
    pub provider: String,
    /// Base URL, e.g. `http://127.0.0.1:11434/v1` (`/embeddings` is appended).
    pub url: String,
    pub model: String,
    pub api_key: String,
    /// Texts sent per request.
    pub batch_size: usize,
    /// Request timeout in seconds.
    pub timeout_secs: f64,
}

/// The chat model used by capture, consolidate and prune (none: the rule engine).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default)]
pub struct LlmConfig {
    pub url: String,
    pub model: String,
    pub api_key: String,
}

/// How recall ranks.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct RecallConfig {
    /// Results returned when `-k` is not given.
    pub k: usize,
    /// `hybrid`, `bm25` or `vector`.
    pub mode: String,
    /// `weighted` (min-max normalised scores, mixed by `bm25_weight`; measured
    /// better on LoCoMo) or `rrf` (reciprocal rank fusion).
    pub fusion: String,
    /// The k constant of reciprocal rank fusion.
    pub rrf_k: f64,
    /// Weight of BM25 in weighted fusion (cosine gets 1 minus this).
    pub bm25_weight: f64,
    /// Candidates taken from each retriever before fusion (at least k).
    pub candidates: usize,
    /// Shares of the BM25 scores of the records just before it in the same
    /// session (the one before, then the one before that) that a record
    /// receives: a conversation turn is read with the turns it answers. An
    /// empty list, or zeros, turn this off.
    pub context_before: Vec<f64>,
    /// The same for the records just after it (the answer to a question).
    pub context_after: Vec<f64>,
    /// Share of its session's BM25 score (the session's records read as one
    /// document, the best session scaled to 1) that a record receives. 0 turns
    /// this off.
    pub session_weight: f64,
    /// A record said by, or about, a person or subject the query names (a
    /// speaker opening its text, or its `subject`) has its relevance
    /// multiplied by 1 plus this. 0 turns this off.
    pub entity_weight: f64,
    /// A result that matches no query word must be at least this similar
    /// (cosine) to the query; below it, a vector neighbour is noise.
    pub min_cosine: f64,
    /// In a context block with a query, an entry that matches no query word
    /// must be at least this similar: a prompt block wants precision, and the
    /// built-in embedder gives unrelated texts 0.3 to 0.45.
    pub context_min_cosine: f64,
    /// Half-life of the recency boost, in days.
    pub recency_half_life_days: f64,
    /// Share of the final score given to recency, importance and confidence
    /// (the rest is the fused relevance).
    pub recency_weight: f64,
    pub importance_weight: f64,
    pub confidence_weight: f64,
}

impl Default for RecallConfig {
    fn default() -> Self {
        RecallConfig {
            k: 10,
            mode: "hybrid".into(),
            fusion: "weighted".into(),
            rrf_k: 60.0,
            bm25_weight: 0.6,
            candidates: 100,
            context_before: vec![0.5, 0.25],
            context_after: vec![0.15],
            session_weight: 0.5,
            entity_weight: 0.5,
            min_cosine: 0.3,
            context_min_cosine: 0.6,
            recency_half_life_days: 30.0,
            recency_weight: 0.05,
            importance_weight: 0.05,
            confidence_weight: 0.05,
        }
    }
}

/// Working memory (per session).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct WorkingConfig {
    pub capacity: usize,
    pub pinned_slots: usize,
    /// `power`, `exponential` or `none`.
    pub decay: String,
    /// Rate of exponential decay per turn.
    pub decay_rate: f64,
    /// A session idle this long has its working memory evicted by `prune`.
    pub retention_hours: f64,
}

impl Default for WorkingConfig {
    fn default() -> Self {
        WorkingConfig {
            capacity: 7,
            pinned_slots: 2,
            decay: "power".into(),
            decay_rate: 0.1,
            retention_hours: 24.0,
        }
    }
}

/// When and how episodes become facts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct ConsolidateConfig {
    /// Unconsolidated episodes in a scope that trigger a run after capture.
    pub min_episodes: usize,
    /// Session turns between two automatic runs.
    pub min_turns: u64,
    /// Episodes that must repeat for a pattern to become a fact.
    pub pattern_min: usize,
    /// Similarity (cosine, else word overlap) for two episodes to be one pattern.
    pub similarity: f64,
}

impl Default for ConsolidateConfig {
    fn default() -> Self {
        ConsolidateConfig {
            min_episodes: 5,
            min_turns: 4,
            pattern_min: 3,
            similarity: 0.6,
        }
    }
}

/// What prune removes and keeps.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct PruneConfig {
    /// Semantic facts in a scope that trigger a run after capture.
    pub auto_facts: usize,
    /// Episodes older than this (days) with salience below `episode_min_salience` are archived.
    pub episode_max_age_days: f64,
    pub episode_min_salience: f64,
    /// Similarity for two facts of one subject to be duplicates.
    pub duplicate_similarity: f64,
}

impl Default for PruneConfig {
    fn default() -> Self {
        PruneConfig {
            auto_facts: 20,
            episode_max_age_days: 90.0,
            episode_min_salience: 0.4,
            duplicate_similarity: 0.85,
        }
    }
}

/// Episodic memory (per scope).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct EpisodicConfig {
    pub significance: f64,
    pub cap: usize,
}

impl Default for EpisodicConfig {
    fn default() -> Self {
        EpisodicConfig {
            significance: 0.6,
            cap: 200,
        }
    }
}

/// The longest a command may be told to wait for the vault lock: a day.
pub const MAX_LOCK_TIMEOUT_SECS: f64 = 86_400.0;

fn lock_timeout_in_range(secs: f64) -> bool {
    (0.0..=MAX_LOCK_TIMEOUT_SECS).contains(&secs)
}

impl Default for Config {
    fn default() -> Self {
        Config {
            embedder: EmbedderConfig {
                batch_size: 64,
                timeout_secs: 30.0,
                ..EmbedderConfig::default()
            },
            llm: LlmConfig::default(),
            recall: RecallConfig::default(),
            working: WorkingConfig::default(),
            episodic: EpisodicConfig::default(),
            consolidate: ConsolidateConfig::default(),
            prune: PruneConfig::default(),
            lock_timeout_secs: 10.0,
            git: GitConfig::default(),
            users: std::collections::BTreeMap::new(),
        }
    }
}

impl Config {
    /// The names `user` goes by, lowercase: the user's own name and those the
    /// config lists for it.
    pub fn names_of(&self, user: Option<&str>) -> Vec<String> {
        let Some(user) = user else {
            return Vec::new();
        };
        let mut names = vec![user.to_lowercase()];
        for name in self.users.get(user).into_iter().flatten() {
            let name = name.trim().to_lowercase();
            if !name.is_empty() && !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }

    /// Loads the vault's config file (missing: defaults), then applies `ENGRAM_*`
    /// environment variables.
    pub fn load(path: &Path) -> Result<Config> {
        let mut config = match std::fs::read_to_string(path) {
            Ok(text) if text.trim().is_empty() => Config::default(),
            Ok(text) => serde_yaml::from_str(&text).map_err(|e| Error::Config {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Config::default(),
            Err(e) => return Err(Error::io(path, e)),
        };
        if !lock_timeout_in_range(config.lock_timeout_secs) {
            return Err(Error::Config {
                path: path.to_path_buf(),
                message: format!(
                    "lock_timeout_secs: {} is not a number of seconds from 0 to \
                     {MAX_LOCK_TIMEOUT_SECS}",
                    config.lock_timeout_secs
                ),
            });
        }
        config.apply_env(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))?;
        Ok(config)
    }

    /// Applies environment overrides, read through `get` (testable without the
    /// process environment).
    pub fn apply_env(&mut self, get: impl Fn(&str) -> Option<String>) -> Result<()> {
        if let Some(v) = get("ENGRAM_EMBED_URL") {
            self.embedder.url = v;
            if matches!(self.embedder.provider.as_str(), "" | "none" | "builtin") {
                self.embedder.provider = "openai".into();
            }
        }
        if let Some(v) = get("ENGRAM_EMBED_MODEL") {
            self.embedder.model = v;
        }
        if let Some(v) = get("ENGRAM_EMBED_API_KEY") {
            self.embedder.api_key = v;
        }
        if let Some(v) = get("ENGRAM_LLM_URL") {
            self.llm.url = v;
        }
        if let Some(v) = get("ENGRAM_LLM_MODEL") {
            self.llm.model = v;
        }
        if let Some(v) = get("ENGRAM_LLM_API_KEY") {
            self.llm.api_key = v;
        }
        if let Some(v) = get("ENGRAM_LOCK_TIMEOUT") {
            self.lock_timeout_secs = v
                .parse()
                .ok()
                .filter(|s| lock_timeout_in_range(*s))
                .ok_or_else(|| {
                    Error::Input(format!(
                        "ENGRAM_LOCK_TIMEOUT='{v}': give a number of seconds from 0 to \
                         {MAX_LOCK_TIMEOUT_SECS}, e.g. 10"
                    ))
                })?;
        }
        Ok(())
    }

    /// The embedder provider in effect: `builtin`, `openai` or `none`.
    pub fn embedder_provider(&self) -> &str {
        match self.embedder.provider.as_str() {
            "" if !self.embedder.url.is_empty() => "openai",
            "" => "builtin",
            other => other,
        }
    }

    /// The text `engram init` writes: every setting with its default and a comment.
    pub fn default_file_text() -> String {
        let body = serde_yaml::to_string(&Config::default()).expect("config renders");
        format!(
            "# engram vault settings. Every key is optional; these are the defaults.\n\
             # Environment variables ENGRAM_EMBED_URL / _MODEL / _API_KEY, ENGRAM_LLM_URL /\n\
             # _MODEL / _API_KEY and ENGRAM_LOCK_TIMEOUT override this file.\n{body}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_render_and_parse_back() {
        let text = Config::default_file_text();
        let parsed: Config = serde_yaml::from_str(&text).unwrap();
        assert_eq!(parsed, Config::default());
    }

    #[test]
    fn git_auto_commit_is_off_unless_asked() {
        assert!(!Config::default().git.auto_commit);
        let c: Config = serde_yaml::from_str("git:\n  auto_commit: true\n").unwrap();
        assert!(c.git.auto_commit);
        assert!(Config::default_file_text().contains("auto_commit: false"));
    }

    #[test]
    fn env_overrides_the_file() {
        let mut c: Config =
            serde_yaml::from_str("embedder:\n  model: a\nrecall:\n  k: 3\n").unwrap();
        assert_eq!(c.recall.k, 3);
        assert_eq!(c.recall.mode, "hybrid", "missing keys keep defaults");
        assert_eq!(c.embedder_provider(), "builtin");
        c.apply_env(|k| match k {
            "ENGRAM_EMBED_URL" => Some("http://127.0.0.1:9/v1".into()),
            "ENGRAM_EMBED_MODEL" => Some("b".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.embedder.model, "b");
        assert_eq!(c.embedder_provider(), "openai");
    }

    #[test]
    fn bad_lock_timeout_is_a_clear_error() {
        for bad in ["soon", "inf", "1e20", "-5", "NaN", "86401"] {
            let mut c = Config::default();
            let e = c
                .apply_env(|k| (k == "ENGRAM_LOCK_TIMEOUT").then(|| bad.into()))
                .unwrap_err();
            assert!(e.to_string().contains("ENGRAM_LOCK_TIMEOUT"), "{bad}: {e}");
            assert!(e.is_usage(), "{bad}");
        }
        let mut c = Config::default();
        c.apply_env(|k| (k == "ENGRAM_LOCK_TIMEOUT").then(|| "0.5".into()))
            .unwrap();
        assert_eq!(c.lock_timeout_secs, 0.5);
    }
}

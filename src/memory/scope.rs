//! Scope: whose memory a record is (a user's, an agent's, or both). Capture,
//! reconciliation and maintenance work inside one scope at a time.

/// The scope a fact belongs to.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub user: Option<String>,
    pub agent: Option<String>,
}

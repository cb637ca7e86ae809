//! Scope: whose memory a record is (a user's, an agent's, or both). Capture,
//! reconciliation and maintenance work inside one scope at a time.

use crate::storage::index::{Filter, Validity};
use crate::storage::record::Kind;

/// The scope a fact belongs to.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub user: Option<String>,
    pub agent: Option<String>,
}

impl Scope {
    /// The index filter for this scope's records of these kinds (all kinds when
    /// empty) that count under `validity`.
    pub fn filter(&self, kinds: Vec<Kind>, validity: Validity) -> Filter {
        Filter {
            kinds,
            user: self.user.clone(),
            agent: self.agent.clone(),
            validity,
            ..Filter::default()
        }
    }
}

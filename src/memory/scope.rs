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
    /// empty) that count under `validity`. The scope is exact: a scope with no
    /// user reads the records that have no user, never everyone's.
    pub fn filter(&self, kinds: Vec<Kind>, validity: Validity) -> Filter {
        Filter {
            kinds,
            user: self.user.clone(),
            agent: self.agent.clone(),
            exact_scope: true,
            validity,
            ..Filter::default()
        }
    }

    /// The scope a record belongs to.
    pub fn of(user: Option<&str>, agent: Option<&str>) -> Scope {
        Scope {
            user: user.map(str::to_string),
            agent: agent.map(str::to_string),
        }
    }
}

//! Scope: whose memory a record is (a user's, an agent's, or both). Capture,
//! reconciliation and maintenance work inside one scope at a time.

use crate::storage::index::{Filter, Validity};
use crate::storage::record::Kind;

/// Which scopes a maintenance run covers; it works in each on its own.
#[derive(Debug, Clone, Default)]
pub enum Covers {
    /// Every scope some record of the vault belongs to.
    #[default]
    Every,
    /// This scope exactly (a capture's own: no user means the records with
    /// no user).
    Exact(Scope),
    /// Every scope of this user, of this agent, or of both: a flag left out
    /// matches any (`prune --user ana` covers ana's records with any agent).
    Matching {
        user: Option<String>,
        agent: Option<String>,
    },
}

impl Covers {
    /// What `--user` and `--agent` flags ask for: every scope without either.
    pub fn of_flags(user: Option<&str>, agent: Option<&str>) -> Covers {
        if user.is_none() && agent.is_none() {
            return Covers::Every;
        }
        Covers::Matching {
            user: user.map(str::to_string),
            agent: agent.map(str::to_string),
        }
    }

    /// Whether a scope is covered.
    pub fn covers(&self, scope: &Scope) -> bool {
        match self {
            Covers::Every => true,
            Covers::Exact(s) => s.user == scope.user && s.agent == scope.agent,
            Covers::Matching { user, agent } => {
                user.as_ref().is_none_or(|u| scope.user.as_ref() == Some(u))
                    && agent
                        .as_ref()
                        .is_none_or(|a| scope.agent.as_ref() == Some(a))
            }
        }
    }
}

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

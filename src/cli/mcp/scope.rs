//! Whose memories a server serves (`engram mcp --user U --agent A`), and the
//! checks that keep every tool call inside that scope.
//!
//! A call may narrow the scope (name the same user, add an agent when the
//! server fixed none) but never leave it: naming another user is refused, and
//! a record of another user is reported as missing, with the same message as a
//! record that does not exist, so that a call cannot learn what others keep.
//! A server started without a scope serves the whole vault, as the command
//! line does.

use crate::cli::args::FilterArgs;
use crate::cli::context::Context;
use crate::cli::output::message_of;
use crate::error::Error;

/// The user and agent a server was started for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServedScope {
    pub user: Option<String>,
    pub agent: Option<String>,
}

impl ServedScope {
    /// Checks the names given on the command line.
    pub fn new(user: Option<String>, agent: Option<String>) -> Result<ServedScope, Error> {
        for (flag, value) in [("--user", &user), ("--agent", &agent)] {
            if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                return Err(Error::Input(format!(
                    "engram mcp {flag}: give a name, or leave the flag out to serve every {}",
                    &flag[2..]
                )));
            }
        }
        Ok(ServedScope { user, agent })
    }

    /// "user ana, agent claude", or "the whole vault".
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [("user", &self.user), ("agent", &self.agent)]
            .into_iter()
            .filter_map(|(what, v)| v.as_ref().map(|v| format!("{what} {v}")))
            .collect();
        if parts.is_empty() {
            "the whole vault".into()
        } else {
            parts.join(", ")
        }
    }

    /// Fills in the server's user and agent, or refuses others.
    pub fn narrow(
        &self,
        user: &mut Option<String>,
        agent: &mut Option<String>,
    ) -> Result<(), String> {
        narrow_one("user", &self.user, user)?;
        narrow_one("agent", &self.agent, agent)
    }

    /// [`ServedScope::narrow`] for the filters of recall and list.
    pub fn narrow_filter(&self, filter: &mut FilterArgs) -> Result<(), String> {
        self.narrow(&mut filter.user, &mut filter.agent)
    }

    /// Whether a record of this user and agent is served.
    pub fn admits(&self, user: Option<&str>, agent: Option<&str>) -> bool {
        let fits = |served: &Option<String>, given: Option<&str>| {
            served.as_deref().is_none_or(|s| given == Some(s))
        };
        fits(&self.user, user) && fits(&self.agent, agent)
    }

    /// Refuses a record outside the scope (show, forget) as if it did not
    /// exist. Without a scope, the command's own lookup decides.
    pub fn check_record(&self, ctx: &Context, id: &str) -> Result<(), String> {
        if self.user.is_none() && self.agent.is_none() {
            return Ok(());
        }
        let missing = || {
            format!(
                "no record with id or path '{id}' among the memories this server serves \
                 ({}); `list` shows their ids",
                self.describe()
            )
        };
        let store = ctx.open_synced().map_err(|e| message_of(&e))?;
        match store.resolve(id) {
            Ok(doc) if self.admits(doc.user.as_deref(), doc.agent.as_deref()) => Ok(()),
            Ok(_) | Err(Error::NotFound(_)) => Err(missing()),
            // The candidates may be other users' records: they are not named.
            Err(Error::Ambiguous { .. }) => Err(format!(
                "'{id}' matches several records; give more of the id, or the path"
            )),
            Err(e) => Err(e.to_string()),
        }
    }
}

fn narrow_one(
    what: &str,
    served: &Option<String>,
    given: &mut Option<String>,
) -> Result<(), String> {
    if given.as_deref().is_some_and(|g| g.trim().is_empty()) {
        return Err(format!("`{what}` is empty: give a name, or leave it out"));
    }
    match (served, given.as_deref()) {
        (Some(s), Some(g)) if g != s => Err(format!(
            "this server serves {what} '{s}' only (engram mcp --{what} {s}): leave `{what}` \
             out, or start a server for '{g}'"
        )),
        (Some(s), None) => {
            *given = Some(s.clone());
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(user: Option<&str>, agent: Option<&str>) -> ServedScope {
        ServedScope::new(user.map(Into::into), agent.map(Into::into)).unwrap()
    }

    #[test]
    fn a_call_inherits_the_servers_scope() {
        let scope = served(Some("ana"), None);
        let (mut user, mut agent) = (None, Some("claude".to_string()));
        scope.narrow(&mut user, &mut agent).unwrap();
        assert_eq!(user.as_deref(), Some("ana"));
        assert_eq!(agent.as_deref(), Some("claude"));
    }

    #[test]
    fn a_call_cannot_reach_another_user() {
        let scope = served(Some("ana"), Some("claude"));
        for (user, agent) in [
            (Some("bob"), None),
            (Some("../ana"), None),
            (Some("ana"), Some("cursor")),
            (Some(""), None),
        ] {
            let mut user = user.map(String::from);
            let mut agent = agent.map(String::from);
            assert!(scope.narrow(&mut user, &mut agent).is_err(), "{user:?}");
        }
        assert!(!scope.admits(Some("bob"), Some("claude")));
        assert!(!scope.admits(None, Some("claude")));
        assert!(scope.admits(Some("ana"), Some("claude")));
    }

    #[test]
    fn without_a_scope_every_record_is_served() {
        let scope = served(None, None);
        assert!(scope.admits(None, None) && scope.admits(Some("bob"), Some("x")));
        let (mut user, mut agent) = (Some("bob".to_string()), None);
        scope.narrow(&mut user, &mut agent).unwrap();
        assert_eq!(user.as_deref(), Some("bob"));
    }

    #[test]
    fn an_empty_name_on_the_command_line_is_refused() {
        assert!(ServedScope::new(Some(" ".into()), None).is_err());
    }
}

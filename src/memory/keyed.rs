//! Keyed facts (`engram set`, `get`, `unset`): a value under a name, one
//! current value per key and scope, with history.
//!
//! A keyed fact is an ordinary semantic record with `key: KEY` and the value
//! as its body, under `semantic/keys/`. Setting a key again supersedes the old
//! value the way an UPDATE does (`status: superseded`, `valid_to`,
//! `superseded_by`; the new record `supersedes` it), so `--as-of` reads what a
//! key held at any time and [`history`] lists every value it had. `unset`
//! invalidates the current value; a `--ttl` sets `expires`.
//!
//! The scope is exact: user, agent and session as given, where an absent one
//! means "none", never "any". Keys are found through the index's `key` term.

use chrono::Duration;

use crate::clock::{self, Timestamp};
use crate::error::{Error, Result};
use crate::memory::scope::Scope;
use crate::memory::truth::{self, Ending};
use crate::storage::index::{Filter, IndexedDoc, Validity};
use crate::storage::naming;
use crate::storage::record::{Kind, Record};
use crate::storage::store::Store;
use crate::storage::vault::VaultLock;
use crate::storage::writer::{self, Mutation};

/// The subject (and folder under `semantic/`) of keyed facts.
pub const SUBJECT: &str = "keys";

/// The longest key, in characters.
const MAX_KEY_CHARS: usize = 200;

/// Whose value a key holds: one exact user, agent and session (each may be none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyScope {
    pub user: Option<String>,
    pub agent: Option<String>,
    pub session: Option<String>,
}

impl KeyScope {
    /// The scope in words, for messages: "user alice, session s1", or "the
    /// vault-wide scope (no user, agent or session)".
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            ("user", &self.user),
            ("agent", &self.agent),
            ("session", &self.session),
        ]
        .iter()
        .filter_map(|(name, v)| v.as_ref().map(|v| format!("{name} {v}")))
        .collect();
        if parts.is_empty() {
            "the scope with no user, agent or session".into()
        } else {
            parts.join(", ")
        }
    }

    /// The scope a keyed record belongs to.
    pub fn of_doc(doc: &IndexedDoc) -> KeyScope {
        KeyScope {
            user: doc.user.clone(),
            agent: doc.agent.clone(),
            session: doc.session.clone(),
        }
    }

    fn admits(&self, doc: &IndexedDoc) -> bool {
        doc.user == self.user && doc.agent == self.agent && doc.session == self.session
    }
}

/// Checks a key: letters, digits and `. _ - /`, at most 200 characters.
pub fn check_key(key: &str) -> Result<()> {
    let bad = |why: String| {
        Err(Error::Input(format!(
            "key '{key}' {why}; a key is letters, digits and . _ - / (like deploy.last_sha or ci/build-number)"
        )))
    };
    if key.is_empty() {
        return bad("is empty".into());
    }
    if key.chars().count() > MAX_KEY_CHARS {
        return bad(format!("is longer than {MAX_KEY_CHARS} characters"));
    }
    if let Some(c) = key
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '/')))
    {
        return bad(format!("has the character {c:?}"));
    }
    Ok(())
}

/// Every record ever written for `key` in the scope, oldest first.
pub fn history(store: &Store, key: &str, scope: &KeyScope) -> Result<Vec<IndexedDoc>> {
    let docs = values_at(store, key, scope, Validity::Any)?;
    // Values set within one second are ordered by the `supersedes` chain.
    let depth = |doc: &IndexedDoc| {
        let mut n = 0;
        let mut at = doc.supersedes.clone();
        while let Some(link) = at.filter(|_| n < docs.len()) {
            n += 1;
            at = docs
                .iter()
                .find(|d| naming::wikilink(&d.path) == link)
                .and_then(|d| d.supersedes.clone());
        }
        n
    };
    let mut ordered: Vec<(usize, IndexedDoc)> =
        docs.iter().map(|d| (depth(d), d.clone())).collect();
    ordered.sort_by(|a, b| a.1.created.cmp(&b.1.created).then(a.0.cmp(&b.0)));
    Ok(ordered.into_iter().map(|(_, d)| d).collect())
}

/// The value `key` holds in the scope under `validity` (now, or `--as-of`):
/// the newest record valid then.
pub fn value_at(
    store: &Store,
    key: &str,
    scope: &KeyScope,
    validity: Validity,
) -> Result<Option<IndexedDoc>> {
    Ok(values_at(store, key, scope, validity)?.into_iter().next())
}

/// Every record of `key` in the scope valid under `validity`, newest first:
/// one, unless a person copied a key's file by hand.
pub fn values_at(
    store: &Store,
    key: &str,
    scope: &KeyScope,
    validity: Validity,
) -> Result<Vec<IndexedDoc>> {
    let filter = Filter {
        key: Some(key.to_string()),
        ..Scope::of(scope.user.as_deref(), scope.agent.as_deref())
            .filter(vec![Kind::Semantic], validity)
    };
    let mut docs: Vec<IndexedDoc> = store
        .index()
        .fetch_newest(&filter, usize::MAX)?
        .into_iter()
        .filter(|d| scope.admits(d))
        .collect();
    docs.sort_by(|a, b| b.created.cmp(&a.created).then(b.id.cmp(&a.id)));
    Ok(docs)
}

/// Why a key has no current value, in words for the error a `get` gives.
pub fn why_missing(
    store: &Store,
    key: &str,
    scope: &KeyScope,
    now: Timestamp,
    as_of: Option<Timestamp>,
) -> Result<String> {
    let head = format!("key '{key}' has no value in {}", scope.describe());
    let past = history(store, key, scope)?;
    if let Some(at) = as_of {
        return Ok(match past.first() {
            Some(first) if first.created > at => format!(
                "{head} as of {}: it was first set at {}",
                clock::format_time(&at),
                first.created_text()
            ),
            _ => format!("{head} as of {}", clock::format_time(&at)),
        });
    }
    let Some(last) = past.last() else {
        return Ok(format!("{head}: it was never set"));
    };
    let when = |t: Option<Timestamp>| t.map(|t| clock::format_time(&t)).unwrap_or_default();
    Ok(match last.status.as_str() {
        "invalidated" => format!("{head}: it was unset at {}", when(last.valid_to)),
        _ if last.expires.is_some_and(|e| e <= now) => {
            format!("{head}: its value expired at {}", when(last.expires))
        }
        status => format!("{head}: its latest value is {status}"),
    })
}

/// What [`set`] did: the new value's mutation (`ADD`, `UPDATE`, or `NOOP`
/// when the key already held this value with no expiry asked for).
#[derive(Debug, Clone)]
pub struct SetOutcome {
    pub mutation: Mutation,
    /// When the key took the value it holds now.
    pub updated: Timestamp,
    /// The value superseded, if any.
    pub superseded: Vec<Mutation>,
}

/// Sets `key` to `value` in the scope: a new semantic record, superseding the
/// current one. The caller holds the lock and has synced the store.
pub fn set(
    store: &mut Store,
    _lock: &VaultLock,
    key: &str,
    value: &str,
    scope: &KeyScope,
    ttl: Option<Duration>,
    now: Timestamp,
) -> Result<SetOutcome> {
    check_key(key)?;
    let value = value.trim();
    if value.is_empty() {
        return Err(Error::Input(format!(
            "the value for '{key}' is empty; give a value, or `engram unset {key}` to remove it"
        )));
    }
    let all = values_at(store, key, scope, Validity::CurrentAt(now))?;
    let current = all.first().cloned();
    if let Some(doc) = &current
        && all.len() == 1
        && doc.content == value
        && ttl.is_none()
        && doc.expires.is_none()
    {
        return Ok(SetOutcome {
            mutation: Mutation::of_doc("NOOP", doc, format!("'{key}' already holds this value")),
            updated: doc.updated.unwrap_or(doc.created),
            superseded: Vec::new(),
        });
    }
    let mut generator = ulid::Generator::new();
    let mut record = Record::new(
        naming::new_id(&mut generator, now),
        Kind::Semantic,
        now,
        value,
    );
    record.key = Some(key.to_string());
    record.subject = Some(SUBJECT.into());
    record.category = Some("attribute".into());
    record.user = scope.user.clone();
    record.agent = scope.agent.clone();
    record.session = scope.session.clone();
    record.valid_from = Some(now);
    record.updated = Some(now);
    record.durability = Some("persistent".into());
    if let Some(ttl) = ttl {
        record.expires = Some(clock::shift(now, ttl).map_err(Error::Input)?);
    }
    let mut changes = Vec::new();
    if let Some(doc) = &current {
        record.supersedes = Some(naming::wikilink(&doc.path));
    }
    let reason = match &current {
        Some(_) => format!("engram set {key}: a new value"),
        None => format!("engram set {key}"),
    };
    let mut mutation = writer::write_new(store, record, false, &mut changes, Some(reason))?;
    let mut superseded = Vec::new();
    if let Some(doc) = &current {
        superseded = truth::retire(
            store,
            &all,
            &Ending::Superseded {
                by: naming::wikilink(&mutation.path),
            },
            &format!("engram set {key}: replaced by a new value"),
            now,
            false,
            &mut changes,
        )?;
        mutation.op = "UPDATE";
        mutation.previous = Some(serde_json::json!({
            "id": doc.id,
            "content": doc.content,
            "path": doc.path,
        }));
    }
    store.apply(changes, false)?;
    Ok(SetOutcome {
        mutation,
        updated: now,
        superseded,
    })
}

/// Invalidates the current value of `key` in the scope (the newest first, then
/// any copy a person made by hand); empty when it has none. The caller holds
/// the lock and has synced the store.
pub fn unset(
    store: &mut Store,
    _lock: &VaultLock,
    key: &str,
    scope: &KeyScope,
    now: Timestamp,
) -> Result<Vec<Mutation>> {
    check_key(key)?;
    let all = values_at(store, key, scope, Validity::CurrentAt(now))?;
    if all.is_empty() {
        return Ok(Vec::new());
    }
    let mut changes = Vec::new();
    let mut ended = truth::retire(
        store,
        &all,
        &Ending::Invalidated {
            by: format!("engram unset {key}"),
        },
        &format!("engram unset {key}"),
        now,
        false,
        &mut changes,
    )?;
    store.apply(changes, false)?;
    for m in &mut ended {
        m.op = "DELETE";
    }
    Ok(ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_letters_digits_and_four_marks() {
        for good in ["a", "deploy.last_sha", "ci/build-number", "été.2", "K_9"] {
            assert!(check_key(good).is_ok(), "{good}");
        }
        for bad in ["", "a b", "a:b", "x\n", "$HOME", "a\\b"] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
        assert!(check_key(&"k".repeat(201)).is_err());
    }

    #[test]
    fn a_scope_is_described_by_what_it_names() {
        let scope = KeyScope {
            user: Some("ana".into()),
            session: Some("s1".into()),
            ..KeyScope::default()
        };
        assert_eq!(scope.describe(), "user ana, session s1");
        assert!(KeyScope::default().describe().contains("no user"));
    }
}

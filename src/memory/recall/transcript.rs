//! Transcripts (`recall --session S --format transcript`): a session's
//! messages, oldest first, to resume a conversation.
//!
//! A message is a current record of the session with a `role` (written by
//! `capture --input chat --raw`, one per message, each with the session's
//! next `turn`). When `consolidate --session S` has summarised the older
//! messages, they are archived and the summary leads the transcript as a
//! `system` message, so what comes back is the summary and the turns kept.

use crate::error::{Error, Result};
use crate::storage::index::{Filter, IndexedDoc};
use crate::storage::record::SUMMARY_TAG;
use crate::storage::store::Store;

/// One message as the OpenAI chat API takes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// The session's messages under `filter` (whose session must be set), oldest
/// first, with the latest summary first; only the last `last` when given.
pub fn transcript(store: &Store, filter: &Filter, last: Option<usize>) -> Result<Vec<Message>> {
    if filter.session.is_none() {
        return Err(Error::Input(
            "--format transcript prints one session: add --session ID".into(),
        ));
    }
    let docs = store.index().fetch_newest(filter, usize::MAX)?;
    let summary = docs
        .iter()
        .filter(|d| d.role.is_none() && d.tags.iter().any(|t| t == SUMMARY_TAG))
        .max_by_key(|d| (d.created, d.turn))
        .cloned();
    let mut messages: Vec<IndexedDoc> = docs.into_iter().filter(|d| d.role.is_some()).collect();
    messages.sort_by(|a, b| (a.turn, a.created, &a.id).cmp(&(b.turn, b.created, &b.id)));
    let mut out: Vec<Message> = summary
        .into_iter()
        .map(|d| Message {
            role: "system".into(),
            content: d.content,
        })
        .chain(messages.into_iter().map(|d| Message {
            role: d.role.unwrap_or_default(),
            content: d.verbatim.unwrap_or(d.content),
        }))
        .collect();
    if let Some(n) = last {
        out.drain(..out.len().saturating_sub(n));
    }
    Ok(out)
}

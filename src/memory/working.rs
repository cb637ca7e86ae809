//! Working memory: a session's short list of what matters now.
//!
//! Salience = importance × decay(turns elapsed since the entry came in); decay is
//! power-law `(1 + elapsed)^-0.5` by default, or `exponential` `exp(-rate ×
//! elapsed)`, or `none` (SPEC: Tiers). A session holds at most `capacity`
//! active entries; when it overflows, the lowest-salience entry that is not
//! pinned (pinned entries keep at most `pinned_slots` places) is evicted: its
//! file stays, archived. Turns are counted per session: each capture is one.

use crate::config::WorkingConfig;
use crate::storage::index::IndexedDoc;

/// How much of an entry's importance is left after `elapsed` turns.
pub fn decay(config: &WorkingConfig, elapsed: u64) -> f64 {
    let e = elapsed as f64;
    match config.decay.as_str() {
        "exponential" => (-config.decay_rate * e).exp(),
        "none" => 1.0,
        _ => (1.0 + e).powf(-0.5),
    }
}

/// The salience of a working entry at the session's current turn.
pub fn salience(config: &WorkingConfig, doc: &IndexedDoc, current_turn: u64) -> f64 {
    let elapsed = current_turn.saturating_sub(doc.turn.unwrap_or(current_turn));
    doc.importance.unwrap_or(0.5) * decay(config, elapsed)
}

/// Which entries to evict so that at most `capacity` stay: lowest salience
/// first, never a pinned entry within the pinned slots. Returns indexes into
/// `entries`.
pub fn evictions(config: &WorkingConfig, entries: &[IndexedDoc], current_turn: u64) -> Vec<usize> {
    if entries.len() <= config.capacity {
        return Vec::new();
    }
    let mut pinned_kept = 0;
    let mut protected = vec![false; entries.len()];
    // The most salient pinned entries hold the pinned slots.
    let mut pinned: Vec<usize> = (0..entries.len()).filter(|i| entries[*i].pinned).collect();
    pinned.sort_by(|a, b| {
        salience(config, &entries[*b], current_turn).total_cmp(&salience(
            config,
            &entries[*a],
            current_turn,
        ))
    });
    for i in pinned {
        if pinned_kept < config.pinned_slots {
            protected[i] = true;
            pinned_kept += 1;
        }
    }
    let mut candidates: Vec<usize> = (0..entries.len()).filter(|i| !protected[*i]).collect();
    // Lowest salience first; among equals, the oldest turn first.
    candidates.sort_by(|a, b| {
        salience(config, &entries[*a], current_turn)
            .total_cmp(&salience(config, &entries[*b], current_turn))
            .then(entries[*a].turn.cmp(&entries[*b].turn))
            .then(entries[*a].created.cmp(&entries[*b].created))
    });
    candidates.truncate(entries.len() - config.capacity);
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(importance: f64, turn: u64, pinned: bool) -> IndexedDoc {
        IndexedDoc {
            path: format!("working/s/{turn}.md"),
            id: format!("id{turn}"),
            kind: "working".into(),
            status: "active".into(),
            created: chrono::DateTime::from_timestamp(turn as i64, 0).unwrap(),
            session: Some("s".into()),
            importance: Some(importance),
            turn: Some(turn),
            pinned,
            ..IndexedDoc::default()
        }
    }

    #[test]
    fn power_decay_is_the_default() {
        let c = WorkingConfig::default();
        assert!((decay(&c, 0) - 1.0).abs() < 1e-12);
        assert!((decay(&c, 3) - 0.5).abs() < 1e-12);
        let e = WorkingConfig {
            decay: "exponential".into(),
            decay_rate: 0.5,
            ..WorkingConfig::default()
        };
        assert!((decay(&e, 2) - (-1.0f64).exp()).abs() < 1e-12);
        let n = WorkingConfig {
            decay: "none".into(),
            ..WorkingConfig::default()
        };
        assert_eq!(decay(&n, 100), 1.0);
    }

    #[test]
    fn salience_fades_with_turns() {
        let c = WorkingConfig::default();
        let e = entry(0.8, 1, false);
        assert!((salience(&c, &e, 1) - 0.8).abs() < 1e-12);
        assert!((salience(&c, &e, 4) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn overflow_evicts_the_least_salient_unpinned() {
        let c = WorkingConfig {
            capacity: 3,
            pinned_slots: 1,
            ..WorkingConfig::default()
        };
        let entries = vec![
            entry(0.9, 1, true), // old but pinned
            entry(0.9, 2, true), // pinned, but only one pinned slot
            entry(0.5, 5, false),
            entry(0.9, 6, false),
            entry(0.2, 6, false), // new but unimportant
        ];
        let out = evictions(&c, &entries, 6);
        assert_eq!(out.len(), 2);
        assert!(out.contains(&4), "{out:?}");
        assert!(
            !out.contains(&1) || !out.contains(&0),
            "one pinned entry keeps its slot"
        );
        assert!(!out.contains(&3));
    }

    #[test]
    fn within_capacity_nothing_is_evicted() {
        let c = WorkingConfig::default();
        let entries: Vec<IndexedDoc> = (0..7).map(|t| entry(0.1, t, false)).collect();
        assert!(evictions(&c, &entries, 7).is_empty());
    }
}

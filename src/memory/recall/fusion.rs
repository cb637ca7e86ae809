//! Fusion of ranked lists from several retrievers into one score per item.
//!
//! Pure functions over (item, score) lists, best first. Reciprocal rank fusion
//! uses ranks only; weighted fusion min-max normalises each list's scores into
//! 0..1 and mixes them, so a retriever that is confident counts for more.

use std::collections::HashMap;
use std::hash::Hash;

/// Reciprocal rank fusion: `sum over lists of 1 / (k + rank)`, rank from 1.
pub fn reciprocal_rank<K: Copy + Eq + Hash>(lists: &[&[(K, f32)]], k: f64) -> HashMap<K, f64> {
    let mut fused = HashMap::new();
    for list in lists {
        for (rank, (key, _)) in list.iter().enumerate() {
            *fused.entry(*key).or_insert(0.0) += 1.0 / (k + rank as f64 + 1.0);
        }
    }
    fused
}

/// Weighted score fusion: `weights[i] × minmax(list i)`, summed; an item absent
/// from a list gets 0 from it.
pub fn weighted<K: Copy + Eq + Hash>(lists: &[&[(K, f32)]], weights: &[f64]) -> HashMap<K, f64> {
    let mut fused = HashMap::new();
    for (list, weight) in lists.iter().zip(weights) {
        let (lo, hi) = list
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, s)| {
                (lo.min(f64::from(*s)), hi.max(f64::from(*s)))
            });
        for (key, score) in *list {
            let norm = if hi > lo {
                (f64::from(*score) - lo) / (hi - lo)
            } else {
                1.0
            };
            *fused.entry(*key).or_insert(0.0) += weight * norm;
        }
    }
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement() {
        let a = [(1, 9.0), (2, 5.0), (3, 1.0)];
        let b = [(3, 0.9), (2, 0.8)];
        let f = reciprocal_rank(&[&a, &b], 60.0);
        assert!(f[&2] > f[&1], "in both lists beats first in one");
        assert!((f[&1] - 1.0 / 61.0).abs() < 1e-12);
        assert!((f[&2] - (1.0 / 62.0 + 1.0 / 62.0)).abs() < 1e-12);
    }

    #[test]
    fn weighted_normalises_each_list() {
        let bm25 = [(1, 20.0), (2, 10.0)];
        let cos = [(2, 0.9), (3, 0.5)];
        let f = weighted(&[&bm25, &cos], &[0.5, 0.5]);
        assert!((f[&1] - 0.5).abs() < 1e-9);
        assert!((f[&2] - 0.5).abs() < 1e-9);
        assert!(f[&3].abs() < 1e-9);
        // A single item normalises to 1.
        let one = weighted(&[&[(7, 3.0)][..]], &[1.0]);
        assert!((one[&7] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn empty_lists_fuse_to_nothing() {
        let empty: [(u8, f32); 0] = [];
        assert!(reciprocal_rank(&[&empty], 60.0).is_empty());
        assert!(weighted(&[&empty], &[1.0]).is_empty());
    }
}

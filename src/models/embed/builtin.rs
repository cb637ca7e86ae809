//! The built-in embedder: the distilled static table ([`crate::models::embed::table`])
//! with most of its common component removed. Offline, no download, the default.

use crate::error::Result;
use crate::models::embed::embedder::{Embedder, normalize};
use crate::models::embed::table;

/// The built-in embedder (no network, no download): the static table's mean
/// embedding with most of the common component removed. Averaged static vectors share
/// one dominant direction, so function words ("what does the user …") pull
/// every sentence together; projecting that direction out (the second half of
/// SIF, Arora et al. 2017) lets content words decide. Measured: "what does the
/// user eat?" ranks "Is vegetarian." first among unrelated facts only with it.
pub struct Builtin;

/// The common direction: the normalised mean of the table's word rows, as
/// stored in `assets/embedder/common.f32` (a unit test recomputes it).
fn common_direction() -> &'static [f32] {
    static COMMON: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();
    COMMON.get_or_init(|| {
        include_bytes!("../../../assets/embedder/common.f32")
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    })
}

/// Recomputes the common direction from the table: the mean of the embeddings
/// of every whole-word vocabulary entry (no `[special]`, no `##piece`).
pub fn common_direction_from_table() -> Vec<f32> {
    let vocab = include_str!("../../../assets/embedder/vocab.txt");
    let mut sum = vec![0f32; table::BUILTIN_DIM];
    for token in vocab
        .lines()
        .filter(|t| !t.starts_with('[') && !t.starts_with("##"))
    {
        for (s, x) in sum.iter_mut().zip(table::embed(token)) {
            *s += x;
        }
    }
    normalize(&mut sum);
    sum
}

/// How much of the common component is removed. Measured on LoCoMo turns and on
/// short facts: full removal (1.0) ranks short facts right but costs long
/// conversational turns (hybrid R@5 0.590 → 0.567); 0.5 is the reverse; 0.6
/// keeps both (hybrid R@5 0.582, R@10 0.669, and the facts test below).
const COMMON_REMOVAL: f32 = 0.6;

/// The built-in embedding of one text.
pub fn builtin_embedding(text: &str) -> Vec<f32> {
    let mut v = table::embed(text);
    let common = common_direction();
    let projection: f32 = COMMON_REMOVAL * v.iter().zip(common).map(|(a, b)| a * b).sum::<f32>();
    v.iter_mut()
        .zip(common)
        .for_each(|(a, b)| *a -= projection * b);
    normalize(&mut v);
    v
}

impl Embedder for Builtin {
    fn name(&self) -> String {
        format!("{}-ccr0.6", table::BUILTIN_EMBEDDER_NAME)
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| builtin_embedding(t)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_common_direction_is_the_tables() {
        let fresh = common_direction_from_table();
        let stored = common_direction();
        assert_eq!(fresh.len(), stored.len());
        for (a, b) in fresh.iter().zip(stored) {
            assert!(
                (a - b).abs() < 1e-5,
                "{a} vs {b}: regenerate assets/embedder/common.f32"
            );
        }
    }

    #[test]
    fn content_words_decide_after_common_component_removal() {
        let facts = [
            "Is vegetarian.",
            "Works at Stripe as an SRE.",
            "Has a dog named Rex.",
            "Lives in Lisbon.",
        ];
        let best = |query: &str| {
            let q = builtin_embedding(query);
            facts
                .iter()
                .max_by(|a, b| {
                    let dot = |t: &str| {
                        builtin_embedding(t)
                            .iter()
                            .zip(&q)
                            .map(|(x, y)| x * y)
                            .sum::<f32>()
                    };
                    dot(a).total_cmp(&dot(b))
                })
                .copied()
                .unwrap()
        };
        assert_eq!(best("what does the user eat?"), "Is vegetarian.");
        assert_eq!(best("what food does she like"), "Is vegetarian.");
        assert_eq!(
            best("where does the user work?"),
            "Works at Stripe as an SRE."
        );
        assert_eq!(best("what pets?"), "Has a dog named Rex.");
        assert_eq!(best("where does he live?"), "Lives in Lisbon.");
    }

    #[test]
    fn builtin_vectors_are_unit_length() {
        let v = builtin_embedding("Went hiking in the Dolomites");
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
    }
}

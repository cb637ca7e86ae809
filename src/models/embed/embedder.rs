//! The seam: what every embedder is, and the unit length its vectors have.

use crate::error::Result;

/// Something that embeds texts.
pub trait Embedder: Send + Sync {
    /// A name that identifies the model; a vector file made by another name is
    /// re-embedded.
    fn name(&self) -> String;

    /// One L2-normalised vector per text, in order.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>>;
}

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

//! Maintenance: consolidate turns repeated episodes into facts, prune retires
//! noise. Both plan first (`{"actions": [...]}`, see [`plan`]), take a dry
//! run, and write through [`crate::storage::writer`].

pub mod consolidate;
pub mod pattern;
pub mod plan;
pub mod prune;

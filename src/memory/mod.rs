//! The memory use cases: what engram does with records, above the files and
//! the models that read text.
//!
//! - [`capture`]: text becomes records (observe → reflect → route → tick);
//! - [`reconcile`]: what a new fact does to what is known (ADD / UPDATE /
//!   DELETE / NOOP), shared by capture and consolidate;
//! - [`recall`]: hybrid search and ranking, with [`recall::fusion`];
//! - [`maintain`]: consolidate (episodes become facts) and prune (noise goes);
//! - [`forget`]: one record invalidated or deleted;
//! - [`keyed`]: keyed facts (`set`, `get`, `unset`), one value per key and scope;
//! - [`outcome`]: how a procedure's runs went;
//! - [`restore`]: one ended record made active again;
//! - [`working`]: working memory's salience, decay and eviction;
//! - [`scope`]: whose memory a record is;
//! - [`truth`]: one truth per statement: the copies of a statement in other
//!   tiers, and the rival values of its attribute, end with it.
//!
//! Every record is written through [`crate::storage::writer`].

pub mod capture;
pub mod forget;
pub mod keyed;
pub mod maintain;
pub mod outcome;
pub mod recall;
pub mod reconcile;
pub mod restore;
pub mod scope;
pub mod truth;
pub mod working;

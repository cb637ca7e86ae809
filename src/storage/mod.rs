//! Storage: the markdown files are the truth; everything else here is derived
//! from them and can be rebuilt.
//!
//! - [`record`]: the file format (frontmatter + body) and lifecycle
//!   transitions; knows nothing of paths;
//! - [`naming`]: ids, short ids, slugs, where a record's file goes;
//! - [`vault`]: the folder, its lock, atomic writes that never clobber;
//! - [`index`]: the tantivy index (every field in one schema) and filters;
//! - [`conversation`]: sessions as documents, turn order and speakers, read
//!   from the index for recall;
//! - [`vectors`]: the sidecar vector file;
//! - [`sync`]: the stat-then-hash diff of the folder against the index, and
//!   the fingerprint that makes "nothing changed" cheap;
//! - [`feed`]: what a running watcher tells other commands changed;
//! - [`store`]: a vault with its index and vectors kept in step;
//! - [`writer`]: the one way records are created, rewritten and deleted;
//! - [`git`], [`watch`], [`doctor`]: auto-commit, live sync, checks.

pub mod conversation;
pub mod doctor;
pub mod feed;
pub mod git;
pub mod index;
pub mod index_dir;
pub mod naming;
pub mod record;
pub mod store;
pub mod sync;
pub mod vault;
pub mod vectors;
pub mod watch;
pub mod writer;

//! Typed errors of the library. Every failure a caller may want to tell apart is a
//! variant here; `cli` is the one place that turns them into messages and exit codes.

use std::path::PathBuf;

/// The library's error type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The vault folder does not exist or is not usable.
    #[error("no vault at {path}: {reason}")]
    VaultNotFound { path: PathBuf, reason: String },

    /// Another engram process holds the vault lock for longer than we wait.
    #[error(
        "the vault {path} is locked by another engram process (waited {waited_ms} ms); \
         retry, or raise ENGRAM_LOCK_TIMEOUT (seconds); if no engram process is running, \
         the lock is released by the OS and this should not persist"
    )]
    Locked { path: PathBuf, waited_ms: u64 },

    /// The vault is readable but this user may not write to it; only commands
    /// that write (or must update the index) need that.
    #[error(
        "the vault {path} is read-only for this user; reading works, but this command \
         writes: run it as the vault's owner, or give write access to the folder"
    )]
    ReadOnly { path: PathBuf },

    /// A record file could not be parsed.
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },

    /// A file changed on disk between our read and our write.
    #[error(
        "{path} changed on disk since engram read it; nothing was written. \
         Run the command again to act on the new content"
    )]
    ChangedOnDisk { path: PathBuf },

    /// Input given by the user is invalid; the message names the fix.
    #[error("{0}")]
    Input(String),

    /// No record matches the id given.
    #[error("no record with id or path '{0}'; `engram list` shows the ids")]
    NotFound(String),

    /// What was asked for has no current value (a key never set, unset or
    /// expired); the message says which.
    #[error("{0}")]
    Missing(String),

    /// More than one record matches an id prefix, a short id or a note name.
    #[error("'{prefix}' matches several records: {candidates}; give more of the id, or the path")]
    Ambiguous { prefix: String, candidates: String },

    /// A model endpoint (embeddings) failed.
    #[error("model endpoint {url}: {message}")]
    Model { url: String, message: String },

    /// Filesystem failure, with the path it concerns.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The derived index failed; `engram reindex` rebuilds it.
    #[error("index error: {0}; `engram reindex` rebuilds the index from the files")]
    Index(String),

    /// The config file is invalid.
    #[error("{path}: {message}; fix the file or delete it to get the defaults")]
    Config { path: PathBuf, message: String },
}

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Whether this is a vault problem (exit code 3 in the CLI).
    pub fn is_vault_problem(&self) -> bool {
        matches!(
            self,
            Error::VaultNotFound { .. }
                | Error::Locked { .. }
                | Error::ReadOnly { .. }
                | Error::Config { .. }
        )
    }

    /// Whether this is bad input from the user (exit code 2 in the CLI).
    pub fn is_usage(&self) -> bool {
        matches!(self, Error::Input(_))
    }
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Index(e.to_string())
    }
}

/// Result with the library's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

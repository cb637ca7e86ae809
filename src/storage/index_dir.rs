//! The index folder as tantivy sees it: tantivy's memory-mapped directory, with
//! one difference. tantivy takes a lock file (`.tantivy-meta.lock`) even to
//! read, which a user with read-only access to the vault cannot create; here a
//! reader that may not create it reads without it. Nobody can write through
//! such a directory anyway, so the lock has nothing to guard against from this
//! process (a writer elsewhere replaces `meta.json` atomically).

use std::io;
use std::path::Path;
use std::sync::Arc;

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, META_LOCK, MmapDirectory, WatchCallback,
    WatchHandle, WritePtr,
};

/// tantivy's directory for the index folder (see the module documentation).
#[derive(Debug, Clone)]
pub struct IndexDir {
    inner: MmapDirectory,
}

impl IndexDir {
    pub fn open(dir: &Path) -> Result<IndexDir, OpenDirectoryError> {
        Ok(IndexDir {
            inner: MmapDirectory::open(dir)?,
        })
    }
}

/// Whether an I/O error means "you may not write here".
fn is_denied(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
    )
}

impl Directory for IndexDir {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.inner.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        match self.inner.acquire_lock(lock) {
            Err(LockError::IoError(e)) if lock.filepath == META_LOCK.filepath && is_denied(&e) => {
                Ok(DirectoryLock::from(Box::new(())))
            }
            other => other,
        }
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

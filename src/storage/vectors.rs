//! The sidecar vector file: one embedding per record, memory-mapped, searched by
//! brute-force cosine.
//!
//! Layout (little-endian): the magic `ENGRAMV1`, a `u32` header length, a JSON
//! header `{"embedder": NAME, "dim": N}` padded to 8 bytes, then fixed-size rows:
//! `u64` record key ([`crate::storage::index::vector_key`] of the id), `u64` content hash,
//! `N` × `f32` (L2-normalised, so cosine is a dot product). The file is rewritten
//! atomically whenever rows change; it is derived and can always be rebuilt.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::Path;

use memmap2::Mmap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"ENGRAMV1";

/// What made the vectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorHeader {
    pub embedder: String,
    pub dim: usize,
}

/// An open, memory-mapped vector file.
pub struct VectorFile {
    header: VectorHeader,
    map: Mmap,
    data_start: usize,
}

/// One row to write.
#[derive(Debug, Clone)]
pub struct VectorRow {
    pub key: u64,
    pub content_hash: u64,
    pub vector: Vec<f32>,
}

/// The hash of a record's content that a row remembers (to skip re-embedding
/// when only the frontmatter changed).
pub fn content_key(content: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(content.as_bytes());
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

impl VectorFile {
    /// Opens the file; `None` when it does not exist.
    pub fn open(path: &Path) -> Result<Option<VectorFile>> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        // SAFETY: the file is only ever replaced by rename, never written in place,
        // so the mapped bytes do not change under us.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        let corrupt = || Error::Index(format!("{} is not a vector file", path.display()));
        if map.len() < 12 || &map[..8] != MAGIC {
            return Err(corrupt());
        }
        let header_len = u32::from_le_bytes(map[8..12].try_into().expect("4 bytes")) as usize;
        let header_end = 12 + header_len;
        if map.len() < header_end {
            return Err(corrupt());
        }
        let header: VectorHeader =
            serde_json::from_slice(&map[12..header_end]).map_err(|_| corrupt())?;
        let data_start = header_end.next_multiple_of(8);
        let file = VectorFile {
            header,
            map,
            data_start,
        };
        if file.header.dim == 0
            || !(file.map.len().saturating_sub(data_start)).is_multiple_of(file.row_size())
        {
            return Err(corrupt());
        }
        Ok(Some(file))
    }

    pub fn header(&self) -> &VectorHeader {
        &self.header
    }

    fn row_size(&self) -> usize {
        16 + 4 * self.header.dim
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        (self.map.len() - self.data_start) / self.row_size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn row(&self, i: usize) -> (u64, u64, &[u8]) {
        let start = self.data_start + i * self.row_size();
        let row = &self.map[start..start + self.row_size()];
        let key = u64::from_le_bytes(row[..8].try_into().expect("8 bytes"));
        let hash = u64::from_le_bytes(row[8..16].try_into().expect("8 bytes"));
        (key, hash, &row[16..])
    }

    /// Every row's key and content hash.
    pub fn keys(&self) -> HashMap<u64, u64> {
        (0..self.len())
            .map(|i| {
                let (k, h, _) = self.row(i);
                (k, h)
            })
            .collect()
    }

    /// The vector of one row, decoded.
    fn vector(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
    }

    /// The `limit` rows most similar to `query` among those `allowed` accepts,
    /// as (cosine, key), best first.
    pub fn search(
        &self,
        query: &[f32],
        allowed: impl Fn(u64) -> bool,
        limit: usize,
    ) -> Vec<(f32, u64)> {
        if query.len() != self.header.dim || limit == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(f32, u64)> = Vec::new();
        for i in 0..self.len() {
            let (key, _, bytes) = self.row(i);
            if !allowed(key) {
                continue;
            }
            let dot: f32 = Self::vector(bytes).zip(query).map(|(a, b)| a * b).sum();
            scored.push((dot, key));
        }
        let cmp = |a: &(f32, u64), b: &(f32, u64)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, cmp);
            scored.truncate(limit);
        }
        scored.sort_by(cmp);
        scored
    }

    /// Writes a new vector file at `path`: the rows of `old` (if its embedder and
    /// dimension match) minus the keys in `remove` and those in `add`, then `add`.
    pub fn write(
        path: &Path,
        header: &VectorHeader,
        old: Option<&VectorFile>,
        remove: &HashSet<u64>,
        add: &[VectorRow],
    ) -> Result<()> {
        let io = |e| Error::io(path, e);
        let replaced: HashSet<u64> = add.iter().map(|r| r.key).collect();
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut tmp = crate::storage::vault::temp_in(dir).map_err(io)?;
        {
            let mut out = std::io::BufWriter::new(tmp.as_file_mut());
            let json = serde_json::to_vec(header).expect("header serialises");
            out.write_all(MAGIC).map_err(io)?;
            out.write_all(&(json.len() as u32).to_le_bytes())
                .map_err(io)?;
            out.write_all(&json).map_err(io)?;
            let pad = (12 + json.len()).next_multiple_of(8) - (12 + json.len());
            out.write_all(&[0u8; 8][..pad]).map_err(io)?;
            if let Some(old) = old.filter(|o| o.header == *header) {
                for i in 0..old.len() {
                    let (key, _, _) = old.row(i);
                    if remove.contains(&key) || replaced.contains(&key) {
                        continue;
                    }
                    let start = old.data_start + i * old.row_size();
                    out.write_all(&old.map[start..start + old.row_size()])
                        .map_err(io)?;
                }
            }
            for row in add {
                if row.vector.len() != header.dim {
                    return Err(Error::Index(format!(
                        "an embedding has {} dimensions where the vector file has {}",
                        row.vector.len(),
                        header.dim
                    )));
                }
                out.write_all(&row.key.to_le_bytes()).map_err(io)?;
                out.write_all(&row.content_hash.to_le_bytes()).map_err(io)?;
                for x in &row.vector {
                    out.write_all(&x.to_le_bytes()).map_err(io)?;
                }
            }
            out.flush().map_err(io)?;
        }
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::embed::normalize;

    fn row(key: u64, v: &[f32]) -> VectorRow {
        let mut vector = v.to_vec();
        normalize(&mut vector);
        VectorRow {
            key,
            content_hash: key * 10,
            vector,
        }
    }

    #[test]
    fn write_open_search_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        let header = VectorHeader {
            embedder: "test".into(),
            dim: 3,
        };
        VectorFile::write(
            &path,
            &header,
            None,
            &HashSet::new(),
            &[
                row(1, &[1.0, 0.0, 0.0]),
                row(2, &[0.0, 1.0, 0.0]),
                row(3, &[0.7, 0.7, 0.0]),
            ],
        )
        .unwrap();
        let file = VectorFile::open(&path).unwrap().unwrap();
        assert_eq!(file.len(), 3);
        assert_eq!(file.header(), &header);
        let hits = file.search(&[1.0, 0.0, 0.0], |_| true, 2);
        assert_eq!(hits.iter().map(|h| h.1).collect::<Vec<_>>(), vec![1, 3]);
        // The filter runs before ranking.
        let hits = file.search(&[1.0, 0.0, 0.0], |k| k == 2, 2);
        assert_eq!(hits.iter().map(|h| h.1).collect::<Vec<_>>(), vec![2]);
        assert_eq!(file.keys()[&2], 20);
    }

    #[test]
    fn rewrite_replaces_and_removes_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        let header = VectorHeader {
            embedder: "test".into(),
            dim: 2,
        };
        VectorFile::write(
            &path,
            &header,
            None,
            &HashSet::new(),
            &[row(1, &[1.0, 0.0]), row(2, &[0.0, 1.0])],
        )
        .unwrap();
        let old = VectorFile::open(&path).unwrap().unwrap();
        VectorFile::write(
            &path,
            &header,
            Some(&old),
            &HashSet::from([2]),
            &[row(1, &[0.0, 1.0]), row(4, &[1.0, 1.0])],
        )
        .unwrap();
        let file = VectorFile::open(&path).unwrap().unwrap();
        let mut keys: Vec<u64> = file.keys().into_keys().collect();
        keys.sort();
        assert_eq!(keys, vec![1, 4]);
        assert_eq!(file.search(&[0.0, 1.0], |_| true, 1)[0].1, 1);
    }

    #[test]
    fn a_different_embedder_drops_old_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        let a = VectorHeader {
            embedder: "a".into(),
            dim: 2,
        };
        VectorFile::write(&path, &a, None, &HashSet::new(), &[row(1, &[1.0, 0.0])]).unwrap();
        let old = VectorFile::open(&path).unwrap().unwrap();
        let b = VectorHeader {
            embedder: "b".into(),
            dim: 2,
        };
        VectorFile::write(
            &path,
            &b,
            Some(&old),
            &HashSet::new(),
            &[row(2, &[1.0, 0.0])],
        )
        .unwrap();
        let file = VectorFile::open(&path).unwrap().unwrap();
        assert_eq!(file.len(), 1);
        assert_eq!(file.header().embedder, "b");
    }

    #[test]
    fn garbage_is_reported_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        std::fs::write(&path, b"not a vector file at all").unwrap();
        assert!(VectorFile::open(&path).is_err());
    }
}

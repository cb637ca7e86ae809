//! The sidecar vector file: one embedding per record content, memory-mapped,
//! searched by brute-force cosine over int8 rows.
//!
//! Layout (little-endian): the magic `ENGRAMV2`, a `u32` header length, a JSON
//! header `{"embedder": NAME, "dim": N}` padded to 8 bytes, then fixed-size rows:
//! `u64` record key ([`crate::storage::index::vector_key`] of the id), `u64`
//! content key ([`content_key`]), an `f32` scale and `N` × `i8` (the
//! L2-normalised vector divided by the scale, so cosine is a dot product).
//! A row is 20 + N bytes: 276 for the built-in embedder, a quarter of f32.
//!
//! The file only grows: new rows are appended under the vault lock, and a row
//! counts only while the index has a document with its key *and* content key
//! (the index is the truth about which rows are live). A torn row at the end
//! (a killed append) is ignored by readers and cut by the next append. Once the
//! dead rows outnumber the live ones, [`VectorFile::rewrite_keeping`] writes a
//! fresh file and renames it over the old one. It is derived and can always be
//! rebuilt.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use memmap2::Mmap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"ENGRAMV2";

/// Bytes of a row before its vector: key, content key, scale.
const ROW_HEAD: usize = 20;

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

/// A vector as integers within ±`top` with its scale (the largest magnitude
/// maps to `top`): int8 rows are stored with `top` 127, the query is scored
/// as int16 with `top` 32767.
fn quantize(vector: &[f32], top: f32) -> (f32, impl Iterator<Item = f32> + '_) {
    let max = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max == 0.0 || !max.is_finite() {
        0.0
    } else {
        max / top
    };
    let q = vector.iter().map(move |x| {
        if scale == 0.0 {
            0.0
        } else {
            (x / scale).round().clamp(-top, top)
        }
    });
    (scale, q)
}

/// The integer dot product of a row and the query, with the widest
/// instructions this processor has.
fn dot(row: &[u8], query: &[i16]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { dot_avx2(row, query) };
        }
    }
    dot_portable(row, query)
}

/// [`dot_portable`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_avx2(row: &[u8], query: &[i16]) -> i32 {
    dot_portable(row, query)
}

/// Written so that the compiler vectorises it: 16 lanes of i16 × i16 into i32.
#[inline(always)]
fn dot_portable(row: &[u8], query: &[i16]) -> i32 {
    let mut lanes = [0i32; 16];
    let mut rows = row.chunks_exact(16);
    let mut qs = query.chunks_exact(16);
    for (r, q) in (&mut rows).zip(&mut qs) {
        for i in 0..16 {
            lanes[i] += i32::from(r[i] as i8) * i32::from(q[i]);
        }
    }
    let mut sum: i32 = lanes.iter().sum();
    for (r, q) in rows.remainder().iter().zip(qs.remainder()) {
        sum += i32::from(*r as i8) * i32::from(*q);
    }
    sum
}

impl VectorFile {
    /// Opens the file; `None` when it does not exist.
    pub fn open(path: &Path) -> Result<Option<VectorFile>> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        // SAFETY: rows are only ever appended past the mapped length (and a
        // torn row past every whole one cut), and a rewrite replaces the file
        // by rename, so the mapped bytes that are read do not change under us.
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
        if header.dim == 0 || map.len() < data_start {
            return Err(corrupt());
        }
        Ok(Some(VectorFile {
            header,
            map,
            data_start,
        }))
    }

    pub fn header(&self) -> &VectorHeader {
        &self.header
    }

    fn row_size(&self) -> usize {
        ROW_HEAD + self.header.dim
    }

    /// Number of whole rows (a torn row at the end is not one).
    pub fn len(&self) -> usize {
        (self.map.len() - self.data_start) / self.row_size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn row(&self, i: usize) -> (u64, u64, f32, &[u8]) {
        let start = self.data_start + i * self.row_size();
        let row = &self.map[start..start + self.row_size()];
        let key = u64::from_le_bytes(row[..8].try_into().expect("8 bytes"));
        let hash = u64::from_le_bytes(row[8..16].try_into().expect("8 bytes"));
        let scale = f32::from_le_bytes(row[16..20].try_into().expect("4 bytes"));
        (key, hash, scale, &row[ROW_HEAD..])
    }

    /// Every row's (key, content key).
    pub fn pairs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.len()).map(|i| {
            let (k, h, _, _) = self.row(i);
            (k, h)
        })
    }

    /// The `m` rows most similar to `query` among those `live` accepts (by
    /// key and content key), as (cosine, key, content key), best first, each
    /// (key, content key) once. The rows are scanned in blocks whose pages are
    /// released once read, so the file does not count toward the process's
    /// memory.
    pub fn top(
        &self,
        query: &[f32],
        m: usize,
        live: impl Fn(u64, u64) -> bool + Sync,
    ) -> Vec<(f32, u64, u64)> {
        if query.len() != self.header.dim || m == 0 {
            return Vec::new();
        }
        let (query_scale, query) = quantize(query, 32767.0);
        let query: Vec<i16> = query.map(|x| x as i16).collect();
        // Two halves on two threads when there is enough to share.
        let len = self.len();
        let parts = if len >= 8192 { 2 } else { 1 };
        let per_part = len.div_ceil(parts).max(1);
        let row_size = self.row_size();
        let scan = |from: usize, to: usize| -> Vec<(f32, u32)> {
            let rows_per_block = ((4 << 20) / row_size).max(1);
            let mut scored = Vec::with_capacity(to - from);
            let mut row = from;
            while row < to {
                let n = rows_per_block.min(to - row);
                let start = self.data_start + row * row_size;
                let bytes = &self.map[start..start + n * row_size];
                for (i, r) in bytes.chunks_exact(row_size).enumerate() {
                    let key = u64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
                    let hash = u64::from_le_bytes(r[8..16].try_into().expect("8 bytes"));
                    if !live(key, hash) {
                        continue;
                    }
                    let scale = f32::from_le_bytes(r[16..20].try_into().expect("4 bytes"));
                    let cosine = dot(&r[ROW_HEAD..], &query) as f32 * scale * query_scale;
                    scored.push((cosine, (row + i) as u32));
                }
                // Done with these pages: let them go from this process (they
                // stay in the page cache), so the file never counts whole
                // toward its memory.
                // SAFETY: the map is read-only and private; dropping its pages
                // only makes a later read fault them in again from the file.
                #[cfg(unix)]
                let _ = unsafe {
                    self.map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        start,
                        n * row_size,
                    )
                };
                row += n;
            }
            scored
        };
        let mut scored: Vec<(f32, u32)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..parts)
                .map(|p| {
                    let (from, to) = (p * per_part, ((p + 1) * per_part).min(len));
                    let scan = &scan;
                    scope.spawn(move || scan(from, to))
                })
                .collect();
            let mut all = Vec::with_capacity(len);
            for h in handles {
                all.extend(h.join().expect("a vector scan thread panicked"));
            }
            all
        });
        let cmp = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        // Copies of one row count once: take a few more than asked.
        let take = (m * 2).min(scored.len());
        if take > 0 && scored.len() > take {
            scored.select_nth_unstable_by(take - 1, cmp);
            scored.truncate(take);
        }
        scored.sort_by(cmp);
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(m);
        for (cosine, i) in scored {
            let (key, hash, _, _) = self.row(i as usize);
            if seen.insert((key, hash)) {
                out.push((cosine, key, hash));
                if out.len() == m {
                    break;
                }
            }
        }
        out
    }

    /// Removes the vector file (a new embedder starts afresh).
    pub fn remove(path: &Path) -> Result<()> {
        match std::fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Appends rows made by `embedder`, creating the file when missing. The
    /// caller holds the vault lock and has removed a file made by another
    /// embedder or dimension.
    pub fn append(path: &Path, embedder: &str, rows: &[VectorRow]) -> Result<()> {
        let Some(dim) = rows.first().map(|r| r.vector.len()) else {
            return Ok(());
        };
        let io = |e| Error::io(path, e);
        let header = VectorHeader {
            embedder: embedder.to_string(),
            dim,
        };
        let existing = match VectorFile::open(path) {
            Ok(Some(f)) if f.header == header => Some(f.data_start + f.len() * f.row_size()),
            Ok(None) => None,
            // Another embedder or dimension, or garbage: start afresh.
            Ok(Some(_)) | Err(_) => {
                VectorFile::remove(path)?;
                None
            }
        };
        let end = match existing {
            Some(end) => end,
            None => {
                VectorFile::rewrite(path, &header, |_| Ok(()))?;
                VectorFile::open(path)?
                    .map(|f| f.data_start)
                    .ok_or_else(|| Error::Index("the vector file vanished".into()))?
            }
        };
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io)?;
        // Cut a torn row left by a killed append.
        file.set_len(end as u64).map_err(io)?;
        let mut out = std::io::BufWriter::new(&mut file);
        use std::io::Seek;
        out.seek(std::io::SeekFrom::Start(end as u64)).map_err(io)?;
        for row in rows {
            if row.vector.len() != dim {
                return Err(Error::Index(format!(
                    "an embedding has {} dimensions where the vector file has {dim}",
                    row.vector.len(),
                )));
            }
            write_row(&mut out, row.key, row.content_hash, &row.vector).map_err(io)?;
        }
        out.flush().map_err(io)?;
        drop(out);
        file.sync_data().map_err(io)?;
        Ok(())
    }

    /// Writes a new file at `path` holding only the rows whose (key, content
    /// key) is in `keep` (once each), renamed over the old one.
    pub fn rewrite_keeping(&self, path: &Path, keep: &HashSet<(u64, u64)>) -> Result<()> {
        let mut written: HashSet<(u64, u64)> = HashSet::with_capacity(keep.len());
        VectorFile::rewrite(path, &self.header, |out| {
            for i in (0..self.len()).rev() {
                let (key, hash, _, _) = self.row(i);
                if keep.contains(&(key, hash)) && written.insert((key, hash)) {
                    let start = self.data_start + i * self.row_size();
                    out.write_all(&self.map[start..start + self.row_size()])?;
                }
            }
            Ok(())
        })
    }

    /// Writes a file with `header` and the rows `body` writes, atomically.
    fn rewrite(
        path: &Path,
        header: &VectorHeader,
        body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        let io = |e| Error::io(path, e);
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
            body(&mut out).map_err(io)?;
            out.flush().map_err(io)?;
        }
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
        Ok(())
    }
}

fn write_row(out: &mut impl Write, key: u64, hash: u64, vector: &[f32]) -> std::io::Result<()> {
    let (scale, q) = quantize(vector, 127.0);
    out.write_all(&key.to_le_bytes())?;
    out.write_all(&hash.to_le_bytes())?;
    out.write_all(&scale.to_le_bytes())?;
    let bytes: Vec<u8> = q.map(|x| x as i8 as u8).collect();
    out.write_all(&bytes)
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
    fn append_open_search_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        VectorFile::append(
            &path,
            "test",
            &[row(1, &[1.0, 0.0, 0.0]), row(2, &[0.0, 1.0, 0.0])],
        )
        .unwrap();
        VectorFile::append(&path, "test", &[row(3, &[0.7, 0.7, 0.0])]).unwrap();
        let file = VectorFile::open(&path).unwrap().unwrap();
        assert_eq!(file.len(), 3);
        assert_eq!(file.header().dim, 3);
        let hits = file.top(&[1.0, 0.0, 0.0], 2, |_, _| true);
        assert_eq!(hits.iter().map(|h| h.1).collect::<Vec<_>>(), vec![1, 3]);
        assert!((hits[0].0 - 1.0).abs() < 0.01, "{hits:?}");
        assert!((hits[1].0 - std::f32::consts::FRAC_1_SQRT_2).abs() < 0.01);
        // Liveness runs before ranking.
        let hits = file.top(&[1.0, 0.0, 0.0], 2, |k, _| k == 2);
        assert_eq!(hits.iter().map(|h| h.1).collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn a_stale_row_is_not_live_and_duplicates_count_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        // Key 1's content changed: its old row (content key 10) is dead.
        let mut new = row(1, &[0.0, 1.0]);
        new.content_hash = 11;
        VectorFile::append(&path, "test", &[row(1, &[1.0, 0.0]), new.clone()]).unwrap();
        VectorFile::append(&path, "test", &[new]).unwrap();
        let file = VectorFile::open(&path).unwrap().unwrap();
        let hits = file.top(&[1.0, 0.0], 5, |k, c| k == 1 && c == 11);
        assert_eq!(hits.len(), 1);
        assert!(
            hits[0].0.abs() < 0.01,
            "the live row is the new one: {hits:?}"
        );
        file.rewrite_keeping(&path, &HashSet::from([(1, 11)]))
            .unwrap();
        let file = VectorFile::open(&path).unwrap().unwrap();
        assert_eq!(file.pairs().collect::<Vec<_>>(), vec![(1, 11)]);
    }

    #[test]
    fn a_torn_row_is_ignored_then_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        VectorFile::append(&path, "test", &[row(1, &[1.0, 0.0])]).unwrap();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&[7u8; 9]).unwrap();
        drop(f);
        assert_eq!(VectorFile::open(&path).unwrap().unwrap().len(), 1);
        VectorFile::append(&path, "test", &[row(2, &[0.0, 1.0])]).unwrap();
        let file = VectorFile::open(&path).unwrap().unwrap();
        assert_eq!(file.pairs().collect::<Vec<_>>(), vec![(1, 10), (2, 20)]);
    }

    #[test]
    fn a_different_embedder_starts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bin");
        VectorFile::append(&path, "a", &[row(1, &[1.0, 0.0])]).unwrap();
        VectorFile::append(&path, "b", &[row(2, &[1.0, 0.0, 0.0])]).unwrap();
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

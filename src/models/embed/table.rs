//! Built-in offline text embedder: a static word-embedding table distilled from
//! all-MiniLM-L6-v2, compiled into the binary.
//!
//! This module owns three things:
//!
//! * the table assets under `assets/embedder/` (`table.i8`: 30,522 × 256 int8
//!   rows, `scales.f32`: one little-endian f32 scale per row, `vocab.txt`: the
//!   teacher's WordPiece vocabulary, `NOTICE`: the Apache-2.0 notice), included
//!   with `include_bytes!` and read in place — the 7.8 MB table is never copied;
//! * a std-only re-implementation of the BERT-uncased tokenizer (basic
//!   tokenisation: clean control characters, split whitespace, isolate CJK
//!   ideographs, lowercase, strip accents, split punctuation; then greedy
//!   longest-match WordPiece with `##` continuations), without `[CLS]`/`[SEP]`;
//! * the embedding: the mean of the dequantised rows of a text's tokens,
//!   L2-normalised.
//!
//! How the table was made, and why, is in `tools/distill-embedder/README.md`;
//! `tools/distill-embedder/distill.py` reproduces it from the teacher.
//!
//! Accent stripping needs Unicode NFD, which std lacks: the module carries a
//! table, generated from Python's `unicodedata` by `distill.py --rust-tables`,
//! of every precomposed character whose NFD minus combining marks is a single
//! character (é→e, ñ→n, ü→u, ç→c, ǘ→u, ά→α, й→и, が→か, क़→क, …; ø, ł, đ, æ and ß
//! have no decomposition and stay as they are, as in BERT), decomposes Hangul
//! syllables arithmetically into jamo, and drops every category-Mn mark.
//! Known differences from the reference tokenizer, all rare: CJK compatibility
//! ideographs (U+F900–U+FAFF, U+2F800–U+2FA1F) and 43 characters whose
//! decomposition is more than one character (mostly Indic two-part vowel
//! signs) are passed through undecomposed; the Unicode tables are version 14,
//! `char::to_lowercase` is std's; Python's final-sigma rule (Σ→ς at a word's
//! end) is not applied.
//!
//! Unknown words (no WordPiece segmentation, or longer than 100 characters)
//! are BERT's `[UNK]`; this module drops them, so they contribute nothing
//! (keeping the `[UNK]` row measured the same on LoCoMo and only adds noise).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Name (and version) of the built-in embedder, to record alongside stored
/// vectors; bump the version whenever the assets or the tokenizer change.
pub const BUILTIN_EMBEDDER_NAME: &str = "builtin:minilm-l6-static-256-v1";

/// Dimension of the vectors returned by [`embed`].
pub const BUILTIN_DIM: usize = 256;

/// Number of rows in the table: the teacher's vocabulary size.
const VOCAB_SIZE: usize = 30_522;
/// Vocabulary id of `[UNK]` in the BERT-uncased vocabulary.
const UNK_ID: u32 = 100;
/// BERT's `max_input_chars_per_word`: longer words become `[UNK]`.
const MAX_WORD_CHARS: usize = 100;

/// int8 rows, row-major, row `i` = token id `i`; dequantise as `q * scale[i]`.
static TABLE: &[u8] = include_bytes!("../../../assets/embedder/table.i8");
/// One little-endian f32 scale per row.
static SCALES: &[u8] = include_bytes!("../../../assets/embedder/scales.f32");
/// The WordPiece vocabulary, one token per line, line `i` = id `i`.
static VOCAB: &str = include_str!("../../../assets/embedder/vocab.txt");

/// BERT-uncased basic tokenisation + greedy WordPiece; returns vocab ids,
/// no `[CLS]`/`[SEP]`. Unknown words (BERT's `[UNK]`) map to nothing.
pub fn tokenize(text: &str) -> Vec<u32> {
    let mut ids = Vec::with_capacity(text.len() / 4 + 1);
    for_each_token(text, |id| ids.push(id));
    ids
}

/// Token strings (vocabulary entries, `##` continuations included) of
/// [`tokenize`], for tests and `--explain`.
pub fn tokenize_to_strings(text: &str) -> Vec<String> {
    let m = model();
    tokenize(text)
        .into_iter()
        .map(|id| m.tokens[id as usize].to_string())
        .collect()
}

/// Mean of the tokens' dequantised rows, L2-normalised, [`BUILTIN_DIM`] long;
/// all zeros when no token of the text is known.
pub fn embed(text: &str) -> Vec<f32> {
    let (mut v, n) = sum_rows(text);
    if n == 0 {
        return v;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        let inv = 1.0 / norm;
        v.iter_mut().for_each(|x| *x *= inv);
    }
    v
}

/// Sum of the dequantised rows of the text's tokens, and how many there were.
fn sum_rows(text: &str) -> (Vec<f32>, usize) {
    let m = model();
    let mut acc = [0f32; BUILTIN_DIM];
    let mut n = 0usize;
    for_each_token(text, |id| {
        let id = id as usize;
        let scale = m.scales[id];
        let row = &TABLE[id * BUILTIN_DIM..(id + 1) * BUILTIN_DIM];
        for (a, &q) in acc.iter_mut().zip(row) {
            *a += f32::from(q as i8) * scale;
        }
        n += 1;
    });
    (acc.to_vec(), n)
}

/// Vocabulary lookups and decoded scales, built once on first use.
struct Model {
    /// Word-initial pieces, keyed by their text.
    initial: HashMap<&'static str, u32, FxBuild>,
    /// `##` continuation pieces, keyed by their text without the `##`.
    continuation: HashMap<&'static str, u32, FxBuild>,
    /// Token string of each id.
    tokens: Vec<&'static str>,
    /// Per-row dequantisation scale.
    scales: Vec<f32>,
    /// Longest piece in bytes (continuations without `##`), bounding the match.
    max_piece_bytes: usize,
}

/// Builds the vocabulary lookups now (a few milliseconds), so that a later
/// first embedding need not: `recall` calls it on a thread of its own while it
/// opens the index.
pub fn prepare() {
    model();
}

/// The lazily built [`Model`].
fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        assert_eq!(TABLE.len(), VOCAB_SIZE * BUILTIN_DIM, "table.i8 size");
        assert_eq!(SCALES.len(), VOCAB_SIZE * 4, "scales.f32 size");
        let tokens: Vec<&'static str> = VOCAB.lines().collect();
        assert_eq!(tokens.len(), VOCAB_SIZE, "vocab.txt line count");
        assert_eq!(tokens[UNK_ID as usize], "[UNK]", "vocab.txt [UNK] id");
        let mut initial = HashMap::with_capacity_and_hasher(VOCAB_SIZE, FxBuild::default());
        let mut continuation = HashMap::with_capacity_and_hasher(8192, FxBuild::default());
        let mut max_piece_bytes = 0;
        for (id, tok) in tokens.iter().enumerate() {
            let (map, key) = match tok.strip_prefix("##") {
                Some(rest) if !rest.is_empty() => (&mut continuation, rest),
                _ => (&mut initial, *tok),
            };
            max_piece_bytes = max_piece_bytes.max(key.len());
            map.insert(key, id as u32);
        }
        let scales = SCALES
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Model {
            initial,
            continuation,
            tokens,
            scales,
            max_piece_bytes,
        }
    })
}

/// Reusable buffers of one tokenizer run.
struct Scratch {
    /// The basic token being accumulated (lowercased, accents stripped).
    word: String,
    /// Byte offsets of the word's character boundaries.
    bounds: Vec<usize>,
    /// Pieces of the word being segmented, emitted only if all of it segments.
    pieces: Vec<u32>,
}

impl Scratch {
    /// Segments and emits the pending word, if any, and clears it.
    fn flush(&mut self, m: &Model, emit: &mut dyn FnMut(u32)) {
        if !self.word.is_empty() {
            wordpiece(m, &self.word, &mut self.bounds, &mut self.pieces, emit);
            self.word.clear();
        }
    }

    /// Flushes the pending word, then emits `c` as a word of its own
    /// (punctuation, CJK ideographs).
    fn single(&mut self, m: &Model, c: char, emit: &mut dyn FnMut(u32)) {
        self.flush(m, emit);
        self.word.push(c);
        self.flush(m, emit);
    }
}

/// Runs the whole tokenizer over `text`, calling `emit` with each known id.
fn for_each_token(text: &str, mut emit: impl FnMut(u32)) {
    let m = model();
    let emit: &mut dyn FnMut(u32) = &mut emit;
    let mut st = Scratch {
        word: String::with_capacity(64),
        bounds: Vec::with_capacity(64),
        pieces: Vec::with_capacity(16),
    };
    for c in text.chars() {
        if c.is_ascii() {
            match c {
                ' ' | '\t' | '\n' | '\r' => st.flush(m, emit),
                '\0'..='\x1f' | '\x7f' => {}
                _ if c.is_ascii_punctuation() => st.single(m, c, emit),
                _ => st.word.push(c.to_ascii_lowercase()),
            }
            continue;
        }
        let cp = c as u32;
        if cp == 0xFFFD || in_ranges(cp, CONTROL_RANGES) {
            continue;
        }
        if is_unicode_space(cp) {
            st.flush(m, emit);
            continue;
        }
        if is_cjk_ideograph(cp) {
            st.single(m, c, emit);
            continue;
        }
        for lc in c.to_lowercase() {
            strip_accents(lc, |s| {
                if is_punctuation(s) {
                    st.single(m, s, emit);
                } else {
                    st.word.push(s);
                }
            });
        }
    }
    st.flush(m, emit);
}

/// Greedy longest-match-first WordPiece over one basic token, as BERT's
/// `WordpieceTokenizer`; a word that cannot be segmented (or is longer than
/// [`MAX_WORD_CHARS`]) is `[UNK]` as a whole and emits nothing.
fn wordpiece(
    m: &Model,
    word: &str,
    bounds: &mut Vec<usize>,
    pieces: &mut Vec<u32>,
    emit: &mut dyn FnMut(u32),
) {
    bounds.clear();
    bounds.extend(word.char_indices().map(|(i, _)| i));
    if bounds.len() > MAX_WORD_CHARS {
        return;
    }
    bounds.push(word.len());
    pieces.clear();
    let last = bounds.len() - 1;
    let mut start = 0usize; // index into `bounds`
    while start < last {
        let map = if start == 0 {
            &m.initial
        } else {
            &m.continuation
        };
        let s = bounds[start];
        let mut end = last;
        loop {
            if end == start {
                return; // no piece matches: the whole word is [UNK]
            }
            let e = bounds[end];
            if e - s <= m.max_piece_bytes
                && let Some(&id) = map.get(&word[s..e])
            {
                pieces.push(id);
                break;
            }
            end -= 1;
        }
        start = end;
    }
    pieces.iter().for_each(|&id| emit(id));
}

/// BERT's `_run_strip_accents` for one (already lowercased) character:
/// calls `out` with its NFD decomposition minus category-Mn marks.
fn strip_accents(c: char, mut out: impl FnMut(char)) {
    let cp = c as u32;
    if in_ranges(cp, MN_RANGES) {
        return;
    }
    if (0xAC00..=0xD7A3).contains(&cp) {
        // Hangul syllable: canonical decomposition into conjoining jamo.
        let s = cp - 0xAC00;
        let l = 0x1100 + s / 588;
        let v = 0x1161 + (s % 588) / 28;
        let t = s % 28;
        out(char::from_u32(l).unwrap_or(c));
        out(char::from_u32(v).unwrap_or(c));
        if t != 0 {
            out(char::from_u32(0x11A7 + t).unwrap_or(c));
        }
        return;
    }
    out(accent_base(c).unwrap_or(c));
}

/// Base letter of `c` from [`ACCENT_PAIRS`], if it has one.
fn accent_base(c: char) -> Option<char> {
    static MAP: OnceLock<Vec<(char, char)>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let chars: Vec<char> = ACCENT_PAIRS.chars().collect();
        let mut pairs: Vec<(char, char)> = chars.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        pairs.sort_unstable();
        pairs
    });
    map.binary_search_by_key(&c, |p| p.0).ok().map(|i| map[i].1)
}

/// BERT's `_is_punctuation`: the ASCII ranges 33–47, 58–64, 91–96, 123–126,
/// and every code point of general category P*.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_punctuation()
    } else {
        in_ranges(c as u32, PUNCT_RANGES)
    }
}

/// BERT's whitespace beyond ASCII: general category Zs (`_is_whitespace`),
/// plus U+2028 and U+2029, on which its final `str.split()` also splits.
fn is_unicode_space(cp: u32) -> bool {
    matches!(
        cp,
        0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000
    )
}

/// BERT's `_is_chinese_char`: the CJK ideograph blocks it splits into
/// single-character words.
fn is_cjk_ideograph(cp: u32) -> bool {
    matches!(cp,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

/// Whether `cp` lies in one of the sorted, disjoint inclusive `ranges`.
fn in_ranges(cp: u32, ranges: &[(u32, u32)]) -> bool {
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// FxHash-style hasher for the vocabulary maps (short keys; no need for
/// SipHash's DoS resistance since the keys are our own vocabulary).
#[derive(Default, Clone, Copy)]
struct FxHasher {
    hash: u64,
}

/// Builds [`FxHasher`]s.
type FxBuild = BuildHasherDefault<FxHasher>;

impl FxHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    /// Mixes one word into the state.
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

// Generated by tools/distill-embedder/distill.py --rust-tables (Unicode 14.0.0).
/// Non-ASCII code points of general category P* (BERT's `_is_punctuation`).
#[rustfmt::skip]
const PUNCT_RANGES: &[(u32, u32)] = &[
    (0x00A1, 0x00A1), (0x00A7, 0x00A7), (0x00AB, 0x00AB), (0x00B6, 0x00B7), (0x00BB, 0x00BB), (0x00BF, 0x00BF),
    (0x037E, 0x037E), (0x0387, 0x0387), (0x055A, 0x055F), (0x0589, 0x058A), (0x05BE, 0x05BE), (0x05C0, 0x05C0),
    (0x05C3, 0x05C3), (0x05C6, 0x05C6), (0x05F3, 0x05F4), (0x0609, 0x060A), (0x060C, 0x060D), (0x061B, 0x061B),
    (0x061D, 0x061F), (0x066A, 0x066D), (0x06D4, 0x06D4), (0x0700, 0x070D), (0x07F7, 0x07F9), (0x0830, 0x083E),
    (0x085E, 0x085E), (0x0964, 0x0965), (0x0970, 0x0970), (0x09FD, 0x09FD), (0x0A76, 0x0A76), (0x0AF0, 0x0AF0),
    (0x0C77, 0x0C77), (0x0C84, 0x0C84), (0x0DF4, 0x0DF4), (0x0E4F, 0x0E4F), (0x0E5A, 0x0E5B), (0x0F04, 0x0F12),
    (0x0F14, 0x0F14), (0x0F3A, 0x0F3D), (0x0F85, 0x0F85), (0x0FD0, 0x0FD4), (0x0FD9, 0x0FDA), (0x104A, 0x104F),
    (0x10FB, 0x10FB), (0x1360, 0x1368), (0x1400, 0x1400), (0x166E, 0x166E), (0x169B, 0x169C), (0x16EB, 0x16ED),
    (0x1735, 0x1736), (0x17D4, 0x17D6), (0x17D8, 0x17DA), (0x1800, 0x180A), (0x1944, 0x1945), (0x1A1E, 0x1A1F),
    (0x1AA0, 0x1AA6), (0x1AA8, 0x1AAD), (0x1B5A, 0x1B60), (0x1B7D, 0x1B7E), (0x1BFC, 0x1BFF), (0x1C3B, 0x1C3F),
    (0x1C7E, 0x1C7F), (0x1CC0, 0x1CC7), (0x1CD3, 0x1CD3), (0x2010, 0x2027), (0x2030, 0x2043), (0x2045, 0x2051),
    (0x2053, 0x205E), (0x207D, 0x207E), (0x208D, 0x208E), (0x2308, 0x230B), (0x2329, 0x232A), (0x2768, 0x2775),
    (0x27C5, 0x27C6), (0x27E6, 0x27EF), (0x2983, 0x2998), (0x29D8, 0x29DB), (0x29FC, 0x29FD), (0x2CF9, 0x2CFC),
    (0x2CFE, 0x2CFF), (0x2D70, 0x2D70), (0x2E00, 0x2E2E), (0x2E30, 0x2E4F), (0x2E52, 0x2E5D), (0x3001, 0x3003),
    (0x3008, 0x3011), (0x3014, 0x301F), (0x3030, 0x3030), (0x303D, 0x303D), (0x30A0, 0x30A0), (0x30FB, 0x30FB),
    (0xA4FE, 0xA4FF), (0xA60D, 0xA60F), (0xA673, 0xA673), (0xA67E, 0xA67E), (0xA6F2, 0xA6F7), (0xA874, 0xA877),
    (0xA8CE, 0xA8CF), (0xA8F8, 0xA8FA), (0xA8FC, 0xA8FC), (0xA92E, 0xA92F), (0xA95F, 0xA95F), (0xA9C1, 0xA9CD),
    (0xA9DE, 0xA9DF), (0xAA5C, 0xAA5F), (0xAADE, 0xAADF), (0xAAF0, 0xAAF1), (0xABEB, 0xABEB), (0xFD3E, 0xFD3F),
    (0xFE10, 0xFE19), (0xFE30, 0xFE52), (0xFE54, 0xFE61), (0xFE63, 0xFE63), (0xFE68, 0xFE68), (0xFE6A, 0xFE6B),
    (0xFF01, 0xFF03), (0xFF05, 0xFF0A), (0xFF0C, 0xFF0F), (0xFF1A, 0xFF1B), (0xFF1F, 0xFF20), (0xFF3B, 0xFF3D),
    (0xFF3F, 0xFF3F), (0xFF5B, 0xFF5B), (0xFF5D, 0xFF5D), (0xFF5F, 0xFF65), (0x10100, 0x10102), (0x1039F, 0x1039F),
    (0x103D0, 0x103D0), (0x1056F, 0x1056F), (0x10857, 0x10857), (0x1091F, 0x1091F), (0x1093F, 0x1093F), (0x10A50, 0x10A58),
    (0x10A7F, 0x10A7F), (0x10AF0, 0x10AF6), (0x10B39, 0x10B3F), (0x10B99, 0x10B9C), (0x10EAD, 0x10EAD), (0x10F55, 0x10F59),
    (0x10F86, 0x10F89), (0x11047, 0x1104D), (0x110BB, 0x110BC), (0x110BE, 0x110C1), (0x11140, 0x11143), (0x11174, 0x11175),
    (0x111C5, 0x111C8), (0x111CD, 0x111CD), (0x111DB, 0x111DB), (0x111DD, 0x111DF), (0x11238, 0x1123D), (0x112A9, 0x112A9),
    (0x1144B, 0x1144F), (0x1145A, 0x1145B), (0x1145D, 0x1145D), (0x114C6, 0x114C6), (0x115C1, 0x115D7), (0x11641, 0x11643),
    (0x11660, 0x1166C), (0x116B9, 0x116B9), (0x1173C, 0x1173E), (0x1183B, 0x1183B), (0x11944, 0x11946), (0x119E2, 0x119E2),
    (0x11A3F, 0x11A46), (0x11A9A, 0x11A9C), (0x11A9E, 0x11AA2), (0x11C41, 0x11C45), (0x11C70, 0x11C71), (0x11EF7, 0x11EF8),
    (0x11FFF, 0x11FFF), (0x12470, 0x12474), (0x12FF1, 0x12FF2), (0x16A6E, 0x16A6F), (0x16AF5, 0x16AF5), (0x16B37, 0x16B3B),
    (0x16B44, 0x16B44), (0x16E97, 0x16E9A), (0x16FE2, 0x16FE2), (0x1BC9F, 0x1BC9F), (0x1DA87, 0x1DA8B), (0x1E95E, 0x1E95F),
];

/// Code points of general category Mn (dropped by BERT's accent stripping).
#[rustfmt::skip]
const MN_RANGES: &[(u32, u32)] = &[
    (0x0300, 0x036F), (0x0483, 0x0487), (0x0591, 0x05BD), (0x05BF, 0x05BF), (0x05C1, 0x05C2), (0x05C4, 0x05C5),
    (0x05C7, 0x05C7), (0x0610, 0x061A), (0x064B, 0x065F), (0x0670, 0x0670), (0x06D6, 0x06DC), (0x06DF, 0x06E4),
    (0x06E7, 0x06E8), (0x06EA, 0x06ED), (0x0711, 0x0711), (0x0730, 0x074A), (0x07A6, 0x07B0), (0x07EB, 0x07F3),
    (0x07FD, 0x07FD), (0x0816, 0x0819), (0x081B, 0x0823), (0x0825, 0x0827), (0x0829, 0x082D), (0x0859, 0x085B),
    (0x0898, 0x089F), (0x08CA, 0x08E1), (0x08E3, 0x0902), (0x093A, 0x093A), (0x093C, 0x093C), (0x0941, 0x0948),
    (0x094D, 0x094D), (0x0951, 0x0957), (0x0962, 0x0963), (0x0981, 0x0981), (0x09BC, 0x09BC), (0x09C1, 0x09C4),
    (0x09CD, 0x09CD), (0x09E2, 0x09E3), (0x09FE, 0x09FE), (0x0A01, 0x0A02), (0x0A3C, 0x0A3C), (0x0A41, 0x0A42),
    (0x0A47, 0x0A48), (0x0A4B, 0x0A4D), (0x0A51, 0x0A51), (0x0A70, 0x0A71), (0x0A75, 0x0A75), (0x0A81, 0x0A82),
    (0x0ABC, 0x0ABC), (0x0AC1, 0x0AC5), (0x0AC7, 0x0AC8), (0x0ACD, 0x0ACD), (0x0AE2, 0x0AE3), (0x0AFA, 0x0AFF),
    (0x0B01, 0x0B01), (0x0B3C, 0x0B3C), (0x0B3F, 0x0B3F), (0x0B41, 0x0B44), (0x0B4D, 0x0B4D), (0x0B55, 0x0B56),
    (0x0B62, 0x0B63), (0x0B82, 0x0B82), (0x0BC0, 0x0BC0), (0x0BCD, 0x0BCD), (0x0C00, 0x0C00), (0x0C04, 0x0C04),
    (0x0C3C, 0x0C3C), (0x0C3E, 0x0C40), (0x0C46, 0x0C48), (0x0C4A, 0x0C4D), (0x0C55, 0x0C56), (0x0C62, 0x0C63),
    (0x0C81, 0x0C81), (0x0CBC, 0x0CBC), (0x0CBF, 0x0CBF), (0x0CC6, 0x0CC6), (0x0CCC, 0x0CCD), (0x0CE2, 0x0CE3),
    (0x0D00, 0x0D01), (0x0D3B, 0x0D3C), (0x0D41, 0x0D44), (0x0D4D, 0x0D4D), (0x0D62, 0x0D63), (0x0D81, 0x0D81),
    (0x0DCA, 0x0DCA), (0x0DD2, 0x0DD4), (0x0DD6, 0x0DD6), (0x0E31, 0x0E31), (0x0E34, 0x0E3A), (0x0E47, 0x0E4E),
    (0x0EB1, 0x0EB1), (0x0EB4, 0x0EBC), (0x0EC8, 0x0ECD), (0x0F18, 0x0F19), (0x0F35, 0x0F35), (0x0F37, 0x0F37),
    (0x0F39, 0x0F39), (0x0F71, 0x0F7E), (0x0F80, 0x0F84), (0x0F86, 0x0F87), (0x0F8D, 0x0F97), (0x0F99, 0x0FBC),
    (0x0FC6, 0x0FC6), (0x102D, 0x1030), (0x1032, 0x1037), (0x1039, 0x103A), (0x103D, 0x103E), (0x1058, 0x1059),
    (0x105E, 0x1060), (0x1071, 0x1074), (0x1082, 0x1082), (0x1085, 0x1086), (0x108D, 0x108D), (0x109D, 0x109D),
    (0x135D, 0x135F), (0x1712, 0x1714), (0x1732, 0x1733), (0x1752, 0x1753), (0x1772, 0x1773), (0x17B4, 0x17B5),
    (0x17B7, 0x17BD), (0x17C6, 0x17C6), (0x17C9, 0x17D3), (0x17DD, 0x17DD), (0x180B, 0x180D), (0x180F, 0x180F),
    (0x1885, 0x1886), (0x18A9, 0x18A9), (0x1920, 0x1922), (0x1927, 0x1928), (0x1932, 0x1932), (0x1939, 0x193B),
    (0x1A17, 0x1A18), (0x1A1B, 0x1A1B), (0x1A56, 0x1A56), (0x1A58, 0x1A5E), (0x1A60, 0x1A60), (0x1A62, 0x1A62),
    (0x1A65, 0x1A6C), (0x1A73, 0x1A7C), (0x1A7F, 0x1A7F), (0x1AB0, 0x1ABD), (0x1ABF, 0x1ACE), (0x1B00, 0x1B03),
    (0x1B34, 0x1B34), (0x1B36, 0x1B3A), (0x1B3C, 0x1B3C), (0x1B42, 0x1B42), (0x1B6B, 0x1B73), (0x1B80, 0x1B81),
    (0x1BA2, 0x1BA5), (0x1BA8, 0x1BA9), (0x1BAB, 0x1BAD), (0x1BE6, 0x1BE6), (0x1BE8, 0x1BE9), (0x1BED, 0x1BED),
    (0x1BEF, 0x1BF1), (0x1C2C, 0x1C33), (0x1C36, 0x1C37), (0x1CD0, 0x1CD2), (0x1CD4, 0x1CE0), (0x1CE2, 0x1CE8),
    (0x1CED, 0x1CED), (0x1CF4, 0x1CF4), (0x1CF8, 0x1CF9), (0x1DC0, 0x1DFF), (0x20D0, 0x20DC), (0x20E1, 0x20E1),
    (0x20E5, 0x20F0), (0x2CEF, 0x2CF1), (0x2D7F, 0x2D7F), (0x2DE0, 0x2DFF), (0x302A, 0x302D), (0x3099, 0x309A),
    (0xA66F, 0xA66F), (0xA674, 0xA67D), (0xA69E, 0xA69F), (0xA6F0, 0xA6F1), (0xA802, 0xA802), (0xA806, 0xA806),
    (0xA80B, 0xA80B), (0xA825, 0xA826), (0xA82C, 0xA82C), (0xA8C4, 0xA8C5), (0xA8E0, 0xA8F1), (0xA8FF, 0xA8FF),
    (0xA926, 0xA92D), (0xA947, 0xA951), (0xA980, 0xA982), (0xA9B3, 0xA9B3), (0xA9B6, 0xA9B9), (0xA9BC, 0xA9BD),
    (0xA9E5, 0xA9E5), (0xAA29, 0xAA2E), (0xAA31, 0xAA32), (0xAA35, 0xAA36), (0xAA43, 0xAA43), (0xAA4C, 0xAA4C),
    (0xAA7C, 0xAA7C), (0xAAB0, 0xAAB0), (0xAAB2, 0xAAB4), (0xAAB7, 0xAAB8), (0xAABE, 0xAABF), (0xAAC1, 0xAAC1),
    (0xAAEC, 0xAAED), (0xAAF6, 0xAAF6), (0xABE5, 0xABE5), (0xABE8, 0xABE8), (0xABED, 0xABED), (0xFB1E, 0xFB1E),
    (0xFE00, 0xFE0F), (0xFE20, 0xFE2F), (0x101FD, 0x101FD), (0x102E0, 0x102E0), (0x10376, 0x1037A), (0x10A01, 0x10A03),
    (0x10A05, 0x10A06), (0x10A0C, 0x10A0F), (0x10A38, 0x10A3A), (0x10A3F, 0x10A3F), (0x10AE5, 0x10AE6), (0x10D24, 0x10D27),
    (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11001, 0x11001), (0x11038, 0x11046), (0x11070, 0x11070),
    (0x11073, 0x11074), (0x1107F, 0x11081), (0x110B3, 0x110B6), (0x110B9, 0x110BA), (0x110C2, 0x110C2), (0x11100, 0x11102),
    (0x11127, 0x1112B), (0x1112D, 0x11134), (0x11173, 0x11173), (0x11180, 0x11181), (0x111B6, 0x111BE), (0x111C9, 0x111CC),
    (0x111CF, 0x111CF), (0x1122F, 0x11231), (0x11234, 0x11234), (0x11236, 0x11237), (0x1123E, 0x1123E), (0x112DF, 0x112DF),
    (0x112E3, 0x112EA), (0x11300, 0x11301), (0x1133B, 0x1133C), (0x11340, 0x11340), (0x11366, 0x1136C), (0x11370, 0x11374),
    (0x11438, 0x1143F), (0x11442, 0x11444), (0x11446, 0x11446), (0x1145E, 0x1145E), (0x114B3, 0x114B8), (0x114BA, 0x114BA),
    (0x114BF, 0x114C0), (0x114C2, 0x114C3), (0x115B2, 0x115B5), (0x115BC, 0x115BD), (0x115BF, 0x115C0), (0x115DC, 0x115DD),
    (0x11633, 0x1163A), (0x1163D, 0x1163D), (0x1163F, 0x11640), (0x116AB, 0x116AB), (0x116AD, 0x116AD), (0x116B0, 0x116B5),
    (0x116B7, 0x116B7), (0x1171D, 0x1171F), (0x11722, 0x11725), (0x11727, 0x1172B), (0x1182F, 0x11837), (0x11839, 0x1183A),
    (0x1193B, 0x1193C), (0x1193E, 0x1193E), (0x11943, 0x11943), (0x119D4, 0x119D7), (0x119DA, 0x119DB), (0x119E0, 0x119E0),
    (0x11A01, 0x11A0A), (0x11A33, 0x11A38), (0x11A3B, 0x11A3E), (0x11A47, 0x11A47), (0x11A51, 0x11A56), (0x11A59, 0x11A5B),
    (0x11A8A, 0x11A96), (0x11A98, 0x11A99), (0x11C30, 0x11C36), (0x11C38, 0x11C3D), (0x11C3F, 0x11C3F), (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3), (0x11CB5, 0x11CB6), (0x11D31, 0x11D36), (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D90, 0x11D91), (0x11D95, 0x11D95), (0x11D97, 0x11D97), (0x11EF3, 0x11EF4),
    (0x16AF0, 0x16AF4), (0x16B30, 0x16B36), (0x16F4F, 0x16F4F), (0x16F8F, 0x16F92), (0x16FE4, 0x16FE4), (0x1BC9D, 0x1BC9E),
    (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1D167, 0x1D169), (0x1D17B, 0x1D182), (0x1D185, 0x1D18B), (0x1D1AA, 0x1D1AD),
    (0x1D242, 0x1D244), (0x1DA00, 0x1DA36), (0x1DA3B, 0x1DA6C), (0x1DA75, 0x1DA75), (0x1DA84, 0x1DA84), (0x1DA9B, 0x1DA9F),
    (0x1DAA1, 0x1DAAF), (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A),
    (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E8D0, 0x1E8D6), (0x1E944, 0x1E94A), (0xE0100, 0xE01EF),
];

/// Categories Cc and Cf except tab, LF and CR (BERT's `_is_control`).
#[rustfmt::skip]
const CONTROL_RANGES: &[(u32, u32)] = &[
    (0x0000, 0x0008), (0x000B, 0x000C), (0x000E, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x0600, 0x0605),
    (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

/// Pairs (character, base) for BERT's accent stripping: every character whose
/// NFD minus category-Mn marks is a single different character, followed by
/// it; except in U+AC00-U+D7A3, U+F900-U+FAFF, U+2F800-U+2FA1F. (43 characters whose
/// result is longer, mostly Indic two-part vowel signs, are left out.)
#[rustfmt::skip]
const ACCENT_PAIRS: &str = concat!(
    "ÀAÁAÂAÃAÄAÅAÇCÈEÉEÊEËEÌIÍIÎIÏIÑNÒOÓOÔOÕOÖOÙUÚUÛUÜUÝYàaáaâaãaäaåa",
    "çcèeéeêeëeìiíiîiïiñnòoóoôoõoöoùuúuûuüuýyÿyĀAāaĂAăaĄAąaĆCćcĈCĉcĊC",
    "ċcČCčcĎDďdĒEēeĔEĕeĖEėeĘEęeĚEěeĜGĝgĞGğgĠGġgĢGģgĤHĥhĨIĩiĪIīiĬIĭiĮI",
    "įiİIĴJĵjĶKķkĹLĺlĻLļlĽLľlŃNńnŅNņnŇNňnŌOōoŎOŏoŐOőoŔRŕrŖRŗrŘRřrŚSśs",
    "ŜSŝsŞSşsŠSšsŢTţtŤTťtŨUũuŪUūuŬUŭuŮUůuŰUűuŲUųuŴWŵwŶYŷyŸYŹZźzŻZżzŽZ",
    "žzƠOơoƯUưuǍAǎaǏIǐiǑOǒoǓUǔuǕUǖuǗUǘuǙUǚuǛUǜuǞAǟaǠAǡaǢÆǣæǦGǧgǨKǩkǪO",
    "ǫoǬOǭoǮƷǯʒǰjǴGǵgǸNǹnǺAǻaǼÆǽæǾØǿøȀAȁaȂAȃaȄEȅeȆEȇeȈIȉiȊIȋiȌOȍoȎOȏo",
    "ȐRȑrȒRȓrȔUȕuȖUȗuȘSșsȚTțtȞHȟhȦAȧaȨEȩeȪOȫoȬOȭoȮOȯoȰOȱoȲYȳyʹʹ;;΅¨ΆΑ",
    "··ΈΕΉΗΊΙΌΟΎΥΏΩΐιΪΙΫΥάαέεήηίιΰυϊιϋυόούυώωϓϒϔϒЀЕЁЕЃГЇІЌКЍИЎУЙИйиѐе",
    "ёеѓгїіќкѝиўуѶѴѷѵӁЖӂжӐАӑаӒАӓаӖЕӗеӚӘӛәӜЖӝжӞЗӟзӢИӣиӤИӥиӦОӧоӪӨӫөӬЭӭэ",
    "ӮУӯуӰУӱуӲУӳуӴЧӵчӸЫӹыآاأاؤوإائيۀەۂہۓےऩनऱरऴळक़कख़खग़गज़जड़डढ़ढफ़फय़यড়ডঢ়ঢয়য",
    "ਲ਼ਲਸ਼ਸਖ਼ਖਗ਼ਗਜ਼ਜਫ਼ਫୈେଡ଼ଡଢ଼ଢೀೕೇೕೈೖೊೂේෙགྷགཌྷཌདྷདབྷབཛྷཛཀྵཀဦဥᬻᬵᬽᬵᭃᬵḀAḁaḂBḃbḄBḅbḆBḇb",
    "ḈCḉcḊDḋdḌDḍdḎDḏdḐDḑdḒDḓdḔEḕeḖEḗeḘEḙeḚEḛeḜEḝeḞFḟfḠGḡgḢHḣhḤHḥhḦHḧh",
    "ḨHḩhḪHḫhḬIḭiḮIḯiḰKḱkḲKḳkḴKḵkḶLḷlḸLḹlḺLḻlḼLḽlḾMḿmṀMṁmṂMṃmṄNṅnṆNṇn",
    "ṈNṉnṊNṋnṌOṍoṎOṏoṐOṑoṒOṓoṔPṕpṖPṗpṘRṙrṚRṛrṜRṝrṞRṟrṠSṡsṢSṣsṤSṥsṦSṧs",
    "ṨSṩsṪTṫtṬTṭtṮTṯtṰTṱtṲUṳuṴUṵuṶUṷuṸUṹuṺUṻuṼVṽvṾVṿvẀWẁwẂWẃwẄWẅwẆWẇw",
    "ẈWẉwẊXẋxẌXẍxẎYẏyẐZẑzẒZẓzẔZẕzẖhẗtẘwẙyẛſẠAạaẢAảaẤAấaẦAầaẨAẩaẪAẫaẬA",
    "ậaẮAắaẰAằaẲAẳaẴAẵaẶAặaẸEẹeẺEẻeẼEẽeẾEếeỀEềeỂEểeỄEễeỆEệeỈIỉiỊIịiỌO",
    "ọoỎOỏoỐOốoỒOồoỔOổoỖOỗoỘOộoỚOớoỜOờoỞOởoỠOỡoỢOợoỤUụuỦUủuỨUứuỪUừuỬU",
    "ửuỮUữuỰUựuỲYỳyỴYỵyỶYỷyỸYỹyἀαἁαἂαἃαἄαἅαἆαἇαἈΑἉΑἊΑἋΑἌΑἍΑἎΑἏΑἐεἑεἒε",
    "ἓεἔεἕεἘΕἙΕἚΕἛΕἜΕἝΕἠηἡηἢηἣηἤηἥηἦηἧηἨΗἩΗἪΗἫΗἬΗἭΗἮΗἯΗἰιἱιἲιἳιἴιἵιἶι",
    "ἷιἸΙἹΙἺΙἻΙἼΙἽΙἾΙἿΙὀοὁοὂοὃοὄοὅοὈΟὉΟὊΟὋΟὌΟὍΟὐυὑυὒυὓυὔυὕυὖυὗυὙΥὛΥὝΥ",
    "ὟΥὠωὡωὢωὣωὤωὥωὦωὧωὨΩὩΩὪΩὫΩὬΩὭΩὮΩὯΩὰαάαὲεέεὴηήηὶιίιὸοόοὺυύυὼωώωᾀα",
    "ᾁαᾂαᾃαᾄαᾅαᾆαᾇαᾈΑᾉΑᾊΑᾋΑᾌΑᾍΑᾎΑᾏΑᾐηᾑηᾒηᾓηᾔηᾕηᾖηᾗηᾘΗᾙΗᾚΗᾛΗᾜΗᾝΗᾞΗᾟΗᾠω",
    "ᾡωᾢωᾣωᾤωᾥωᾦωᾧωᾨΩᾩΩᾪΩᾫΩᾬΩᾭΩᾮΩᾯΩᾰαᾱαᾲαᾳαᾴαᾶαᾷαᾸΑᾹΑᾺΑΆΑᾼΑιι῁¨ῂηῃηῄη",
    "ῆηῇηῈΕΈΕῊΗΉΗῌΗ῍᾿῎᾿῏᾿ῐιῑιῒιΐιῖιῗιῘΙῙΙῚΙΊΙ῝῾῞῾῟῾ῠυῡυῢυΰυῤρῥρῦυῧυῨΥ",
    "ῩΥῪΥΎΥῬΡ῭¨΅¨``ῲωῳωῴωῶωῷωῸΟΌΟῺΩΏΩῼΩ´´    ΩΩKKÅA↚←↛→↮↔⇍⇐⇎⇔⇏⇒∄∃∉∈∌∋",
    "∤∣∦∥≁∼≄≃≇≅≉≈≠=≢≡≭≍≮<≯>≰≤≱≥≴≲≵≳≸≶≹≷⊀≺⊁≻⊄⊂⊅⊃⊈⊆⊉⊇⊬⊢⊭⊨⊮⊩⊯⊫⋠≼⋡≽⋢⊑⋣⊒⋪⊲",
    "⋫⊳⋬⊴⋭⊵〈〈〉〉⫝̸⫝がかぎきぐくげけごこざさじしずすぜせぞそだたぢちづつでてどとばはぱはびひぴひぶふぷふべへぺへぼほぽほゔう",
    "ゞゝガカギキグクゲケゴコザサジシズスゼセゾソダタヂチヅツデテドトバハパハビヒピヒブフプフベヘペヘボホポホヴウヷワヸヰヹヱヺヲヾヽ",
    "יִיײַײשׁששׂששּׁששּׂשאַאאָאאּאבּבגּגדּדהּהוּוזּזטּטיּיךּךכּכלּלמּמנּנסּסףּףפּפצּצקּקרּרשּשתּתוֹובֿב",
    "כֿכפֿפ𑂚𑂙𑂜𑂛𑂫𑂥𑒻𑒹",
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected tokenisations, generated with the teacher's own tokenizer
    /// (transformers' BertTokenizer on the package's vocab.txt, which the
    /// pure-Python BertTokenizerLegacy agrees with on all of these), with the
    /// `[UNK]` tokens removed since this module drops them.
    const CASES: &[(&str, &[&str])] = &[
        ("Hello, World!", &["hello", ",", "world", "!"]),
        ("unaffable", &["una", "##ffa", "##ble"]),
        (
            "Don't stop believin' — it's 5 o'clock!",
            &[
                "don", "'", "t", "stop", "bel", "##ie", "##vin", "'", "—", "it", "'", "s", "5",
                "o", "'", "clock", "!",
            ],
        ),
        (
            "Café naïve résumé Ñandú Øresund straße Ærøskøbing",
            &[
                "cafe", "naive", "resume", "nan", "##du", "ø", "##res", "##und", "st", "##raße",
                "æ", "##r", "##ø", "##sk", "##ø", "##bing",
            ],
        ),
        (
            "ÀÉÎÕÜ àéîõü Çç Ÿÿ Łł Đđ Şş Ğğ İstanbul",
            &[
                "ae", "##io", "##u", "ae", "##io", "##u", "cc", "y", "##y", "ł", "##ł", "đ", "##đ",
                "ss", "g", "##g", "istanbul",
            ],
        ),
        (
            "I paid $3.50 for 2 coffees on 12/05/2023 (at 7:30pm).",
            &[
                "i", "paid", "$", "3", ".", "50", "for", "2", "coffee", "##s", "on", "12", "/",
                "05", "/", "202", "##3", "(", "at", "7", ":", "30", "##pm", ")", ".",
            ],
        ),
        (
            "東京タワーに行きました。ガイドブック",
            &[
                "東", "京", "タ", "##ワ", "##ー", "##に", "行", "き", "##ま", "##し", "##た", "。",
                "カ", "##イ", "##ト", "##フ", "##ッ", "##ク",
            ],
        ),
        (
            "I love pizza🍕 and ❤\u{fe0f} emoji 😀 !",
            &["i", "love", "and", "em", "##oj", "##i", "!"],
        ), // Python: ['i', 'love', '[UNK]', 'and', '[UNK]', 'em', '##oj', '##i', '[UNK]', '!']
        (
            "supercalifragilisticexpialidocious",
            &[
                "super", "##cal", "##if", "##rag", "##ilis", "##tic", "##ex", "##pia", "##lid",
                "##oc", "##ious",
            ],
        ),
        (
            "e-mail: john.doe@example.com #hashtag_2024",
            &[
                "e", "-", "mail", ":", "john", ".", "doe", "@", "example", ".", "com", "#", "hash",
                "##tag", "_", "202", "##4",
            ],
        ),
        (
            "  multiple\tspaces\nand\r\nnewlines  ",
            &["multiple", "spaces", "and", "new", "##lines"],
        ),
        (
            "zero\u{200b}width soft\u{ad}hyphen nul\u{0}byte vtab\u{b}char",
            &[
                "zero", "##wi", "##dt", "##h", "soft", "##hy", "##ph", "##en", "nu", "##lby",
                "##te", "vt", "##ab", "##cha", "##r",
            ],
        ),
        (
            "Melanie: I'm swamped with the kids & work. What's up?",
            &[
                "melanie", ":", "i", "'", "m", "swamp", "##ed", "with", "the", "kids", "&", "work",
                ".", "what", "'", "s", "up", "?",
            ],
        ),
        (
            "Vietnamese: Tiếng Việt có dấu; Greek: Αθήνα; Russian: Ёлка й",
            &[
                "vietnamese",
                ":",
                "tie",
                "##ng",
                "viet",
                "co",
                "da",
                "##u",
                ";",
                "greek",
                ":",
                "α",
                "##θ",
                "##η",
                "##ν",
                "##α",
                ";",
                "russian",
                ":",
                "е",
                "##л",
                "##ка",
                "и",
            ],
        ),
        (
            "한국어 텍스트",
            &[
                "ᄒ", "##ᅡ", "##ᆫ", "##ᄀ", "##ᅮ", "##ᆨ", "##ᄋ", "##ᅥ", "ᄐ", "##ᅦ", "##ᆨ", "##ᄉ", "##ᅳ",
                "##ᄐ", "##ᅳ",
            ],
        ),
        (
            "e\u{301}cole decomposed",
            &["ecole", "deco", "##mp", "##osed"],
        ),
        (
            "«Bonjour», dit-il… “quoted” ¿qué? ¡sí!",
            &[
                "«", "bon", "##jou", "##r", "»", ",", "di", "##t", "-", "il", "…", "“", "quoted",
                "”", "¿", "que", "?", "¡", "si", "!",
            ],
        ),
    ];

    #[test]
    fn tokenisations_match_bert_uncased() {
        for (text, expected) in CASES {
            assert_eq!(tokenize_to_strings(text), *expected, "tokenising {text:?}");
        }
    }

    #[test]
    fn ids_match_the_vocabulary() {
        assert_eq!(tokenize("unaffable"), vec![14477, 20961, 3468]);
        assert_eq!(tokenize("[CLS] hello"), tokenize("[ cls ] hello"));
        assert!(tokenize("").is_empty());
    }

    #[test]
    fn over_long_words_are_unknown() {
        // BERT: more than 100 characters is [UNK]; exactly 100 still segments.
        assert!(tokenize(&"a".repeat(101)).is_empty());
        assert_eq!(
            tokenize_to_strings(&format!("{} b", "a".repeat(100))).len(),
            51
        );
        // A word with an unknown piece is unknown as a whole (Python: [UNK]).
        assert!(tokenize("pizza\u{1f355}x").is_empty());
    }

    /// Embeddings pinned against the Python twin in
    /// tools/distill-embedder/eval_locomo.py (`StaticEmbedder`): the norm of
    /// the mean of the rows and the first 8 components of the normalised vector.
    #[test]
    fn embeddings_match_python() {
        let cases: [(&str, usize, f32, [f32; 8]); 3] = [
            (
                "Caroline went to an LGBTQ support group yesterday.",
                10,
                0.395_684_9,
                [
                    0.827635, -0.1372, -0.069514, -0.117462, -0.053225, 0.019481, -0.017548,
                    0.004113,
                ],
            ),
            (
                "What does Melanie like to paint? \u{1f3a8}",
                7,
                0.302_644_4,
                [
                    0.746734, -0.108246, -0.115968, 0.093748, -0.130265, -0.027159, -0.06133,
                    0.090339,
                ],
            ),
            (
                "Caf\u{e9} cr\u{e8}me & na\u{ef}ve r\u{e9}sum\u{e9}",
                6,
                0.472_582_8,
                [
                    0.772794, -0.086188, -0.050804, -0.040874, 0.012611, -0.127497, 0.002061,
                    0.037116,
                ],
            ),
        ];
        for (text, n_tokens, mean_norm, head) in cases {
            let (sum, n) = sum_rows(text);
            assert_eq!(n, n_tokens, "{text:?}");
            let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt() / n as f32;
            assert!(
                (norm - mean_norm).abs() < 1e-4,
                "{text:?}: mean norm {norm}"
            );
            let v = embed(text);
            assert_eq!(v.len(), BUILTIN_DIM);
            let unit = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((unit - 1.0).abs() < 1e-5, "{text:?}: norm {unit}");
            for (i, (a, b)) in v.iter().zip(head).enumerate() {
                assert!((a - b).abs() < 1e-4, "{text:?}[{i}]: {a} vs {b}");
            }
        }
    }

    #[test]
    fn unknown_text_embeds_to_zeros() {
        for text in ["", "   ", "\u{1f600}\u{1f355}"] {
            let v = embed(text);
            assert_eq!(v.len(), BUILTIN_DIM);
            assert!(v.iter().all(|&x| x == 0.0), "{text:?}");
        }
    }

    #[test]
    fn diet_is_closer_to_eating_than_to_work() {
        let cos = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let fact = embed("Is vegetarian");
        let eat = embed("what does the user eat?");
        let work = embed("where does the user work?");
        assert!(cos(&fact, &eat) > cos(&fact, &work) + 0.05);
    }

    #[test]
    fn assets_are_consistent() {
        let m = model();
        assert_eq!(m.tokens.len(), VOCAB_SIZE);
        assert_eq!(m.scales.len(), VOCAB_SIZE);
        assert!(m.scales.iter().all(|s| s.is_finite() && *s > 0.0));
        assert_eq!(accent_base('\u{e9}'), Some('e'));
        assert_eq!(accent_base('\u{f8}'), None); // ø has no decomposition
    }
}

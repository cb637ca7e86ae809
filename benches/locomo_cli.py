#!/usr/bin/env python3
"""LoCoMo evidence recall through the engram command line, one process per call.

Every turn becomes a raw record {"content": "Speaker: text", "created",
"session", "meta": {"dia_id"}} captured with `capture --raw --input jsonl`
into a fresh vault per conversation (no image captions, every turn at its
session's time); every question of categories 1-4 is a `recall -k 10 --json`.
Prints R@5 and R@10 overall and per category, and the median recall time.

    python3 benches/locomo_cli.py [--data ../shared/data/locomo] [--bin target/release/engram]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def session_time(text):
    clock, date = text.split(" on ")
    t = datetime.datetime.strptime(f"{date.strip()} {clock.strip().upper()}", "%d %B, %Y %I:%M %p")
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/locomo")
    ap.add_argument("--bin", default="target/release/engram")
    args = ap.parse_args()
    engram = os.path.abspath(args.bin)
    totals = {}
    times = []
    for path in sorted(Path(args.data).glob("*.json")):
        conv = json.loads(path.read_text())
        lines = []
        n = 1
        while f"session_{n}" in conv:
            when = session_time(conv[f"session_{n}_date_time"])
            for turn in conv[f"session_{n}"]:
                lines.append(json.dumps({
                    "content": f"{turn['speaker']}: {turn['text']}",
                    "created": when,
                    "session": f"{path.stem}-s{n}",
                    "meta": {"dia_id": turn["dia_id"]},
                }))
            n += 1
        with tempfile.TemporaryDirectory() as vault:
            env = dict(os.environ, ENGRAM_VAULT=vault)
            for key in ("ENGRAM_EMBED_URL", "ENGRAM_LLM_URL"):
                env.pop(key, None)
            subprocess.run([engram, "-q", "capture", "--raw", "--input", "jsonl"],
                           input="\n".join(lines), text=True, env=env, check=True)
            for q in conv["qa"]:
                evidence = [e for e in q.get("evidence", []) if e.startswith("D")]
                if q["category"] not in (1, 2, 3, 4) or not evidence:
                    continue
                started = time.perf_counter()
                out = subprocess.run([engram, "--json", "recall", "-k", "10", q["question"]],
                                     capture_output=True, text=True, env=env, check=True)
                times.append((time.perf_counter() - started) * 1000)
                found = [r.get("meta", {}).get("dia_id") for r in json.loads(out.stdout)["results"]]
                for key in ("all", q["category"]):
                    t = totals.setdefault(key, [0.0, 0.0, 0])
                    t[0] += sum(e in found[:5] for e in evidence) / len(evidence)
                    t[1] += sum(e in found[:10] for e in evidence) / len(evidence)
                    t[2] += 1
    print("| questions | R@5 | R@10 |")
    print("|---|---|---|---|")
    for key in ["all", 1, 2, 3, 4]:
        r5, r10, n = totals.get(key, [0, 0, 0])
        print(f"| {key} | {n} | {r5 / max(n, 1):.3f} | {r10 / max(n, 1):.3f} |")
    print(f"recall: {statistics.median(times):.1f} ms median over {len(times)} processes")


main()

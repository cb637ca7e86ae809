#!/usr/bin/env bash
# Core benchmark: whole-process timings of engram on a generated vault of N records
# (default 10,000), each next to a plain-Unix baseline doing the nearest equivalent
# work in the same run, with the ratio. Needs hyperfine and python3; strace optional.
#   bash benches/core.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-10000}
cargo build --release --quiet
E=$PWD/target/release/engram
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 benches/gen_records.py "$N" > "$WORK/records.jsonl"
export ENGRAM_NOW=2026-11-20T12:00:00Z
unset ENGRAM_EMBED_URL ENGRAM_LLM_URL ENGRAM_VAULT

echo "== capture --raw --input jsonl of $N records (fresh vault each run)"
hyperfine --runs 3 --export-json "$WORK/capture.json" \
  --prepare "rm -rf $WORK/v $WORK/split; mkdir -p $WORK/split" \
  -n engram "$E --vault $WORK/v -q capture --raw --input jsonl --file $WORK/records.jsonl" \
  -n "baseline: split -l1 into $N files" "cd $WORK/split && split -l 1 -a 5 $WORK/records.jsonl rec-"
python3 - "$WORK/capture.json" "$N" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]; n = int(sys.argv[2])
e, b = r[0]["mean"], r[1]["mean"]
print(f"capture: {e:.2f} s for {n} records = {n/e:,.0f} records/s; baseline {b:.2f} s; ratio {e/b:.1f}x")
PY

rm -rf "$WORK/v"; "$E" --vault "$WORK/v" -q capture --raw --input jsonl --file "$WORK/records.jsonl"
echo "== recall (warm, no changes) vs grep -ril over the same files"
hyperfine --warmup 3 --runs 30 --export-json "$WORK/recall.json" \
  -n "engram recall" "$E --vault $WORK/v recall 'sourdough bread weekend' -k 10" \
  -n "engram recall --user alice --kind episodic" "$E --vault $WORK/v recall 'sourdough bread weekend' --user alice --kind episodic -k 10" \
  -n "baseline: grep -ril sourdough" "grep -ril sourdough $WORK/v/episodic $WORK/v/semantic"
echo "== sync with nothing changed vs find over the same tree"
hyperfine --warmup 3 --runs 30 --export-json "$WORK/sync.json" \
  -n "engram sync" "$E --vault $WORK/v -q sync" \
  -n "baseline: find -name '*.md' -newer" "find $WORK/v -name '*.md' -newer $WORK/v/.engram/config.yaml"
python3 - "$WORK/recall.json" "$WORK/sync.json" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))["results"]; syn = json.load(open(sys.argv[2]))["results"]
ms = lambda r: r["mean"] * 1000
print(f"recall: {ms(rec[0]):.1f} ms (filtered {ms(rec[1]):.1f} ms); grep baseline {ms(rec[2]):.1f} ms; ratio {ms(rec[0])/ms(rec[2]):.2f}x")
print(f"sync, no change: {ms(syn[0]):.1f} ms; find baseline {ms(syn[1]):.1f} ms; ratio {ms(syn[0])/ms(syn[1]):.2f}x")
PY

if command -v strace >/dev/null; then
  echo "== files a recall opens (must be none of the records)"
  opened=$(strace -f -e trace=openat "$E" --vault "$WORK/v" recall 'sourdough' 2>&1 >/dev/null | grep -c '\.md"' || true)
  echo "record files opened by one recall: $opened"
fi
echo "== peak memory (max RSS, KiB)"
/usr/bin/time -f "recall: %M KiB" "$E" --vault "$WORK/v" recall 'sourdough bread' >/dev/null
/usr/bin/time -f "sync: %M KiB" "$E" --vault "$WORK/v" -q sync

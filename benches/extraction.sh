#!/usr/bin/env bash
# How much of what people say does capture keep? Runs the shared LoCoMo extraction
# scorer (../shared/bench/locomo_extraction.py) on the dev conversations, for the
# release binary and, in the same run, for the first-person-sentence baseline
# (benches/extraction_baseline.py), and prints both with their ratios.
#   bash benches/extraction.sh [SHARED_DIR]     (default ../shared)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
scorer="$shared/bench/locomo_extraction.py"
convs=("$shared"/data/locomo/conv-*.json)
cargo build --release --quiet
engram_out=$(mktemp)
base_out=$(mktemp)
echo "== engram (rules, offline)"
python3 "$scorer" target/release/engram "${convs[@]}" | tee "$engram_out"
echo "== baseline: every first-person, non-question sentence verbatim"
python3 "$scorer" benches/extraction_baseline.py "${convs[@]}" | tee "$base_out"
python3 - "$engram_out" "$base_out" <<'PY'
import re, sys
def totals(path):
    last = open(path).read().strip().splitlines()[-1]
    return [float(x) for x in re.findall(r"(?:recall|precision|F1) ([0-9.]+)", last)]
e, b = totals(sys.argv[1]), totals(sys.argv[2])
for name, x, y in zip(["observation recall", "extraction precision", "F1"], e, b):
    print(f"{name:22} engram {x:.3f}  baseline {y:.3f}  ratio {x / y:.2f}")
PY
rm -f "$engram_out" "$base_out"

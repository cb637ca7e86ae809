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
line = re.compile(r"^(\S+?):.*?recall ([0-9.]+).*?precision ([0-9.]+)")
def rows(path):
    out = {}
    for l in open(path):
        m = line.match(l.strip())
        if m:
            r, p = float(m[2]), float(m[3])
            out[m[1]] = (r, p, 2 * r * p / (r + p) if r + p else 0.0)
    return out
e, b = rows(sys.argv[1]), rows(sys.argv[2])
print(f"{'':14} {'engram R/P/F1':>20}   {'baseline R/P/F1':>20}   F1 ratio")
for name in e:
    x, y = e[name], b.get(name, (0, 0, 0))
    ratio = x[2] / y[2] if y[2] else float("nan")
    print(f"{name:14} {x[0]:.3f} {x[1]:.3f} {x[2]:.3f}   {y[0]:.3f} {y[1]:.3f} {y[2]:.3f}   {ratio:.2f}")
PY
rm -f "$engram_out" "$base_out"

#!/usr/bin/env bash
# Scale benchmark: whole-process timings of engram on generated vaults of 1K,
# 10K and 100K records, side by side in one run with `rg -i -l -F` over the same
# files, `find -newer`, and qmd when it is installed. Prints a table with
# medians, p90s, peak RSS and ratios. Needs hyperfine, rg and python3.
#   bash benches/scale.sh [SIZES...]        (default: 1000 10000 100000)
#   ENGRAM_BIN=path/to/engram bash benches/scale.sh 100000   (another build)
#   QUERIES=20 RUNS=3 bash benches/scale.sh 100000           (fewer queries)
#   SKIP_QMD=1 bash benches/scale.sh                          (leave qmd out)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${*:-1000 10000 100000}
QUERIES=${QUERIES:-50}
RUNS=${RUNS:-3}
. benches/setup.sh
needs hyperfine rg python3

# The queries: keyword pairs drawn from the generator's words (deterministic).
python3 - "$QUERIES" > "$WORK/queries.txt" <<'PY'
import random, sys
rng = random.Random(7)
words = ["coffee", "lisbon", "berlin", "bicycle", "sourdough", "garden", "tax", "jazz",
         "kubernetes", "roof", "chess", "marathon", "tomatoes", "quarterly", "ceramic",
         "rust", "dentist", "camping", "python", "piano", "birthday", "vegetarian", "museum",
         "weekend", "friends", "morning", "rain", "kids", "cheap", "work"]
for _ in range(int(sys.argv[1])):
    print(" ".join(rng.sample(words, 2)))
PY

# hyperfine over every query: one command per query, RUNS runs each; prints
# "median p90" in ms over all runs of all queries. `rg` and qmd exit 1 when
# nothing matches, so they are run with -i.
over_queries() { # name template(with {q}) [extra hyperfine args]
  local name=$1 template=$2; shift 2
  local cmds=()
  while read -r q; do cmds+=("${template//\{q\}/$q}"); done < "$WORK/queries.txt"
  hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$WORK/$name.json" "$@" "${cmds[@]}" >/dev/null 2>&1
  python3 - "$WORK/$name.json" <<'PY'
import json, sys
times = sorted(t for r in json.load(open(sys.argv[1]))["results"] for t in r["times"])
pick = lambda p: times[min(len(times) - 1, int(p * len(times)))] * 1000
print(f"{pick(0.5):.1f} {pick(0.9):.1f}")
PY
}

one() { # name command: median ms of RUNS*5 runs
  hyperfine -N --warmup 2 --runs $((RUNS * 5)) --export-json "$WORK/$1.json" "$2" >/dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(f\"{r['median']*1000:.1f}\")" "$WORK/$1.json"
}

rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1/1024}'; }

RESULTS=$WORK/results.txt
: > "$RESULTS"
for N in $SIZES; do
  echo "== $N records" >&2
  V=$WORK/v$N
  python3 benches/gen_records.py "$N" > "$WORK/records.jsonl"
  # Bulk raw capture into a fresh vault.
  start=$(date +%s.%N)
  bulk_rss=$(rss "$E" --vault "$V" -q capture --raw --input jsonl --file "$WORK/records.jsonl")
  bulk_s=$(python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.2f}')" "$start")
  bulk_rate=$(python3 -c "print(f'{$N/$bulk_s:,.0f}')")
  # Reindex from the files.
  start=$(date +%s.%N)
  reindex_rss=$(rss "$E" --vault "$V" -q reindex)
  reindex_s=$(python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.2f}')" "$start")
  "$E" --vault "$V" -q sync
  DIRS="$V/episodic $V/semantic"
  read -r rec_med rec_p90 < <(over_queries "recall$N" "$E --vault $V recall '{q}' -k 10 --json")
  read -r rg_med rg_p90 < <(over_queries "rg$N" "rg -i -l -F '{q}' $DIRS" -i)
  recall_rss=$(rss "$E" --vault "$V" recall "sourdough bread" -k 10 --json)
  sync_med=$(one "sync$N" "$E --vault $V -q sync")
  find_med=$(one "find$N" "find $V -name '*.md' -newer $V/.engram/config.yaml")
  sync_rss=$(rss "$E" --vault "$V" -q sync)
  # A sync after one edit (a different file each run).
  first=$(find "$V/episodic" -name '*.md' -print -quit)
  hyperfine -N --warmup 1 --runs $((RUNS * 3)) --export-json "$WORK/edit$N.json" \
    --prepare "sh -c 'echo \" edited\" >> $first'" "$E --vault $V -q sync" >/dev/null 2>&1
  edit_med=$(python3 -c "import json,sys; print(f\"{json.load(open(sys.argv[1]))['results'][0]['median']*1000:.1f}\")" "$WORK/edit$N.json")
  # Extracting captures: one run of each of RUNS*5 distinct sentences, so
  # each one writes.
  hyperfine -N --warmup 0 --runs 1 --export-json "$WORK/cap$N.json" \
    --parameter-list i $(seq -s, 0 $((RUNS * 5 - 1))) \
    "$E --vault $V -q capture 'I moved to city number {i} last spring and my neighbour Ana{i} teaches violin'" >/dev/null 2>&1 || true
  cap_med=$(python3 - "$WORK/cap$N.json" <<'PY' 2>/dev/null || echo "n/a"
import json, sys
ts = sorted(t for r in json.load(open(sys.argv[1]))["results"] for t in r["times"])
print(f"{ts[len(ts)//2]*1000:.1f}")
PY
)
  cap_rss=$(rss "$E" --vault "$V" -q capture "My sister Maria{N} works as a nurse in Braga")
  # The same reads with engram watch running.
  "$E" --vault "$V" -q watch >/dev/null 2>&1 &
  WATCH_PID=$!
  for _ in $(seq 100); do [ -S "$V/.engram/watch.sock" ] && break; sleep 0.1; done
  "$E" --vault "$V" -q sync
  sleep 1
  read -r w_med w_p90 < <(over_queries "wrecall$N" "$E --vault $V recall '{q}' -k 10 --json")
  w_rss=$(rss "$E" --vault "$V" recall "sourdough bread" -k 10 --json)
  w_sync=$(one "wsync$N" "$E --vault $V -q sync")
  hyperfine -N --warmup 0 --runs 1 --export-json "$WORK/wcap$N.json" \
    --parameter-list i $(seq -s, 100 $((100 + RUNS * 5 - 1))) \
    "$E --vault $V -q capture 'I moved to city number {i} last spring and my neighbour Ana{i} teaches violin'" >/dev/null 2>&1 || true
  wcap_med=$(python3 - "$WORK/wcap$N.json" <<'PY' 2>/dev/null || echo "n/a"
import json, sys
ts = sorted(t for r in json.load(open(sys.argv[1]))["results"] for t in r["times"])
print(f"{ts[len(ts)//2]*1000:.1f}")
PY
)
  kill "$WATCH_PID"; wait "$WATCH_PID" 2>/dev/null || true; WATCH_PID=
  # qmd, when installed: its own index of the same files.
  q_med=n/a; q_p90=n/a
  if [ -z "${SKIP_QMD:-}" ] && command -v qmd >/dev/null; then
    export XDG_CACHE_HOME=$WORK/qmd-cache XDG_CONFIG_HOME=$WORK/qmd-config
    if qmd collection add "$V" --name "bench$N" >/dev/null 2>&1 && qmd update >/dev/null 2>&1; then
      read -r q_med q_p90 < <(over_queries "qmd$N" "qmd search '{q}' -n 10 --json" -i)
    fi
    unset XDG_CACHE_HOME XDG_CONFIG_HOME
  fi
  echo "$N $rec_med $rec_p90 $w_med $w_p90 $rg_med $rg_p90 $q_med $q_p90 $recall_rss $w_rss $sync_med $w_sync $find_med $sync_rss $edit_med $reindex_s $reindex_rss $bulk_s $bulk_rate $bulk_rss $cap_med $wcap_med $cap_rss" >> "$RESULTS"
  rm -rf "$V"
done

python3 - "$RESULTS" "$QUERIES" "$RUNS" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
cols = ["N", "rec_med", "rec_p90", "w_med", "w_p90", "rg_med", "rg_p90", "q_med", "q_p90",
        "recall_rss", "w_rss", "sync_med", "w_sync", "find_med", "sync_rss", "edit_med",
        "reindex_s", "reindex_rss", "bulk_s", "bulk_rate", "bulk_rss", "cap_med", "wcap_med", "cap_rss"]
data = [dict(zip(cols, r)) for r in rows]
def ratio(a, b):
    try:
        return f"{float(a) / float(b):.2f}x"
    except (ValueError, ZeroDivisionError):
        return "n/a"
print(f"\nscale benchmark: {sys.argv[2]} queries x {sys.argv[3]} runs, whole processes, warm cache; times in ms unless marked\n")
head = "| | " + " | ".join(f"{int(d['N']):,} records" for d in data) + " |"
print(head)
print("|---|" + "---|" * len(data))
def line(label, f):
    print(f"| {label} | " + " | ".join(f(d) for d in data) + " |")
line("recall median / p90, no watcher", lambda d: f"{d['rec_med']} / {d['rec_p90']}")
line("recall median / p90, `engram watch` running", lambda d: f"{d['w_med']} / {d['w_p90']}")
line("`rg -i -l -F` median / p90", lambda d: f"{d['rg_med']} / {d['rg_p90']}")
line("qmd `search` median / p90", lambda d: f"{d['q_med']} / {d['q_p90']}")
line("recall / rg, no watcher", lambda d: ratio(d["rec_med"], d["rg_med"]))
line("recall / rg, watcher", lambda d: ratio(d["w_med"], d["rg_med"]))
line("recall / qmd, no watcher", lambda d: ratio(d["rec_med"], d["q_med"]))
line("recall peak RSS (MB), no watcher / watcher", lambda d: f"{d['recall_rss']} / {d['w_rss']}")
line("`sync`, nothing changed (no watcher / watcher)", lambda d: f"{d['sync_med']} / {d['w_sync']}")
line("`find -name '*.md' -newer`", lambda d: d["find_med"])
line("sync / find", lambda d: ratio(d["sync_med"], d["find_med"]))
line("sync peak RSS (MB)", lambda d: d["sync_rss"])
line("`sync` after one edit", lambda d: d["edit_med"])
line("`reindex` (s, peak MB)", lambda d: f"{d['reindex_s']} s, {d['reindex_rss']} MB")
line("bulk `capture --raw --input jsonl` (s, records/s, peak MB)", lambda d: f"{d['bulk_s']} s, {d['bulk_rate']}/s, {d['bulk_rss']} MB")
line("extracting capture median (no watcher / watcher)", lambda d: f"{d['cap_med']} / {d['wcap_med']}")
line("extracting capture peak RSS (MB)", lambda d: d["cap_rss"])
PY

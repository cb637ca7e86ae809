#!/usr/bin/env bash
# The agent-memory commands at scale: keyed facts, the context block and
# transcripts on a generated vault (default 100K records, 200 procedures with
# outcomes, 100 keys, a 200-message transcript), with `engram watch` running as
# an agent's server keeps one. Beside them, in the same run: a plain recall (what
# a context block costs over it) and `rg` for the same key (what a script would
# grep without engram), and a raw capture of one record (what a write costs).
# Prints medians and p90s in ms and the ratios.
#   bash benches/agent_memory.sh [N]            (default 100000)
#   ENGRAM_BIN=path/to/engram bash benches/agent_memory.sh
#   RUNS=30 bash benches/agent_memory.sh 10000
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
RUNS=${RUNS:-30}
. benches/setup.sh
needs hyperfine rg python3
V=$WORK/v

echo "== building a vault of $N records" >&2
python3 benches/gen_records.py "$N" > "$WORK/records.jsonl"
"$E" --vault "$V" -q capture --raw --input jsonl --file "$WORK/records.jsonl"
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
with open(f"{work}/procedures.jsonl", "w") as f:
    for i in range(200):
        f.write(json.dumps({"content": f"Procedure {i}: deploy the garden service with make "
                            f"release, then check the coffee health endpoint (variant {i})",
                            "kind": "procedural"}) + "\n")
chat = [{"role": "user" if i % 2 == 0 else "assistant",
         "content": f"Message {i} about the garden, the coffee and the trip to Lisbon."}
        for i in range(200)]
json.dump(chat, open(f"{work}/chat.json", "w"))
PY
"$E" --vault "$V" -q capture --raw --input jsonl --file "$WORK/procedures.jsonl"
"$E" --vault "$V" -q capture --raw --input chat --session bench --file "$WORK/chat.json"
for i in $(seq 1 100); do "$E" --vault "$V" -q set "bench.key$i" "value $i"; done
for id in $("$E" --vault "$V" --json list --kind procedural -k 20 | python3 -c \
  "import json,sys; print(' '.join(r['id'] for r in json.load(sys.stdin)['results']))"); do
  "$E" --vault "$V" -q outcome "$id" success
  "$E" --vault "$V" -q outcome "$id" failure
done

"$E" --vault "$V" -q watch >/dev/null 2>&1 &
WATCH_PID=$!
for _ in $(seq 100); do [ -S "$V/.engram/watch.sock" ] && break; sleep 0.1; done
"$E" --vault "$V" -q sync
sleep 1

names=(recall context context_budget session_start get history transcript set capture_raw rg_key)
cmds=(
  "$E --vault $V recall 'coffee garden'"
  "$E --vault $V recall --format context 'coffee garden'"
  "$E --vault $V recall --format context --budget 300 'coffee garden'"
  "$E --vault $V recall --format context --session bench"
  "$E --vault $V get bench.key50"
  "$E --vault $V history --key bench.key50"
  "$E --vault $V recall --session bench --format transcript --last 20"
  "$E --vault $V -q set bench.hot {i}"
  "$E --vault $V -q capture --raw 'deployed build {i} to staging'"
  "rg -l -F 'bench.key50' $V/semantic $V/episodic $V/procedural"
)
echo "== measuring ($RUNS runs each)" >&2
for i in "${!names[@]}"; do
  cmd=${cmds[$i]}
  if [[ $cmd == *"{i}"* ]]; then
    hyperfine -N --warmup 0 --runs 1 --export-json "$WORK/${names[$i]}.json" \
      --parameter-list i "$(seq -s, 1 "$RUNS")" "$cmd" >/dev/null 2>&1
  else
    hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$WORK/${names[$i]}.json" "$cmd" >/dev/null 2>&1
  fi
done

python3 - "$WORK" "$N" "${names[@]}" <<'PY'
import json, sys
work, n, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def times(name):
    return sorted(t for r in json.load(open(f"{work}/{name}.json"))["results"] for t in r["times"])
def pick(ts, p):
    return ts[min(len(ts) - 1, int(p * len(ts)))] * 1000
stats = {name: (pick(times(name), 0.5), pick(times(name), 0.9)) for name in names}
base, rg = stats["recall"][0], stats["rg_key"][0]
print(f"\nagent memory at {int(n):,} records (engram watch running), ms")
print("| command | median | p90 | × recall | × rg |")
print("|---|---|---|---|---|")
for name in names:
    med, p90 = stats[name]
    print(f"| {name} | {med:.1f} | {p90:.1f} | {med / base:.2f} | {med / rg:.3f} |")
PY

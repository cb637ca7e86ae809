#!/usr/bin/env python3
"""The baseline that capture is measured against: keep every first-person,
non-question sentence verbatim (the issue's "five-line heuristic"). It answers the
two commands the shared scorer runs (`init VAULT`, `--vault V --json capture ...
TEXT`) with the JSON shape of `engram capture`, so the scorer runs it as it runs
engram, in the same run."""
import json, re, sys

args = sys.argv[1:]
if args and args[0] == "init":
    sys.exit(0)
text = args[-1]
facts = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text)
         if s.strip() and not s.strip().endswith("?")
         and re.search(r"\b(i|i'm|i've|my|me|we|our)\b", s, re.I)]
print(json.dumps({"mutations": [{"op": "ADD", "kind": "semantic", "content": f} for f in facts]}))

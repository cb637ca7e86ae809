#!/usr/bin/env python3
"""Writes N synthetic memories as engram JSONL on stdout (deterministic).

With --sessions, records come as conversations: every 20 consecutive records
share a session and open with their speaker ("Jennifer: visited lisbon ..."),
as a chat captured turn by turn does; recall then also reads turn order,
session scores and speakers."""
import json
import random
import sys

args = [a for a in sys.argv[1:] if not a.startswith('--')]
n = int(args[0]) if args else 10000
sessions = '--sessions' in sys.argv
rng = random.Random(42)
subjects = ["user", "jennifer", "marco", "acme-corp", "priya"]
verbs = ["likes", "visited", "bought", "cooked", "read about", "talked about", "planned", "fixed",
         "learned", "moved to", "booked", "painted", "watched", "ran", "wrote about"]
nouns = ["coffee", "lisbon", "berlin", "a bicycle", "sourdough bread", "the garden", "tax forms",
         "a jazz concert", "kubernetes", "the roof", "chess openings", "a marathon", "tomatoes",
         "the quarterly report", "a ceramic vase", "rust lifetimes", "the dentist", "a camping trip",
         "python packaging", "the piano", "a birthday party", "vegetarian recipes", "the museum"]
tails = ["last week", "with friends", "after work", "on the weekend", "for the first time",
         "again", "with the kids", "in the morning", "despite the rain", "because it was cheap"]
for i in range(n):
    who = rng.choice(subjects).capitalize()
    said = f"{rng.choice(verbs)} {rng.choice(nouns)} {rng.choice(tails)}; note {i}."
    content = f"{who}: {said}" if sessions else f"{who} {said}"
    line = {
        "content": content,
        "kind": rng.choice(["episodic", "episodic", "semantic"]),
        "user": rng.choice(["alice", "bob", "carol"]),
        "importance": round(rng.random(), 2),
        "tags": [rng.choice(["home", "work", "travel", "food"])],
        "meta": {"n": str(i)},
    }
    if sessions:
        line["session"] = f"s{i // 20}"
    print(json.dumps(line))

#!/usr/bin/env bash
# Rebuilds the word lists from WordNet 3.0 (Debian package wordnet-base):
#   apt-get install wordnet-base && bash data/lexicon/build.sh
# Single-word lemmas only; lowercase; sorted. See LICENSE-WordNet.
set -euo pipefail
WN=${WN:-/usr/share/wordnet}
here=$(dirname "$0")
lemmas() { grep -v '^ ' "$WN/index.$1" | cut -d' ' -f1 | grep -v '[_.0-9-]' | LC_ALL=C sort -u; }
lemmas verb > "$here/verbs.txt"
lemmas adv > "$here/adverbs.txt"
# Irregular verb forms: "went go", one pair per line.
awk 'NF >= 2 && $1 !~ /_/ && $2 !~ /_/ { print $1, $2 }' "$WN/verb.exc" | LC_ALL=C sort -u > "$here/verb_forms.txt"

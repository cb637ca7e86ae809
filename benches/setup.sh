# Sourced by the shell benchmarks (scale.sh, agent_memory.sh) after they cd to
# the repository: the engram binary in $E (a release build, or $ENGRAM_BIN),
# the tools checked, a work folder $WORK removed on exit (with the watcher in
# $WATCH_PID, if one was started), a fixed clock and no model endpoints.
#   needs hyperfine rg python3     (the tools the benchmark runs)
needs() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$(basename "$0") needs $tool" >&2; exit 2; }
  done
}
if [ -z "${ENGRAM_BIN:-}" ]; then
  cargo build --release --quiet
  ENGRAM_BIN=$PWD/target/release/engram
fi
E=$ENGRAM_BIN
WORK=$(mktemp -d)
WATCH_PID=
cleanup() { [ -n "$WATCH_PID" ] && kill "$WATCH_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
export ENGRAM_NOW=2026-11-20T12:00:00Z
unset ENGRAM_EMBED_URL ENGRAM_LLM_URL ENGRAM_VAULT

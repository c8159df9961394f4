#!/usr/bin/env bash
# User-space instructions the server spends on one single hit, counted by
# callgrind (valgrind, from Debian): repeatable to about 2% (the requests
# each epoll wake gathers vary) where timings on this shared machine move
# by 20%, so it tells a change's effect on the request path apart from
# noise. The count is of hitroute's own code and its libraries (not the
# kernel's TCP, which is the larger part of a request).
#
#   bash Benchmarks/instructions-per-hit.sh [HITROUTE_BINARY [CONNECTIONS]]
#
# HITROUTE_IPH_ARGS replaces the server's `--quiet` (e.g. `--log-format json`
# to count a logged request; the log goes to a file); HIT_KEY makes wrk send
# `Authorization: Bearer $HIT_KEY` (with `--api-keys-file` in the arguments).
# HITROUTE_IPH_SCRIPT picks the wrk script (default hit.lua: 64 points;
# one-hit.lua sends HIT_BODY, default {"x":120,"y":120}, every time, the
# request of Benchmarks/hit-table.py).
#
# Runs the server (one event loop) under callgrind twice, loads the ring
# scene, drives it with wrk (Benchmarks/wrk/hit.lua) for 2 s and for 6 s,
# and prints (instructions of the long run − the short) ÷ (requests of the
# long run − the short): start-up and the scene upload cancel out.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-$HERE/../.build/release/hitroute}
CONNS=${2:-64}
PORT=${HITROUTE_IPH_PORT:-28960}
command -v valgrind >/dev/null || { apt-get install -y -qq valgrind >/dev/null; }
command -v wrk >/dev/null || { apt-get install -y -qq wrk >/dev/null; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

run() {  # seconds of load → "requests instructions"
  # shellcheck disable=SC2086  # the arguments are words on purpose
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.%p" "$BIN" --port "$PORT" ${HITROUTE_IPH_ARGS---quiet} --threads 1 \
    >/dev/null 2>"$WORK/valgrind.err" &
  local pid=$!
  for _ in $(seq 100); do curl -s -o /dev/null "localhost:$PORT/healthz" && break; sleep 0.2; done
  curl -s -o /dev/null -X PUT ${HIT_WRITE_KEY:+-H "Authorization: Bearer $HIT_WRITE_KEY"} \
    --data-binary @"$HERE/../examples/ring-over-button.json" "localhost:$PORT/scenes/ring-demo"
  local out
  out=$(wrk -t1 -c"$CONNS" -d"$1"s -s "$HERE/wrk/${HITROUTE_IPH_SCRIPT:-hit.lua}" "http://127.0.0.1:$PORT")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local requests instructions
  requests=$(echo "$out" | grep -o '[0-9]* requests in' | awk '{print $1}')
  # (awk reads to the end: an early exit would fail the pipeline under pipefail)
  instructions=$(callgrind_annotate "$WORK"/cg.* 2>/dev/null \
    | awk '/PROGRAM TOTALS/ && !done { gsub(",", "", $1); print $1; done = 1 }')
  rm -f "$WORK"/cg.*
  echo "$requests $instructions"
}

read -r n1 i1 < <(run 2)
read -r n2 i2 < <(run 6)
echo "$(basename "$BIN"): $(( (i2 - i1) / (n2 - n1) )) user instructions per single hit" \
  "($((n2 - n1)) requests counted, $CONNS connections)"

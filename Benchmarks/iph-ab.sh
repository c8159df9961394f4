#!/usr/bin/env bash
# Instructions per hit of two or more builds, interleaved: for each round,
# each body (traced `{"x":120,"y":120}`, untraced `…,"trace":false}`), each
# build in turn, one `instructions-per-hit.sh` run (callgrind, one event
# loop, wrk/one-hit.lua, 16 connections); then each build's median.
#
#   bash Benchmarks/iph-ab.sh ROUNDS BUILD…
#
# HITROUTE_IPH_PORT (default 28960) is the server's port. HITROUTE_IPH_KEYS=1
# runs each server with API keys on, as Benchmarks/hit-table.py does (a key
# file of one read and one write key, `--api-keys-file`): the scene is put
# with the write key and every hit sent with the read key.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=$1
shift
OUT=$(mktemp)
KEYS=$(mktemp)
trap 'rm -f "$OUT" "$KEYS"' EXIT
if [ "${HITROUTE_IPH_KEYS:-}" = 1 ]; then
  printf 'read bench-read-key-0123456789abcdef\nwrite bench-write-key-0123456789abcdef\n' >"$KEYS"
  export HITROUTE_IPH_ARGS="--quiet --api-keys-file $KEYS" HIT_KEY=bench-read-key-0123456789abcdef \
    HIT_WRITE_KEY=bench-write-key-0123456789abcdef
fi
for r in $(seq "$ROUNDS"); do
  for body in traced untraced; do
    if [ "$body" = traced ]; then json='{"x":120,"y":120}'; else json='{"x":120,"y":120,"trace":false}'; fi
    for bin in "$@"; do
      n=
      for _ in 1 2; do  # once more when a run fails (a server slow to start under valgrind)
        n=$(HITROUTE_IPH_SCRIPT=one-hit.lua HIT_BODY="$json" bash "$HERE/instructions-per-hit.sh" "$bin" 16 2>/dev/null \
          | awk '{for (i = 1; i <= NF; i++) if ($(i + 1) == "user") print $i}') || true
        [ -n "$n" ] && break
      done
      echo "round $r $body $bin $n" | tee -a "$OUT"
    done
  done
done
echo
for body in traced untraced; do
  for bin in "$@"; do
    awk -v b="$body" -v bin="$bin" '$3 == b && $4 == bin && $5 != "" { print $5 }' "$OUT" | sort -n \
      | awk -v b="$body" -v bin="$bin" '{ v[NR] = $1 } END { printf "%s %s: median %d of %d (%s)\n", b, bin, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), NR, "sorted: " v[1] (NR > 1 ? " … " v[NR] : "") }'
  done
done

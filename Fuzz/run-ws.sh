#!/usr/bin/env bash
# Builds the WebSocket frame decoder's libFuzzer harness
# (Fuzz/WebSocketFrameFuzz.swift, see Fuzz/build-ws.sh) and runs it for a
# bounded time, with inputs up to 16 KiB.
#
#   Fuzz/run-ws.sh [seconds] [libFuzzer flags...]     # default 60 s
#
# Work files go to $FUZZ_OUT (default /tmp/hitroute-ws-fuzz): the binary,
# the growing corpus and any crash-*/timeout-* reproducers. It starts from
# Fuzz/ws-seeds (byte 0 picks the message limit, byte 1 the random split,
# the rest is what a client sends after the handshake); new inputs go to
# $FUZZ_OUT/corpus only. Reproduce a finding with:
#   /tmp/hitroute-ws-fuzz/ws-frame-fuzz /tmp/hitroute-ws-fuzz/crash-<hash>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${FUZZ_OUT:-/tmp/hitroute-ws-fuzz}
seconds=${1:-60}
shift || true
mkdir -p "$out/corpus"

"$here/build-ws.sh" "$out"

cd "$out"
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
seeds=("$here/ws-seeds")
[[ -d "$here/ws-corpus" ]] && seeds=("$here/ws-corpus" "${seeds[@]}")
exec ./ws-frame-fuzz \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -dict="$here/ws.dict" -print_final_stats=1 -print_funcs=0 -artifact_prefix="$out/" \
    "$@" "$out/corpus" "${seeds[@]}"

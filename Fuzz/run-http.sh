#!/usr/bin/env bash
# Builds the HTTP request parser's libFuzzer harness (Fuzz/HTTPParserFuzz.swift,
# see Fuzz/build-http.sh) and runs it for a bounded time, with inputs up to
# 64 KiB: past every limit's default (request line 8 KiB, header block
# 16 KiB, chunk line 4 KiB).
#
#   Fuzz/run-http.sh [seconds] [libFuzzer flags...]     # default 60 s
#
# Work files go to $FUZZ_OUT (default /tmp/hitroute-http-fuzz): the binary,
# the growing corpus and any crash-*/timeout-* reproducers. It starts from
# Fuzz/http-corpus (a minimised corpus of earlier campaigns) and
# Fuzz/http-seeds (hand-written: byte 0 picks the limits, byte 1 the random
# split, the rest is what a client sends); new inputs go to $FUZZ_OUT/corpus
# only. Reproduce a finding with:
#   /tmp/hitroute-http-fuzz/http-parser-fuzz /tmp/hitroute-http-fuzz/crash-<hash>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${FUZZ_OUT:-/tmp/hitroute-http-fuzz}
seconds=${1:-60}
shift || true
mkdir -p "$out/corpus"

"$here/build-http.sh" "$out"

cd "$out"
export SWIFT_BACKTRACE=enable=no  # as in run-api.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
seeds=("$here/http-seeds")
[[ -d "$here/http-corpus" ]] && seeds=("$here/http-corpus" "${seeds[@]}")
exec ./http-parser-fuzz \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$here/http.dict" -print_final_stats=1 -print_funcs=0 -artifact_prefix="$out/" \
    "$@" "$out/corpus" "${seeds[@]}"

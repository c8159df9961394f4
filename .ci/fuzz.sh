#!/usr/bin/env bash
# CI step: a libFuzzer target for a bounded time, from its committed corpus
# and seeds (new inputs go to a fresh work corpus):
#   api   the whole API in process (Fuzz/run-api.sh: Fuzz/api-corpus, Fuzz/api-seeds)
#   http  the HTTP request parser (Fuzz/run-http.sh: Fuzz/http-corpus, Fuzz/http-seeds)
#   ws    the WebSocket frame decoder (Fuzz/run-ws.sh: Fuzz/ws-seeds)
# The toolchain's clang ships libFuzzer and ASan (libclang_rt.fuzzer,
# libclang_rt.asan), so nothing is installed; the step fails when
# libFuzzer reports a failing input (a crash, a timeout, out of memory or
# a leak), and prints its reproducer; a failure with no input (a build
# error) shows in the log's tail.
#
#   bash .ci/fuzz.sh [api|http|ws] [seconds]  # default api; seconds: $HITROUTE_CI_FUZZ_SECONDS or 180
#                                             # (api), $HITROUTE_CI_HTTP_FUZZ_SECONDS or 60 (http),
#                                             # $HITROUTE_CI_WS_FUZZ_SECONDS or 30 (ws)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
target=api
if [[ ${1:-} == api || ${1:-} == http || ${1:-} == ws ]]; then target=$1; shift; fi
case $target in
    api) binary=api-fuzz replay="APIFUZZ_PRINT=1 " seconds=${1:-${HITROUTE_CI_FUZZ_SECONDS:-180}} ;;
    http) binary=http-parser-fuzz replay="" seconds=${1:-${HITROUTE_CI_HTTP_FUZZ_SECONDS:-60}} ;;
    ws) binary=ws-frame-fuzz replay="" seconds=${1:-${HITROUTE_CI_WS_FUZZ_SECONDS:-30}} ;;
esac
out=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/hitroute-ci.XXXXXX")}/$target-fuzz
mkdir -p "$out"
rm -rf "$out/corpus"
swiftc --version 2>&1 | head -1
status=0
FUZZ_OUT="$out" timeout $((seconds + 900)) bash "Fuzz/run-$target.sh" "$seconds" >"$out/fuzz.log" 2>&1 || status=$?
grep -vE '^\s*NEW_FUNC|^#[0-9]+\s+(NEW|REDUCE|pulse)' "$out/fuzz.log" | tail -40
echo "corpus: $(ls "$out/corpus" | wc -l) inputs; log: $out/fuzz.log"
shopt -s nullglob
for f in "$out"/crash-* "$out"/timeout-* "$out"/oom-* "$out"/leak-*; do
    echo "failing input $f (base64 $(base64 -w0 "$f")); replay: $replay$out/$binary $f"
    status=1
done
exit "$status"

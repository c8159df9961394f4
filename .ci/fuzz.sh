#!/usr/bin/env bash
# CI step: the API-level libFuzzer target (Fuzz/APIFuzz*.swift) for a
# bounded time, from the committed corpus and seeds (Fuzz/api-corpus,
# Fuzz/api-seeds; new inputs go to a fresh work corpus).
# The toolchain's clang ships libFuzzer and ASan (libclang_rt.fuzzer,
# libclang_rt.asan), so nothing is installed; the step fails when
# libFuzzer reports a failing input, and prints its reproducer.
#
#   bash .ci/fuzz.sh [seconds]     # default $HITROUTE_CI_FUZZ_SECONDS or 180
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-${HITROUTE_CI_FUZZ_SECONDS:-180}}
out=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/hitroute-ci.XXXXXX")}/api-fuzz
mkdir -p "$out"
rm -rf "$out/corpus"
swiftc --version 2>&1 | head -1
status=0
FUZZ_OUT="$out" timeout $((seconds + 900)) bash Fuzz/run-api.sh "$seconds" >"$out/fuzz.log" 2>&1 || status=$?
grep -vE '^\s*NEW_FUNC|^#[0-9]+\s+(NEW|REDUCE|pulse)' "$out/fuzz.log" | tail -40
echo "corpus: $(ls "$out/corpus" | wc -l) inputs; log: $out/fuzz.log"
shopt -s nullglob
for f in "$out"/crash-* "$out"/timeout-* "$out"/oom-*; do
    echo "failing input $f (base64 $(base64 -w0 "$f")); replay: APIFUZZ_PRINT=1 $out/api-fuzz $f"
    status=1
done
exit "$status"

#!/usr/bin/env bash
# Builds the API-level libFuzzer harness (Fuzz/APIFuzz*.swift, see
# Fuzz/build-api.sh) and runs it for a bounded time.
#
#   Fuzz/run-api.sh [seconds] [libFuzzer flags...]     # default 60 s
#
# Work files go to $FUZZ_OUT (default /tmp/hitroute-api-fuzz): the binary,
# the growing corpus and any crash-*/timeout-* reproducers. It starts from
# Fuzz/api-corpus (a minimised corpus of earlier campaigns) and Fuzz/api-seeds
# (hand-written seeds); new inputs go to $FUZZ_OUT/corpus only. Exits non-zero
# when libFuzzer found a failing input. FUZZ_ASAN=0 builds the harness without
# AddressSanitizer (Fuzz/build-api.sh): more than twice the executions a
# second (479 against 242 replaying Fuzz/api-corpus, when it still traced
# every module's comparisons; 567 against 378 once it did not), catching Swift's traps, hangs
# and out-of-memory but not memory errors in unsafe code; give it its own
# FUZZ_OUT. Reproduce one, printing every request
# it sends (run by hand, ASan keeps its full allocation stacks):
#   APIFUZZ_PRINT=1 /tmp/hitroute-api-fuzz/api-fuzz /tmp/hitroute-api-fuzz/crash-<hash>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${FUZZ_OUT:-/tmp/hitroute-api-fuzz}
seconds=${1:-60}
shift || true
mkdir -p "$out/corpus"

"$here/build-api.sh" "$out"

cd "$out"
# The Swift runtime's own crash handler reads memory that ASan guards:
# leave crash reports to libFuzzer and ASan.
export SWIFT_BACKTRACE=enable=no
# ASan records no allocation stacks (about a sixth of an execution: most
# allocations are freed within the input). Detection is the same; a report
# names the faulting access's stack, and replaying the input without this
# setting adds where the memory was allocated and freed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
# -timeout=120: the slowest inputs seen (batches routed up to the
# harness's --max-batch-work, 2,000,000 region elements each) take about
# 2 s under ASan on an idle core, and one took 32 s on a core shared with
# a build. A hang never ends, so a long
# timeout only delays its report.
seeds=("$here/api-seeds")
[[ -d "$here/api-corpus" ]] && seeds=("$here/api-corpus" "${seeds[@]}")
exec ./api-fuzz \
    -max_total_time="$seconds" -timeout=120 -rss_limit_mb=3072 -max_len=4096 \
    -dict="$here/api.dict" -print_final_stats=1 -print_funcs=0 -artifact_prefix="$out/" \
    "$@" "$out/corpus" "${seeds[@]}"

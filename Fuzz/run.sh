#!/usr/bin/env bash
# Builds the HitJSON libFuzzer harness with AddressSanitizer and runs it for
# a bounded time.
#
#   Fuzz/run.sh [seconds]          # default 60
#   FUZZ_OPT=-O Fuzz/run.sh 600    # optimized build (faster, fewer Swift checks)
#
# Work files go to $FUZZ_OUT (default /tmp/hitjson-fuzz): the binary, the
# growing corpus and any crash-* reproducers. Fuzz/seeds holds the
# committed seed inputs. Reproduce a crash with:
#   /tmp/hitjson-fuzz/json-reader-fuzz /tmp/hitjson-fuzz/crash-<hash>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${FUZZ_OUT:-/tmp/hitjson-fuzz}
seconds=${1:-60}
mkdir -p "$out/corpus"

# HitBase (the JSON writer's buffer and escaper) as a module of its own.
mkdir -p "$out/modules"
(cd "$out/modules" && swiftc -sanitize=address -parse-as-library ${FUZZ_OPT:--Onone} -g -wmo \
    -module-name HitBase -emit-module -emit-module-path "$out/modules/HitBase.swiftmodule" \
    -c "$root"/Sources/HitBase/*.swift -o "$out/modules/HitBase.o")
swiftc -sanitize=fuzzer,address -parse-as-library ${FUZZ_OPT:--Onone} -g \
    -module-name HitJSONFuzz -I "$out/modules" \
    "$root"/Sources/HitJSON/*.swift "$here/JSONReaderFuzz.swift" "$out/modules/HitBase.o" \
    -o "$out/json-reader-fuzz"

cd "$out"
exec ./json-reader-fuzz \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -dict="$here/json.dict" -print_final_stats=1 \
    "$out/corpus" "$here/seeds"

#!/usr/bin/env bash
# Builds the API-level libFuzzer harness (Fuzz/APIFuzz.swift) with
# AddressSanitizer: HitAPI and every module it depends on are compiled
# module by module with swiftc (coverage-instrumented), then linked with the
# harness and libFuzzer. No SwiftPM, so the package's own build is untouched.
#
#   Fuzz/build-api.sh OUT_DIR      # writes OUT_DIR/api-fuzz
#   FUZZ_OPT=-O Fuzz/build-api.sh OUT_DIR
#   FUZZ_ASAN=0 Fuzz/build-api.sh OUT_DIR   # without AddressSanitizer: Swift's
#       own traps, hangs and out-of-memory are still caught, memory errors in
#       unsafe code are not
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:?usage: build-api.sh OUT_DIR}
opt=${FUZZ_OPT:--O}
mkdir -p "$out/modules"
mods="$out/modules"
# Coverage for libFuzzer in every module: edges with inline counters and the
# PC table, as -sanitize=fuzzer gives. Its comparison tracing (trace-cmp,
# which feeds libFuzzer's table of compared values) only where the compared
# values can be the input's own bytes: the JSON reader and the API's decoders
# (raw bodies), and the harness. Elsewhere (HitRouting, HitRender, ...) the
# operands are derived numbers no mutation can insert, and tracing them cost
# about a fifth of an execution.
san=(-sanitize=fuzzer,address)
san_nocmp=(-sanitize=address -sanitize-coverage=edge,indirect-calls,pc-table,inline-8bit-counters)
check=(-sanitize=address)
c_san=(-fsanitize=address)
if [[ ${FUZZ_ASAN:-1} == 0 ]]; then
    san=(-sanitize=fuzzer)
    san_nocmp=(-sanitize=fuzzer -sanitize-coverage=edge,indirect-calls,pc-table,inline-8bit-counters)
    check=(none)
    c_san=()
fi

# The C shims: module maps of our own (SwiftPM synthesises them for the package).
shims=(CEpoll CPrefetch CCounters)
for c in "${shims[@]}"; do
    mkdir -p "$mods/$c"
    cat >"$mods/$c/module.modulemap" <<MAP
module $c {
    header "$root/Sources/$c/include/$c.h"
    export *
}
MAP
done
for c in CEpoll CCounters; do
    if [[ ! -f "$mods/$c.o" ]] || [[ -n $(find "$root/Sources/$c" -newer "$mods/$c.o" | head -1) ]]; then
        clang -c -O1 -g "${c_san[@]}" -I "$root/Sources/$c/include" \
            "$root/Sources/$c/$c.c" -o "$mods/$c.o"
    fi
done
maps=()
for c in "${shims[@]}"; do maps+=(-Xcc -fmodule-map-file="$mods/$c/module.modulemap"); done

swift_module() { # name "dependency modules" sources... (skipped when its object is newer than all of them)
    # $SANITIZE: the flags (default: coverage without comparison tracing; `none`: no sanitizer).
    local name=$1 deps=$2 dep flags=("${san_nocmp[@]}")
    if [[ ${SANITIZE:-} == none ]]; then flags=(); elif [[ -n ${SANITIZE:-} ]]; then read -r -a flags <<<"$SANITIZE"; fi
    shift 2
    if [[ -f "$mods/$name.o" ]] && [[ -z $(find "$@" "$here/build-api.sh" -newer "$mods/$name.o" | head -1) ]]; then
        local stale=""
        for dep in $deps; do [[ "$mods/$dep.o" -nt "$mods/$name.o" ]] && stale=1; done
        [[ -z "$stale" ]] && return 0
    fi
    swiftc "${flags[@]}" -parse-as-library "$opt" -g -wmo -num-threads 0 \
        -module-name "$name" -emit-module -emit-module-path "$mods/$name.swiftmodule" \
        -I "$mods" "${maps[@]}" -c "$@" -o "$mods/$name.o"
}
sources() { find "$root/Sources/$1" -name '*.swift' | sort; }
# In Package.swift's order, each after its dependencies; a new module goes
# here and, when HitAPI depends on it, into HitAPI's list.
swift_module HitMetrics "" $(sources HitMetrics)
swift_module HTTPServer "HitMetrics" $(sources HTTPServer)
SANITIZE="${san[*]}" swift_module HitJSON "" $(sources HitJSON)
swift_module HitImage "" $(sources HitImage)
swift_module HitRouting "" $(sources HitRouting)
swift_module HitRender "HitRouting" $(sources HitRender)
swift_module Playground "" $(sources Playground)
swift_module HitJournal "" $(sources HitJournal)
swift_module RESP "" $(sources RESP)
swift_module RESPClient "RESP" $(sources RESPClient)
SANITIZE="${san[*]}" swift_module HitAPI "HitMetrics HTTPServer HitJSON HitImage HitRouting HitRender Playground HitJournal RESP RESPClient" $(sources HitAPI)
# The harness's judge of answers: HitJSON's parser once more, as a module of
# its own with ASan but no coverage, so that parsing an answer (up to a few
# hundred KiB for a batch) neither costs coverage callbacks nor adds
# features of the answer's text to the corpus. The service's own HitJSON
# stays instrumented.
SANITIZE="${check[*]:-}" swift_module FuzzCheckJSON "" $(sources HitJSON)

swiftc "${san[@]}" -parse-as-library "$opt" -g -module-name APIFuzz \
    -I "$mods" "${maps[@]}" \
    "$here"/APIFuzz*.swift "$mods"/*.o -o "$out/api-fuzz" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan" || true; }
test -x "$out/api-fuzz"

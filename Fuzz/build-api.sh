#!/usr/bin/env bash
# Builds the API-level libFuzzer harness (Fuzz/APIFuzz.swift) with
# AddressSanitizer: HTTPServer, HitJSON, HitRouting and HitAPI are compiled
# module by module with swiftc (coverage-instrumented), then linked with the
# harness and libFuzzer. No SwiftPM, so the package's own build is untouched.
#
#   Fuzz/build-api.sh OUT_DIR      # writes OUT_DIR/api-fuzz
#   FUZZ_OPT=-O Fuzz/build-api.sh OUT_DIR
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:?usage: build-api.sh OUT_DIR}
opt=${FUZZ_OPT:--O}
mkdir -p "$out/modules"
mods="$out/modules"
san=(-sanitize=fuzzer,address)

# The C shims: module maps of our own (SwiftPM synthesises them for the package).
for c in CEpoll CPrefetch; do
    mkdir -p "$mods/$c"
    cat >"$mods/$c/module.modulemap" <<MAP
module $c {
    header "$root/Sources/$c/include/$c.h"
    export *
}
MAP
done
if [[ ! -f "$mods/CEpoll.o" ]] || [[ -n $(find "$root/Sources/CEpoll" -newer "$mods/CEpoll.o" | head -1) ]]; then
    clang -c -O1 -g -fsanitize=address -I "$root/Sources/CEpoll/include" \
        "$root/Sources/CEpoll/CEpoll.c" -o "$mods/CEpoll.o"
fi

swift_module() { # name "dependency modules" sources... (skipped when its object is newer than all of them)
    local name=$1 deps=$2 dep
    shift 2
    if [[ -f "$mods/$name.o" ]] && [[ -z $(find "$@" "$here/build-api.sh" -newer "$mods/$name.o" | head -1) ]]; then
        local stale=""
        for dep in $deps; do [[ "$mods/$dep.o" -nt "$mods/$name.o" ]] && stale=1; done
        [[ -z "$stale" ]] && return 0
    fi
    swiftc "${san[@]}" -parse-as-library "$opt" -g -wmo -num-threads 0 \
        -module-name "$name" -emit-module -emit-module-path "$mods/$name.swiftmodule" \
        -I "$mods" -Xcc -fmodule-map-file="$mods/CEpoll/module.modulemap" \
        -Xcc -fmodule-map-file="$mods/CPrefetch/module.modulemap" \
        -c "$@" -o "$mods/$name.o"
}
swift_module HTTPServer "CEpoll" "$root"/Sources/HTTPServer/*.swift
swift_module HitJSON "" "$root"/Sources/HitJSON/*.swift
swift_module HitRouting "" $(find "$root/Sources/HitRouting" -name '*.swift' | sort)
swift_module HitJournal "" $(find "$root/Sources/HitJournal" -name '*.swift' | sort)
# HitAPI's dependencies as Package.swift lists them: a new module goes above and here.
swift_module HitAPI "HTTPServer HitJSON HitRouting HitJournal" $(find "$root/Sources/HitAPI" -name '*.swift' | sort)

swiftc "${san[@]}" -parse-as-library "$opt" -g -module-name APIFuzz \
    -I "$mods" -Xcc -fmodule-map-file="$mods/CEpoll/module.modulemap" \
    -Xcc -fmodule-map-file="$mods/CPrefetch/module.modulemap" \
    "$here"/APIFuzz*.swift "$mods"/*.o -o "$out/api-fuzz" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan" || true; }
test -x "$out/api-fuzz"

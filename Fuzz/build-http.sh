#!/usr/bin/env bash
# Builds the HTTP request parser's libFuzzer harness (Fuzz/HTTPParserFuzz.swift)
# with AddressSanitizer: Sources/HTTPServer and the harness as one module
# (the parser is internal), linked with HitMetrics, HitBase, the C shims and libFuzzer.
#
#   Fuzz/build-http.sh OUT_DIR      # writes OUT_DIR/http-parser-fuzz
set -euo pipefail

out=${1:?usage: build-http.sh OUT_DIR}
source "$(dirname "$0")/modules.sh"

# HitMetrics and HitBase are only linked: no coverage of their own.
SANITIZE="${check[*]:-}" swift_module HitMetrics "" $(sources HitMetrics)
SANITIZE="${check[*]:-}" swift_module HitBase "" $(sources HitBase)
# In the output directory: swiftc leaves the module's files where it runs.
cd "$out"
swiftc "${san[@]}" -parse-as-library "$opt" -g -wmo -num-threads 0 -module-name HTTPParserFuzz \
    -I "$mods" "${maps[@]}" \
    $(sources HTTPServer) "$here/HTTPParserFuzz.swift" "$mods"/HitMetrics.o "$mods"/HitBase.o "$mods"/CEpoll.o "$mods"/CCounters.o \
    -o "$out/http-parser-fuzz" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan" || true; }
test -x "$out/http-parser-fuzz"

#!/usr/bin/env bash
# Builds the WebSocket frame decoder's libFuzzer harness
# (Fuzz/WebSocketFrameFuzz.swift) with AddressSanitizer: Sources/HTTPServer
# and the harness as one module (the decoder is internal), linked with
# HitMetrics, HitBase, the C shims and libFuzzer.
#
#   Fuzz/build-ws.sh OUT_DIR      # writes OUT_DIR/ws-frame-fuzz
set -euo pipefail

out=${1:?usage: build-ws.sh OUT_DIR}
source "$(dirname "$0")/modules.sh"

# HitMetrics and HitBase are only linked: no coverage of their own.
SANITIZE="${check[*]:-}" swift_module HitMetrics "" $(sources HitMetrics)
SANITIZE="${check[*]:-}" swift_module HitBase "" $(sources HitBase)
cd "$out"
swiftc "${san[@]}" -parse-as-library "$opt" -g -wmo -num-threads 0 -module-name WebSocketFrameFuzz \
    -I "$mods" "${maps[@]}" \
    $(sources HTTPServer) "$here/WebSocketFrameFuzz.swift" "$mods"/HitMetrics.o "$mods"/HitBase.o "$mods"/CEpoll.o "$mods"/CCounters.o \
    -o "$out/ws-frame-fuzz" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan" || true; }
test -x "$out/ws-frame-fuzz"

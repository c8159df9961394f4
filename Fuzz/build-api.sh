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

out=${1:?usage: build-api.sh OUT_DIR}
source "$(dirname "$0")/modules.sh"

# In Package.swift's order, each after its dependencies; a new module goes
# here and, when HitAPI depends on it, into HitAPI's list.
swift_module HitBase "" $(sources HitBase)
swift_module HitMetrics "" $(sources HitMetrics)
swift_module HTTPServer "HitMetrics HitBase" $(sources HTTPServer)
SANITIZE="${san[*]}" swift_module HitJSON "HitBase" $(sources HitJSON)
swift_module HitImage "" $(sources HitImage)
swift_module HitRouting "HitBase" $(sources HitRouting)
swift_module HitRender "HitRouting HitBase" $(sources HitRender)
swift_module HitAnalysis "HitRouting" $(sources HitAnalysis)
swift_module Playground "" $(sources Playground)
swift_module HitJournal "" $(sources HitJournal)
swift_module RESP "" $(sources RESP)
swift_module RESPClient "RESP HitBase" $(sources RESPClient)
# The scene document's decoders read raw bodies: comparison tracing, as HitJSON.
SANITIZE="${san[*]}" swift_module SceneCodec "HitRouting HitJSON HitImage" $(sources SceneCodec)
swift_module HitStore "HitBase HitJournal HitJSON HitMetrics HitRouting RESP RESPClient SceneCodec" $(sources HitStore)
SANITIZE="${san[*]}" swift_module HitAPI "HitBase HitMetrics HTTPServer HitJSON HitImage HitRouting HitAnalysis HitRender Playground HitJournal RESP RESPClient SceneCodec HitStore" $(sources HitAPI)
# The harness's judge of answers: HitJSON's parser once more, as a module of
# its own with ASan but no coverage, so that parsing an answer (up to a few
# hundred KiB for a batch) neither costs coverage callbacks nor adds
# features of the answer's text to the corpus. The service's own HitJSON
# stays instrumented.
SANITIZE="${check[*]:-}" swift_module FuzzCheckJSON "HitBase" $(sources HitJSON)

swiftc "${san[@]}" -package-name hitroute -parse-as-library "$opt" -g -module-name APIFuzz \
    -I "$mods" "${maps[@]}" \
    "$here"/APIFuzz*.swift "$mods"/*.o -o "$out/api-fuzz" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan" || true; }
test -x "$out/api-fuzz"

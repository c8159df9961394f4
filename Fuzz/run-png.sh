#!/usr/bin/env bash
# Builds the HitImage (PNG + inflate) libFuzzer harness with AddressSanitizer
# and runs it for a bounded time or number of runs.
#
#   Fuzz/run-png.sh [seconds] [runs]      # default 60 s, unlimited runs
#   FUZZ_OPT=-O Fuzz/run-png.sh 900 10000000
#
# Work files go to $FUZZ_OUT (default /tmp/hitimage-fuzz): the binary, the
# growing corpus and any crash-* reproducers. The seeds are the committed
# oracle corpus (Tests/Corpus/png/*.png), each prefixed with the mode byte 0
# (a whole file), plus the same files' IDAT data behind mode byte 1 (a
# stream wrapped in a generated header). Reproduce a crash with:
#   /tmp/hitimage-fuzz/png-decoder-fuzz /tmp/hitimage-fuzz/crash-<hash>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${FUZZ_OUT:-/tmp/hitimage-fuzz}
seconds=${1:-60}
runs=${2:--1}
mkdir -p "$out/corpus" "$out/seeds"

swiftc -sanitize=fuzzer,address -parse-as-library ${FUZZ_OPT:--Onone} -g \
    -module-name HitImageFuzz \
    "$root"/Sources/HitImage/*.swift "$here/PNGDecoderFuzz.swift" \
    -o "$out/png-decoder-fuzz"

python3 - "$root/Tests/Corpus/png" "$out/seeds" <<'PY'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
kinds = [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8), (4, 8), (4, 16), (6, 8), (6, 16)]
for name in sorted(os.listdir(src)):
    if not name.endswith(".png"):
        continue
    data = open(os.path.join(src, name), "rb").read()
    open(os.path.join(dst, name), "wb").write(b"\x00" + data)
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    if w > 32 or h > 32:
        continue
    pos, idat = 8, b""
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        if data[pos + 4:pos + 8] == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    head = bytes([1, kinds.index((ctype, depth)), w - 1, h - 1, interlace, 0x0F])
    open(os.path.join(dst, name[:-4] + ".idat"), "wb").write(head + idat)
PY

cd "$out"
exec nice -n 10 ./png-decoder-fuzz \
    -max_total_time="$seconds" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -print_final_stats=1 \
    "$out/corpus" "$out/seeds"

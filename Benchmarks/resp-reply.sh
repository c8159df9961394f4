#!/usr/bin/env bash
# The RESP client reading one big reply, two revisions side by side in one
# run: `LRANGE` of an N-element list from a real redis-server on a free
# loopback port, each revision's client built with swiftc -O from that
# revision's Sources/RESP and Sources/RESPClient, rounds interleaved
# (A B A B …), each round one process per revision (a median of 51 calls
# for small replies, one call for N ≥ 100,000). Prints every round and the
# medians.
#
#   bash Benchmarks/resp-reply.sh [BASE_REV] [N] [ROUNDS]   # default HEAD~1, 1000000, 5
#
# Needs redis-server (Debian's redis-server).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-HEAD~1}
n=${2:-1000000}
rounds=${3:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/resp-reply.XXXXXX")
redis_pid=""
cleanup() { [[ -n $redis_pid ]] && kill "$redis_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

build() { # label source-root
    local d="$work/$1"
    mkdir -p "$d"
    swiftc -O -parse-as-library -wmo -module-name RESP -emit-module -emit-module-path "$d/RESP.swiftmodule" \
        -c "$2"/Sources/RESP/*.swift -o "$d/RESP.o"
    swiftc -O -parse-as-library -wmo -module-name RESPClient -I "$d" -emit-module -emit-module-path "$d/RESPClient.swiftmodule" \
        -c "$2"/Sources/RESPClient/*.swift -o "$d/RESPClient.o"
    (cd "$d" && swiftc -O -I "$d" "$root/Benchmarks/resp/main.swift" "$d/RESP.o" "$d/RESPClient.o" -o "$d/resp-reply")
}
mkdir -p "$work/src-base"
git -C "$root" archive "$base" Sources/RESP Sources/RESPClient | tar -x -C "$work/src-base"
build base "$work/src-base"
build head "$root"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$work/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
python3 - "$port" "$n" <<'PY'
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", port))
out = bytearray()
for start in range(0, n, 10000):
    items = [str(i % 1000).encode() for i in range(start, min(n, start + 10000))]
    parts = [b"RPUSH", b"big"] + items
    out += b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)
s.sendall(out)
need, got = (n + 9999) // 10000, 0
buf = b""
while got < need:
    buf += s.recv(1 << 16)
    got = buf.count(b"\r\n")
PY
calls=$((n >= 100000 ? 1 : 51))
echo "LRANGE of $n elements, $rounds interleaved rounds; ms, each the median of $calls calls after one that connects"
for r in $(seq "$rounds"); do
    a=$("$work/base/resp-reply" "$port" big "$n" "$calls")
    b=$("$work/head/resp-reply" "$port" big "$n" "$calls")
    echo "round $r: base($base) $a  head $b"
    echo "$a" >>"$work/a"; echo "$b" >>"$work/b"
done
python3 - "$work/a" "$work/b" <<'PY'
import statistics, sys
a = [float(x) for x in open(sys.argv[1])]; b = [float(x) for x in open(sys.argv[2])]
ma, mb = statistics.median(a), statistics.median(b)
print(f"median: base {ma:.3f} ms, head {mb:.3f} ms, base/head {ma / mb:.2f}x")
PY

#!/usr/bin/env python3
"""RSS of the server with N idle streams open (default 10,000), and the
bytes each stream adds.

    python3 Benchmarks/stream-memory.py BINARY [N] [PORT]

Raises its own descriptor limit to N + 100 (the server's too, via
`prlimit`-like inheritance), opens N streams on one scene, waits for the
server to count them, reads VmRSS from /proc/PID/status before and after."""
import json, os, resource, socket, subprocess, sys, time, urllib.request

BINARY = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * N + 200), hard))


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS"))


port = int(sys.argv[3]) if len(sys.argv) > 3 else 18700 + os.getpid() % 1000
server = subprocess.Popen([BINARY, "--port", str(port), "--threads", "1", "--quiet",
                           "--max-connections", str(N + 100), "--max-streams", str(N + 100)])
try:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    scene = {"id": "mem", "layers": [{"id": "a", "shape": {"type": "rect", "x": 0, "y": 0, "width": 10, "height": 10}}]}
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/scenes/mem", data=json.dumps(scene).encode(),
                                                  method="PUT", headers={"Content-Type": "application/json"})).read()
    time.sleep(0.5)
    before = rss(server.pid)
    socks = []
    request = (b"GET /scenes/mem/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: hitroute.v1\r\n\r\n")
    for k in range(N):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(request)
        socks.append(s)
        if k % 500 == 499:
            for t in socks[-500:]:
                assert t.recv(4096).startswith(b"HTTP/1.1 101")
    for t in socks[len(socks) - len(socks) % 500:]:
        assert t.recv(4096).startswith(b"HTTP/1.1 101")
    time.sleep(1)
    after = rss(server.pid)
    print(f"{N} idle streams: RSS {before / 2**20:.1f} MiB before, {after / 2**20:.1f} MiB after; "
          f"{(after - before) / N:,.0f} bytes per stream")
finally:
    server.terminate()
    server.wait()

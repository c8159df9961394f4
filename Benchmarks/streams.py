#!/usr/bin/env python3
"""Server CPU time per answered stream message, against per HTTP keep-alive
hit (wrk) and per message of Node's `ws` echo server (Debian node-ws),
interleaved, medians of ROUNDS rounds. CPU is the server's own
utime+stime from /proc/PID/stat, so the load generator's ceiling does not
distort it.

    python3 Benchmarks/streams.py BINARY [ROUNDS] [SECONDS] [PORT]

(PORT and PORT + 1; default 18600 + pid % 1000.)

Each server runs alone on one event loop (hitroute --threads 1). The stream
client is this script: CONNS connections, each sending WINDOW masked
messages of {"x","y","trace":false,"seq"} in one write and reading the
WINDOW answers, again and again. The ws echo server gets the same client
and the same messages. HTTP is wrk with 16 connections on
GET /scenes/bench/hit?x=..&y=..&trace=0."""
import json, os, random, socket, statistics, struct, subprocess, sys, time, urllib.request

BINARY = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 5
PORT = int(sys.argv[4]) if len(sys.argv) > 4 else 18600 + os.getpid() % 1000
CONNS, WINDOW = 16, 32
TICK = os.sysconf("SC_CLK_TCK")
RING = {"id": "bench", "layers": [
    {"id": "button", "action": "below.press", "shape": {"type": "rect", "x": 0, "y": 0, "width": 240, "height": 240}},
    {"id": "ring", "action": "ring.select", "shape": {"type": "compound", "fillRule": "evenodd", "shapes": [
        {"type": "ellipse", "cx": 120, "cy": 120, "rx": 120, "ry": 120},
        {"type": "ellipse", "cx": 120, "cy": 120, "rx": 48, "ry": 48}]}}]}
NODE_ECHO = r"""
const { WebSocketServer } = require('ws');
const wss = new WebSocketServer({ port: +process.argv[1], perMessageDeflate: false });
wss.on('connection', (ws) => ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })));
"""


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def wait_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def frame(text, mask=b"\x11\x22\x33\x44"):
    data = text.encode()
    n = len(data)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    return head + mask + bytes(b ^ mask[i & 3] for i, b in enumerate(data))


def handshake(port, path, protocol):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    proto = f"Sec-WebSocket-Protocol: {protocol}\r\n" if protocol else ""
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{proto}\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(4096)
    assert buf.startswith(b"HTTP/1.1 101"), buf[:100]
    return s, buf.split(b"\r\n\r\n", 1)[1]


def read_frames(s, buf, count):
    """Reads `count` server frames; returns the bytes left over."""
    got = 0
    while got < count:
        while True:
            if len(buf) >= 2:
                n = buf[1] & 0x7F
                head = 2 if n < 126 else 4 if n == 126 else 10
                if n == 126 and len(buf) >= 4:
                    n = struct.unpack(">H", buf[2:4])[0]
                elif n == 127 and len(buf) >= 10:
                    n = struct.unpack(">Q", buf[2:10])[0]
                if len(buf) >= head + n and (buf[1] & 0x7F < 126 or len(buf) >= head):
                    buf = buf[head + n:]
                    got += 1
                    if got == count:
                        return buf
                    continue
            break
        buf += s.recv(1 << 16)
    return buf


def stream_load(port, path, protocol, seconds):
    """Messages answered in `seconds`, and the server CPU seconds they took."""
    conns = [handshake(port, path, protocol) for _ in range(CONNS)]
    rng = random.Random(1)
    batches = [b"".join(frame(json.dumps({"x": rng.uniform(0, 240), "y": rng.uniform(0, 240), "trace": False, "seq": k}))
                        for k in range(WINDOW)) for _ in range(8)]
    socks = [c[0] for c in conns]
    bufs = [c[1] for c in conns]
    return socks, bufs, batches


def run_stream(pid, port, path, protocol, seconds):
    socks, bufs, batches = stream_load(port, path, protocol, seconds)
    answered = 0
    start_cpu, start = cpu(pid), time.monotonic()
    k = 0
    while time.monotonic() - start < seconds:
        for s in socks:
            s.sendall(batches[k & 7])
        for i, s in enumerate(socks):
            bufs[i] = read_frames(s, bufs[i], WINDOW)
        answered += WINDOW * len(socks)
        k += 1
    used, elapsed = cpu(pid) - start_cpu, time.monotonic() - start
    for s in socks:
        s.close()
    return answered, used, elapsed


def run_http(pid, port, seconds):
    start_cpu = cpu(pid)
    out = subprocess.run(["wrk", "-t2", "-c16", f"-d{int(seconds)}s", f"http://127.0.0.1:{port}/scenes/bench/hit?x=210&y=120&trace=0"],
                         capture_output=True, text=True).stdout
    used = cpu(pid) - start_cpu
    requests = int(next(l for l in out.splitlines() if "requests in" in l).split()[0])
    return requests, used, seconds


def main():
    port = PORT
    server = subprocess.Popen([BINARY, "--port", str(port), "--threads", "1", "--quiet"])
    node_port = port + 1
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    node = subprocess.Popen(["node", "-e", NODE_ECHO, str(node_port)], env=env)
    try:
        wait_port(port)
        wait_port(node_port)
        req = urllib.request.Request(f"http://127.0.0.1:{port}/scenes/bench", data=json.dumps(RING).encode(), method="PUT",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()
        results = {"stream": [], "http": [], "ws-echo": []}
        for r in range(ROUNDS):
            n, c, e = run_stream(server.pid, port, "/scenes/bench/stream", "hitroute.v1", SECONDS)
            results["stream"].append((c / n * 1e6, n / e))
            n, c, e = run_http(server.pid, port, SECONDS)
            results["http"].append((c / n * 1e6, n / e))
            n, c, e = run_stream(node.pid, node_port, "/", None, SECONDS)
            results["ws-echo"].append((c / n * 1e6, n / e))
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1][0]:.2f} us CPU/msg {v[-1][1]:,.0f}/s" for k, v in results.items()), flush=True)
        med = {k: statistics.median(x[0] for x in v) for k, v in results.items()}
        thr = {k: statistics.median(x[1] for x in v) for k, v in results.items()}
        print(f"medians of {ROUNDS} rounds ({SECONDS:g} s each, {CONNS} connections, window {WINDOW}):")
        for k in results:
            print(f"  {k:8s} {med[k]:6.2f} us server CPU per message, {thr[k]:10,.0f} messages/s")
        print(f"  stream / http    = {med['stream'] / med['http']:.2f}")
        print(f"  stream / ws-echo = {med['stream'] / med['ws-echo']:.2f}")
    finally:
        server.terminate()
        node.terminate()
        server.wait()
        node.wait()


main()

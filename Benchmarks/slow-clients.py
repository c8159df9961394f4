#!/usr/bin/env python3
"""Many slow clients at once against one hitroute binary: the memory they take.

--mode upload (default): each of N connections announces a body of
--body-bytes (default 16 MiB, the default --max-body-bytes), sends all of
it but --tail bytes at full speed, then keeps the request alive with one
byte every 5 s (under the 10 s body timeout).

--mode read: a scene of about --body-bytes is uploaded once; then each of N
connections asks for it (GET /scenes/slow) with a 4 KiB receive buffer and
never reads the answer.

The script samples the server's resident memory (VmRSS) while the clients
are held, counts the connections answered early or refused (503
/problems/busy) and stops everything.

    python3 Benchmarks/slow-clients.py .build/release/hitroute [--mode read] [--connections 200]

Bounded: the uploads are held --hold seconds (default 20), every socket has
a timeout, and the server runs under `timeout` in its own process group on
a free loopback port. Standard library only.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def server_pid(wrapper):
    """The hitroute process under `timeout` (its only child)."""
    with open(f"/proc/{wrapper.pid}/task/{wrapper.pid}/children") as f:
        kids = f.read().split()
    return int(kids[0]) if kids else wrapper.pid


def upload(port, body_bytes, tail, hold_until, outcome, lock):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        s.sendall(f"PUT /scenes/slow HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {body_bytes}\r\n\r\n".encode())
        chunk = b" " * (1 << 20)
        left = body_bytes - tail
        s.setblocking(False)
        early = b""
        while left > 0:
            try:
                n = s.send(chunk[:min(left, len(chunk))])
                left -= n
            except BlockingIOError:
                try:
                    early += s.recv(4096)
                    if early:
                        break
                except BlockingIOError:
                    time.sleep(0.001)
            except (BrokenPipeError, ConnectionResetError):
                break
        s.setblocking(True)
        s.settimeout(0.05)
        if not early:
            try:
                early = s.recv(4096)
            except (socket.timeout, BlockingIOError):
                early = b""
            except ConnectionResetError:
                early = b"reset"
        key = "answered early: " + early.split(b"\r\n")[0].decode(errors="replace") if early else "held"
        with lock:
            outcome[key] = outcome.get(key, 0) + 1
        if early:
            return
        sent_tail = 0
        while time.time() < hold_until and sent_tail < tail - 1:
            time.sleep(min(5, max(0, hold_until - time.time())))
            if time.time() < hold_until:
                s.sendall(b" ")
                sent_tail += 1
    except OSError as e:
        with lock:
            outcome[f"error {type(e).__name__}"] = outcome.get(f"error {type(e).__name__}", 0) + 1
    finally:
        s.close()


def scene_of(size):
    """A scene document of about `size` bytes: many small rects."""
    one = '{"id":"r%d","shape":{"type":"rect","x":%d,"y":0,"width":1,"height":1}}'
    layers, total, k = [], 0, 0
    while total < size - 64:
        layer = one % (k, k % 1000)
        layers.append(layer)
        total += len(layer) + 1
        k += 1
    return ('{"layers":[' + ",".join(layers) + "]}").encode()


def put(port, path, body):
    s = socket.create_connection(("127.0.0.1", port), timeout=120)
    s.sendall(f"PUT {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    status = s.recv(100).split(b"\r\n")[0].decode()
    s.close()
    return status


def unread(port, hold_until, outcome, lock):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(30)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /scenes/slow HTTP/1.1\r\nHost: t\r\n\r\n")
        time.sleep(1)
        first = s.recv(64).split(b"\r\n")[0].decode(errors="replace")  # the status line only
        with lock:
            outcome[first] = outcome.get(first, 0) + 1
        while time.time() < hold_until:
            time.sleep(0.5)
    except OSError as e:
        with lock:
            outcome[f"error {type(e).__name__}"] = outcome.get(f"error {type(e).__name__}", 0) + 1
    finally:
        s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--mode", choices=["upload", "read"], default="upload")
    ap.add_argument("--connections", type=int, default=200)
    ap.add_argument("--body-bytes", type=int, default=16 << 20)
    ap.add_argument("--tail", type=int, default=100)
    ap.add_argument("--hold", type=float, default=20)
    ap.add_argument("--args", default="", help="extra hitroute flags")
    a = ap.parse_args()
    port = free_port()
    cmd = ["timeout", "--signal=TERM", "--kill-after=5", str(int(a.hold) + 120), a.binary,
           "--host", "127.0.0.1", "--port", str(port), "--quiet"] + a.args.split()
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        pid = server_pid(server)
        if a.mode == "read":
            status = put(port, "/scenes/slow", scene_of(a.body_bytes))
            if " 20" not in status:
                print(f"uploading the scene: {status}")
                return 1
        base = rss_mb(pid)
        outcome, lock = {}, threading.Lock()
        hold_until = time.time() + a.hold
        if a.mode == "read":
            work = lambda: unread(port, hold_until, outcome, lock)
        else:
            work = lambda: upload(port, a.body_bytes, a.tail, hold_until, outcome, lock)
        threads = [threading.Thread(target=work, daemon=True) for _ in range(a.connections)]
        for t in threads:
            t.start()
        peak = base
        while any(t.is_alive() for t in threads) and time.time() < hold_until + 30:
            peak = max(peak, rss_mb(pid))
            time.sleep(0.2)
        # A plain request still gets through while (or after) they were held.
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
        c.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        health = c.recv(100).split(b"\r\n")[0].decode()
        c.close()
        what = "uploads of" if a.mode == "upload" else "unread GETs of a scene of about"
        print(f"{os.path.basename(a.binary)} {a.args or '(defaults)'}: {a.connections} {what} {a.body_bytes} bytes, "
              f"held {a.hold:.0f} s: RSS {base:.0f} MB at rest, peak {peak:.0f} MB; {dict(sorted(outcome.items()))}; "
              f"then /healthz: {health}")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What a journal of patches costs a restart, two binaries side by side.

    python3 Benchmarks/patch-replay.py --base BIN --head BIN
        [--layers 20000] [--patches 1000] [--rounds 3] [--port 24110]

Each round, for each binary in turn (interleaved): a fresh --data-dir, one
scene of a group with --layers rect children, --patches PATCHes of the
group's own `action` (a 40-byte body that re-derives the whole group), then
SIGTERM, a restart, and the seconds until /readyz answers 200 (the replay).
Prints every round and the medians: the restart time, the bytes the data
directory holds, and how long the patches took (snapshots run meanwhile).
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time


def request(port, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    headers = {"Content-Type": "application/merge-patch+json" if method == "PATCH" else "application/json"} if body else {}
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def start(binary, port, data):
    p = subprocess.Popen(["timeout", "900", binary, "--port", str(port), "--data-dir", data, "--fsync", "never"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    while True:
        try:
            if request(port, "GET", "/readyz")[0] == 200:
                return p, time.monotonic() - t0
        except OSError:
            pass
        if p.poll() is not None:
            raise SystemExit(f"{binary} exited with {p.returncode}")
        time.sleep(0.01)


def stop(p):
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=120)


def one(binary, port, scene, patches):
    data = tempfile.mkdtemp(prefix="patch-replay-")
    try:
        p, _ = start(binary, port, data)
        assert request(port, "PUT", "/scenes/s", scene)[0] == 201
        t0 = time.monotonic()
        for k in range(patches):
            status, _ = request(port, "PATCH", "/scenes/s/layers/g", json.dumps({"action": f"a{k}"}))
            assert status == 200, status
        patching = time.monotonic() - t0
        time.sleep(1)  # a snapshot that is due is taken within 50 ms
        stop(p)
        size = sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data))
        p, ready = start(binary, port, data)
        status, body = request(port, "GET", "/scenes/s")
        assert status == 200 and json.loads(body)["version"] == patches + 1
        stop(p)
        return ready, size, patching
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--head", required=True)
    ap.add_argument("--layers", type=int, default=20000)
    ap.add_argument("--patches", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--port", type=int, default=24110)
    a = ap.parse_args()
    children = [{"id": f"r{i}", "shape": {"type": "rect", "x": i % 200 * 10, "y": i // 200 * 10, "width": 8, "height": 8}}
                for i in range(a.layers)]
    scene = json.dumps({"layers": [{"id": "g", "children": children}]})
    results = {"base": [], "head": []}
    print(f"{a.layers} layers in one group, {a.patches} patches of the group; restart seconds, data dir bytes")
    for r in range(a.rounds):
        for name in ("base", "head"):
            ready, size, patching = one(getattr(a, name), a.port, scene, a.patches)
            results[name].append((ready, size, patching))
            print(f"round {r + 1} {name}: restart {ready:.3f} s, {size} bytes; the patches took {patching:.2f} s", flush=True)
    mb = statistics.median(x[0] for x in results["base"])
    mh = statistics.median(x[0] for x in results["head"])
    sb = statistics.median(x[1] for x in results["base"])
    sh = statistics.median(x[1] for x in results["head"])
    pb = statistics.median(x[2] for x in results["base"])
    ph = statistics.median(x[2] for x in results["head"])
    print(f"median restart: base {mb:.3f} s, head {mh:.3f} s, base/head {mb / mh:.1f}x; data dir: base {sb:.0f} bytes, head {sh:.0f} bytes")
    print(f"median time of the patches: base {pb:.2f} s, head {ph:.2f} s, head/base {ph / pb:.2f}x")


if __name__ == "__main__":
    main()

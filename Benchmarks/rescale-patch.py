#!/usr/bin/env python3
"""What a PATCH that rescales a big group costs, two binaries side by side.

    python3 Benchmarks/rescale-patch.py --base BIN --head BIN
        [--layers 20000] [--patches 100] [--rounds 5] [--kind rect|curve] [--port 24310]

Each round, for each binary in turn (interleaved): a fresh server in memory
mode, one scene of a group with --layers children (rects, or curves with
hit slop, whose flattening and so whose bounds follow the scale), then
--patches PATCHes of the group's `transform` alternating scale 2 and 1, so
that every patch rescales the whole subtree. Prints milliseconds a patch
for every round, the medians and head ÷ base.
"""
import argparse
import http.client
import json
import statistics
import subprocess
import time


def request(port, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    headers = {"Content-Type": "application/merge-patch+json" if method == "PATCH" else "application/json"} if body else {}
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


def child(kind, i):
    x, y = i % 200 * 10, i // 200 * 10
    if kind == "rect":
        return {"id": f"c{i}", "shape": {"type": "rect", "x": x, "y": y, "width": 8, "height": 8}}
    return {"id": f"c{i}", "hitSlop": 1,
            "shape": {"type": "path", "d": f"M {x} {y} C {x} {y + 8} {x + 8} {y + 3} {x + 8} {y} Z"}}


def one(binary, port, kind, layers, patches):
    p = subprocess.Popen([binary, "--port", str(port), "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if request(port, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if p.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{binary} did not start")
            time.sleep(0.02)
        scene = {"layers": [{"id": "g", "children": [child(kind, i) for i in range(layers)]}]}
        status, _ = request(port, "PUT", "/scenes/s", json.dumps(scene))
        assert status == 201, status
        t0 = time.perf_counter()
        for k in range(patches):
            status, _ = request(port, "PATCH", "/scenes/s/layers/g", json.dumps({"transform": {"scale": 2 if k % 2 == 0 else 1}}))
            assert status == 200, status
        return (time.perf_counter() - t0) / patches * 1000
    finally:
        p.terminate()
        p.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--head", required=True)
    ap.add_argument("--layers", type=int, default=20000)
    ap.add_argument("--patches", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kind", choices=["rect", "curve"], default="rect")
    ap.add_argument("--port", type=int, default=24310)
    a = ap.parse_args()
    ms = {"base": [], "head": []}
    for r in range(a.rounds):
        for name in ("base", "head"):
            v = one(getattr(a, name), a.port + 2 * r + (name == "head"), a.kind, a.layers, a.patches)
            ms[name].append(v)
            print(f"round {r + 1} {name}: {v:.2f} ms a patch", flush=True)
    b, h = statistics.median(ms["base"]), statistics.median(ms["head"])
    print(f"{a.kind} x {a.layers}: base {b:.2f} ms, head {h:.2f} ms a patch (medians); head / base {h / b:.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A batch of pointer moves that drag one layer over a big scene: how long
it takes, and whether --max-batch-work refuses it.

The scene: --layers rectangles on a grid (default 100,000, 5000 x 2000
scene units), and a draggable 50 x 50 knob either inside the scene
(`inside`) or at its top-left corner (`edge`, where each move changes the
scene's bounds, so that they are recomputed from every layer). The batch:
a `down` on the knob, --moves `move`s (default 1,000) back and forth by
half a unit, an `up`. Prints the status and time of each.

    python3 Benchmarks/drag-batches.py .build/release/hitroute [--layers 100000] [--moves 1000]

Bounded: the server runs under `timeout` in its own process group on a
free loopback port and is stopped by its PID. Standard library only.
"""
import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--layers", type=int, default=100_000)
    ap.add_argument("--moves", type=int, default=1000)
    args = ap.parse_args()
    port = free_port()
    server = subprocess.Popen(["timeout", "--kill-after=5", "3600", args.binary, "--port", str(port), "--quiet",
                               "--max-batch-points", str(args.moves + 2)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def call(method, path, body=None):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=3000)
        c.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data

    try:
        deadline = time.time() + 30
        while True:
            try:
                call("GET", "/healthz")
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        grid = [{"id": f"r{i}", "shape": {"type": "rect", "x": i % 500 * 10, "y": i // 500 * 10, "width": 9, "height": 9}}
                for i in range(args.layers)]
        print(f"| knob | layers | moves | status | seconds | ms a move |\n| --- | ---: | ---: | --- | ---: | ---: |")
        for name, (x, y) in {"inside": (1000, 100), "edge": (-100, -100)}.items():
            knob = {"id": "knob", "draggable": True, "shape": {"type": "rect", "x": x, "y": y, "width": 50, "height": 50}}
            assert call("PUT", f"/scenes/{name}", json.dumps({"layers": grid + [knob]}))[0] == 201
            at = lambda dx, phase: {"x": x + 20 + dx, "y": y + 20, "pointer": "p", "phase": phase}
            points = [at(0, "down")] + [at(k % 7 * 0.5, "move") for k in range(args.moves)] + [at(0, "up")]
            body = json.dumps({"points": points})
            start = time.monotonic()
            status, _ = call("POST", f"/scenes/{name}/hits", body)
            seconds = time.monotonic() - start
            print(f"| {name} | {args.layers:,} | {args.moves:,} | {status} | {seconds:.2f} | {seconds / args.moves * 1000:.3f} |", flush=True)
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        server.wait(10)


if __name__ == "__main__":
    main()

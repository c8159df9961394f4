#!/usr/bin/env python3
"""Big batches over costly shapes against one hitroute binary: how long a
batch takes, and whether --max-batch-work refuses it.

Five scenes, generated from a fixed seed: one path of 99,999 random cubics
over 0-1000 squared (`curves`), one polygon of 100,000 random vertices
(`polygon`), 8,000 stacked 66-vertex zigzags whose bounds all hold every
point (`stack`), one coherent ring of 100,000 vertices, a country's border
say (`ring`), and 200 rectangles (`rects`); and two a review found whose
reading was not counted as work: 150,000 rectangles stacked over the
picture with one far away, so that the siblings get a tree and a point
inside them draws all 150,000 from it (`stacked`), and 30 layers of one path
of 19,000 thin bars each, whose contours the point mostly falls between
(`bars`). Each is sent a batch of --points random points (default 100,000)
--rounds times; the script prints each batch's status and the median time.
--scenes picks some of them (comma-separated).

With --stall SECONDS it runs a server with one event loop and, for that
long, sends cheap hits on `rects` one after another from one connection
while two others keep asking for costly answers (a 500-point batch and a
single hit, both over `curves`); it prints the cheap hits' latency
percentiles: how long a costly request holds up the loop's other
connections.

With --work it also finds what routing --work-points points (default
1,000) reads per point in each scene: the smallest --max-batch-work that
answers the batch (bisection to 1%, one server start per step; a limit of 1
refuses any batch that reads anything, so a scene whose points read nothing
shows 0.001).

    python3 Benchmarks/heavy-batches.py .build/release/hitroute [--rounds 3] [--work] [--stall 20 [--skip-timings]] [--scenes stacked,bars]

Bounded: every server runs under `timeout` in its own process group on a
free loopback port and is stopped by its PID; every request has a timeout.
Standard library only.
"""
import argparse
import http.client
import json
import math
import os
import random
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scenes(rng):
    r = lambda: round(rng.uniform(0, 1000), 2)
    d = "M 500 500 " + " ".join(f"C {r()} {r()} {r()} {r()} {r()} {r()}" for _ in range(99_999))
    zigzag = [[k * 1000 / 63, 0 if k % 2 == 0 else 1000] for k in range(64)] + [[1000, 1000.5], [0, 1000.5]]
    ring = []
    for k in range(100_000):
        a, radius = k / 100_000 * 2 * math.pi, 400 + rng.uniform(-3, 3)
        ring.append([round(500 + radius * math.cos(a), 3), round(500 + radius * math.sin(a), 3)])
    rects = [{"id": f"r{i}", "shape": {"type": "rect", "x": rng.uniform(0, 900), "y": rng.uniform(0, 900),
                                       "width": rng.uniform(10, 100), "height": rng.uniform(10, 100)}} for i in range(200)]
    stacked = [{"id": "far", "shape": {"type": "rect", "x": 1e15, "y": 0, "width": 1, "height": 1}}]
    stacked += [{"id": f"s{i}", "shape": {"type": "rect", "x": (150_000 - i) / 1000, "y": 0, "width": 2000, "height": 1000}}
                for i in range(150_000)]
    bars = " ".join(f"M0 {k * 1000 / 19_000:.3f}h1000v.01H0z" for k in range(19_000))
    return {
        "curves": {"layers": [{"id": "c", "shape": {"type": "path", "d": d}}]},
        "polygon": {"layers": [{"id": "p", "shape": {"type": "polygon", "points": [[r(), r()] for _ in range(100_000)]}}]},
        "stack": {"layers": [{"id": f"s{i}", "shape": {"type": "polygon", "points": zigzag}} for i in range(8000)]},
        "ring": {"layers": [{"id": "ring", "shape": {"type": "polygon", "points": ring}}]},
        "rects": {"layers": rects},
        "stacked": {"layers": stacked},
        "bars": {"layers": [{"id": f"b{i}", "shape": {"type": "path", "d": bars}} for i in range(30)]},
    }


def batch(rng, count):
    return json.dumps({"points": [{"x": rng.uniform(0, 1000), "y": rng.uniform(0, 1000)} for _ in range(count)]}).encode()


class Server:
    def __init__(self, binary, args, workdir):
        self.port = free_port()
        self.log = open(os.path.join(workdir, "server.log"), "ab")
        self.proc = subprocess.Popen(["timeout", "--kill-after=5", "1800", binary, "--port", str(self.port), "--quiet"] + args,
                                     stdout=self.log, stderr=self.log, start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if self.call("GET", "/healthz", None, timeout=2)[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not answer within 30 s")

    def call(self, method, path, body, timeout=600):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        c.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        self.log.close()


def timings(binary, docs, body, rounds, workdir):
    server = Server(binary, [], workdir)
    try:
        for name, doc in docs.items():
            status, _ = server.call("PUT", f"/scenes/{name}", doc)
            assert status == 201, (name, status)
        print(f"| scene | status | median seconds ({rounds} rounds) |\n| --- | --- | ---: |")
        for name in docs:
            results = []
            for _ in range(rounds):
                start = time.monotonic()
                status, _ = server.call("POST", f"/scenes/{name}/hits", body)
                results.append((status, time.monotonic() - start))
            statuses = "/".join(sorted({str(s) for s, _ in results}))
            print(f"| {name} | {statuses} | {statistics.median(t for _, t in results):.3f} |", flush=True)
    finally:
        server.stop()


def work_per_point(binary, doc, body, points, workdir):
    def answers(limit):
        server = Server(binary, ["--max-batch-work", str(limit)], workdir)
        try:
            assert server.call("PUT", "/scenes/s", doc)[0] == 201
            return server.call("POST", "/scenes/s/hits", body)[0] == 200
        finally:
            server.stop()
    lo, hi = 0, 1
    while not answers(hi):
        lo, hi = hi, hi * 4
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        if answers(mid):
            hi = mid
        else:
            lo = mid
    return hi / points


def stall(binary, docs, seconds, workdir):
    server = Server(binary, ["--threads", "1"], workdir)
    try:
        for name in ("curves", "rects"):
            assert server.call("PUT", f"/scenes/{name}", docs[name])[0] == 201
        rng = random.Random(7)
        costly_batch = batch(rng, 500)
        stop = time.monotonic() + seconds
        costly = {"answered": 0}

        def attack(method, path, body):
            while time.monotonic() < stop:
                try:
                    server.call(method, path, body, timeout=seconds + 60)
                    costly["answered"] += 1
                except OSError:
                    return
        attackers = [threading.Thread(target=attack, args=("POST", "/scenes/curves/hits", costly_batch)),
                     threading.Thread(target=attack, args=("GET", "/scenes/curves/hit?x=500&y=501", None))]
        for t in attackers:
            t.start()
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=seconds + 60)
        latencies = []
        while time.monotonic() < stop:
            start = time.monotonic()
            c.request("GET", "/scenes/rects/hit?x=50&y=50")
            c.getresponse().read()
            latencies.append(time.monotonic() - start)
        c.close()
        for t in attackers:
            t.join(seconds + 120)
        latencies.sort()
        pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
        print(f"\n| cheap hits | p50 ms | p99 ms | max ms | costly answers |\n| ---: | ---: | ---: | ---: | ---: |\n"
              f"| {len(latencies)} | {pick(0.5):.2f} | {pick(0.99):.2f} | {latencies[-1] * 1000:.1f} | {costly['answered']} |")
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", action="store_true")
    ap.add_argument("--work-points", type=int, default=1000)
    ap.add_argument("--stall", type=float, default=0)
    ap.add_argument("--skip-timings", action="store_true")
    ap.add_argument("--scenes", help="comma-separated names (default: all)")
    args = ap.parse_args()
    rng = random.Random(20261201)
    every = {name: json.dumps(doc).encode() for name, doc in scenes(rng).items()}
    docs = {name: every[name] for name in args.scenes.split(",")} if args.scenes else every
    with tempfile.TemporaryDirectory() as workdir:
        if not args.skip_timings:
            timings(args.binary, docs, batch(rng, args.points), args.rounds, workdir)
        if args.stall:
            stall(args.binary, every, args.stall, workdir)
        if args.work:
            body = batch(rng, args.work_points)
            print(f"\n| scene | work per point ({args.work_points} points) |\n| --- | ---: |")
            for name, doc in docs.items():
                print(f"| {name} | {work_per_point(args.binary, doc, body, args.work_points, workdir):,.1f} |", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Side by side, in one run: the batch time per point of two or more
hitroute-inproc builds on one scene, their `--serve` rounds interleaved.

    python3 Benchmarks/inproc-ab.py SCENE.json POINTS.f64 ROUNDS BUILD...

Every build loads the scene at once; then each round asks each build in turn
for one round (an untimed pass, a timed batch pass and a one-by-one latency
pass). Prints each build's median `mean_ns` (the batch pass) and its ratio to
the first build's. Scenes: `hitroute-bench generate N`; points: float64 pairs
as Benchmarks/harness.py writes them.
"""
import json
import statistics
import subprocess
import sys

if len(sys.argv) < 5:
    sys.exit(__doc__)
scene, points, rounds, builds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
workers = [subprocess.Popen([b, scene, points, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
           for b in builds]
for w in workers:
    json.loads(w.stdout.readline())  # ready
samples = {b: [] for b in builds}
for _ in range(rounds):
    for b, w in zip(builds, workers):
        w.stdin.write("round\n")
        w.stdin.flush()
        samples[b].append(json.loads(w.stdout.readline())["mean_ns"])
for w in workers:
    w.stdin.close()
    w.wait()
first = statistics.median(samples[builds[0]])
for b in builds:
    m = statistics.median(samples[b])
    print(f"{b}: median {m:.0f} ns a point ({m / first:.3f}× the first); rounds: "
          + " ".join(f"{v:.0f}" for v in samples[b]))

"""A whole-scene audit against Shapely 2's STRtree routing the same points.

    /work/venv/bin/python Benchmarks/audit-vs-shapely.py [--rounds 5] [--polygons 100000]

Builds `hitroute-bench` (release) first. The scene is `hitroute-bench generate N`
(star polygons, one top-level layer each, later ones on top); the grid is
hitroute's default audit grid over the scene's bounds: 512 × 512 samples at the
cell centres. Each round, interleaved, times

* hitroute: `hitroute-bench audit N 1`, the whole audit in process (routing by
  the batch router, areas, boxes, largest squares, reach points, spacing,
  coveredBy and blockers) — compiling the scene is not timed;
* Shapely: `STRtree.query(points, predicate="intersects")` over the same
  262,144 points, then the topmost polygon of each point (`np.maximum.at`
  over the pairs) — routing alone, building the tree is not timed.

Both sides' hit counts are printed (they agree: points on no polygon's
boundary). Memory: the audit's peak RSS beyond the compiled scene at 512² and
at 1024² samples; the difference over the extra samples is the bytes a sample.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import shapely
from shapely import STRtree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--polygons", type=int, default=100_000)
    a = ap.parse_args()
    subprocess.run(["swift", "build", "-c", "release", "--product", "hitroute-bench"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    bench = os.path.join(ROOT, ".build/release/hitroute-bench")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scene.json")
        with open(path, "wb") as f:
            subprocess.run([bench, "generate", str(a.polygons)], stdout=f, check=True)
        with open(path) as f:
            scene = json.load(f)
    polys = [shapely.Polygon(layer["shape"]["points"]) for layer in scene["layers"]]
    tree = STRtree(polys)
    b = np.array([p.bounds for p in polys])
    x0, y0, x1, y1 = b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()
    r = max(x1 - x0, y1 - y0) / 512
    nx, ny = int(np.ceil((x1 - x0) / r)), int(np.ceil((y1 - y0) / r))
    ii, jj = np.meshgrid(np.arange(nx), np.arange(ny))
    points = shapely.points(x0 + (ii.ravel() + 0.5) * r, y0 + (jj.ravel() + 0.5) * r)

    audit_ms, shapely_ms = [], []
    hits = None
    for k in range(a.rounds):
        out = subprocess.run([bench, "audit", str(a.polygons), "1"], capture_output=True, text=True, check=True).stdout
        audit_ms.append(float(re.search(r"whole audit:\s+([\d.]+) ms", out).group(1)))
        routed = int(re.search(r"(\d+) samples hit", out).group(1))
        t0 = time.perf_counter()
        pi, gi = tree.query(points, predicate="intersects")
        top = np.full(len(points), -1)
        np.maximum.at(top, pi, gi)
        shapely_ms.append((time.perf_counter() - t0) * 1000)
        hits = (routed, int((top >= 0).sum()))
        print(f"round {k + 1}: audit {audit_ms[-1]:.1f} ms, shapely routing {shapely_ms[-1]:.1f} ms", flush=True)
    ma, ms = statistics.median(audit_ms), statistics.median(shapely_ms)
    print(f"{len(points)} samples, {a.polygons} polygons; hits: hitroute {hits[0]}, shapely {hits[1]}")
    print(f"median: whole audit {ma:.1f} ms, shapely routing alone {ms:.1f} ms, ratio {ma / ms:.2f}")

    peaks = {}
    for divisions in (512, 1024):
        out = subprocess.run([bench, "audit", str(a.polygons), "1", str(divisions)], capture_output=True, text=True,
                             check=True).stdout
        mib = float(re.search(r"peak RSS \+\s*([\d.]+) MiB", out).group(1))
        samples = int(re.search(r"= (\d+) samples", out).group(1))
        peaks[divisions] = (samples, mib)
        print(f"memory at {samples} samples: peak RSS +{mib:.1f} MiB beyond the scene")
    (s1, m1), (s2, m2) = peaks[512], peaks[1024]
    print(f"marginal: {(m2 - m1) * 1048576 / (s2 - s1):.1f} bytes a sample; "
          f"fixed part (per target, at {s1} samples): {m1 * 1048576 / a.polygons - (m2 - m1) * 1048576 / (s2 - s1) * s1 / a.polygons:.0f} bytes a target")


if __name__ == "__main__":
    sys.exit(main())

"""Peer: Shapely 2.x STRtree answering "topmost polygon per point".

    Benchmarks/.venv/bin/python Benchmarks/peers/shapely_strtree.py \
        SCENE.json POINTS.f64 [--runs N] [--answers OUT.i32]

Loads a scene written by `hitroute-bench generate N` (top-level layers
`p<i>`, each one polygon, later ones on top), builds an STRtree over the
polygons and queries all points (little-endian float64 x, y pairs)
vectorised: `tree.query(points, predicate="within")` gives every
(point, polygon) pair with the point inside the polygon; the topmost is the
highest layer number per point. One core (Shapely/GEOS run single-threaded).

Prints one JSON line: polygons, vertices, build_ms (median STRtree build),
query_s (median over runs of query + topmost reduction), points_per_s, hits.
With --serve it loads once, prints a ready line, then does one round (build +
query) per line read from stdin and prints its figures, so that run.sh can
interleave its rounds with hitroute's.
`--answers` writes the per-point layer number as int32 (-1 for none), for
run.sh to compare with hitroute's answers.
"""

import argparse
import itertools
import json
import statistics
import sys
import time

import numpy as np
import shapely
from shapely import STRtree


def load_polygons(path):
    with open(path, "rb") as f:
        scene = json.load(f)
    layer_numbers = []
    rings = []
    offsets = [0]
    total = 0
    for layer in scene["layers"]:
        shape = layer.get("shape") or {}
        if shape.get("type") != "polygon":
            continue
        pts = shape["points"]
        layer_numbers.append(int(layer["id"][1:]))
        rings.append(pts)
        rings.append((pts[0],))  # close the ring
        total += len(pts) + 1
        offsets.append(total)
    flat = itertools.chain.from_iterable(itertools.chain.from_iterable(rings))
    coords = np.fromiter(flat, dtype=np.float64, count=2 * total).reshape(-1, 2)
    ring_offsets = np.asarray(offsets, dtype=np.int64)
    polygon_offsets = np.arange(len(layer_numbers) + 1, dtype=np.int64)
    polygons = shapely.from_ragged_array(
        shapely.GeometryType.POLYGON, coords, (ring_offsets, polygon_offsets))
    vertices = int(total - len(layer_numbers))
    return polygons, np.asarray(layer_numbers, dtype=np.int32), vertices


def topmost(tree, points, numbers):
    pairs = tree.query(points, predicate="within")  # [point index], [tree index]
    answers = np.full(len(points), -1, dtype=np.int32)
    np.maximum.at(answers, pairs[0], numbers[pairs[1]])
    return answers


def one_round(polygons, points, numbers):
    """Builds an STRtree and answers every point: (build s, query s, answers)."""
    t = time.perf_counter()
    tree = STRtree(polygons)
    tree.query(shapely.points([[0.0, 0.0]]))  # STRtree builds lazily: force it
    build = time.perf_counter() - t
    t = time.perf_counter()
    answers = topmost(tree, points, numbers)
    return build, time.perf_counter() - t, answers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scene")
    ap.add_argument("points")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--answers")
    ap.add_argument("--serve", action="store_true",
                    help="load once, print a ready line, then answer one round per stdin line")
    a = ap.parse_args()

    t = time.perf_counter()
    polygons, numbers, vertices = load_polygons(a.scene)
    load_s = time.perf_counter() - t
    xy = np.fromfile(a.points, dtype="<f8").reshape(-1, 2)
    points = shapely.points(xy)
    info = {"polygons": int(len(polygons)), "vertices": vertices, "points": int(len(xy)), "load_s": load_s,
            "shapely": shapely.__version__, "geos": shapely.geos_version_string}

    if a.serve:
        print(json.dumps(dict(info, ready=True)), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            build, query, answers = one_round(polygons, points, numbers)
            if a.answers:
                answers.astype("<i4").tofile(a.answers)
            print(json.dumps({"build_ms": build * 1e3, "query_s": query, "points_per_s": len(xy) / query,
                              "hits": int((answers >= 0).sum())}), flush=True)
        return 0

    builds, queries = [], []
    answers = None
    for _ in range(max(1, a.runs)):
        build, query, answers = one_round(polygons, points, numbers)
        builds.append(build)
        queries.append(query)
    if a.answers:
        answers.astype("<i4").tofile(a.answers)
    q = statistics.median(queries)
    print(json.dumps(dict(info, hits=int((answers >= 0).sum()), build_ms=statistics.median(builds) * 1e3,
                          query_s=q, points_per_s=len(xy) / q)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

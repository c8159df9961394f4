"""Writes a polygon scene like `hitroute-bench generate N`, in a world of any size.

    python3 Benchmarks/gen_scene.py N WORLD OUT.json [--seed S]

`hitroute-bench generate N` always uses a 10,000² world, so the number of
polygons over a point grows with N. For the constant-density growth series
the harness scales the world with N instead (WORLD = 10,000 · √(N / 10⁵)),
keeping the polygons' shape: star-shaped, 16–64 vertices, radius 5–60 (each
vertex at 0.5–1 × the radius), two decimals, one top-level layer `p<i>` with
action "select" each, later ones on top. Seeded numpy, so runs repeat.
"""

import argparse
import math

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("world", type=float)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    centres = rng.uniform(0, a.world, size=(a.n, 2))
    counts = rng.integers(16, 65, size=a.n)
    radii = rng.uniform(5, 60, size=a.n)
    with open(a.out, "w") as f:
        f.write('{"id":"polygons-%d","width":%s,"height":%s,"layers":[' % (a.n, a.world, a.world))
        for i in range(a.n):
            k = int(counts[i])
            angle = np.arange(k) / k * 2 * math.pi
            r = radii[i] * rng.uniform(0.5, 1, size=k)
            xs = np.round(centres[i, 0] + r * np.cos(angle), 2)
            ys = np.round(centres[i, 1] + r * np.sin(angle), 2)
            pts = ",".join("[%r,%r]" % (float(x), float(y)) for x, y in zip(xs, ys))
            f.write('%s{"id":"p%d","action":"select","shape":{"type":"polygon","points":[%s]}}'
                    % ("," if i else "", i, pts))
        f.write("]}")


if __name__ == "__main__":
    main()

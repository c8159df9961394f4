#!/usr/bin/env python3
"""PNG decode speed: HitImage's decoder against Pillow's on the same files.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pillow
    /tmp/venv/bin/python Benchmarks/png/png-decode.py [--rounds 7]

Makes the files (Pillow, deterministic, in $PNG_BENCH_DIR, default
/tmp/hitroute-png-bench), builds Benchmarks/png/PNGDecodeBench.swift with the
HitImage sources (swiftc -O), then runs rounds interleaved (Swift, Pillow,
Swift, …) and prints the medians as a markdown table: MB/s of PNG file and
megapixels/s. Pillow's figure is Image.open + load() (a full RGBA decode: it
has no alpha-only path); ours is decodeAlpha (inflate and unfilter all
channels, keep alpha). Both are single-threaded.
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import time

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.environ.get("PNG_BENCH_DIR", "/tmp/hitroute-png-bench")


def make_files():
    os.makedirs(OUT, exist_ok=True)
    files = []
    rng = random.Random(4096)
    # A sprite sheet: flat colours and antialiased shapes on transparency (compresses well).
    path = os.path.join(OUT, "sprites-rgba-4096.png")
    if not os.path.exists(path):
        im = Image.new("RGBA", (4096, 4096), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        for _ in range(3000):
            x, y, r = rng.randrange(4096), rng.randrange(4096), rng.randrange(8, 90)
            d.ellipse((x - r, y - r, x + r, y + r), fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.randrange(64, 256)))
        im.save(path, compress_level=6)
    files.append(path)
    # A photo-like image: smooth gradients plus noise in every channel (compresses poorly).
    path = os.path.join(OUT, "noisy-rgba-4096.png")
    if not os.path.exists(path):
        base = Image.radial_gradient("L").resize((4096, 4096))
        noise = Image.effect_noise((4096, 4096), 40)
        im = Image.merge("RGBA", (base, noise, Image.linear_gradient("L").resize((4096, 4096)), Image.blend(base, noise, 0.5)))
        im.save(path, compress_level=6)
    files.append(path)
    # A palette image with tRNS.
    path = os.path.join(OUT, "sprites-palette-4096.png")
    if not os.path.exists(path):
        im = Image.open(files[0]).convert("RGBA").quantize(64)
        im.info["transparency"] = bytes(range(0, 256, 4))
        im.save(path, compress_level=6, transparency=bytes(range(0, 256, 4)))
    files.append(path)
    return files


def build():
    binary = os.path.join(OUT, "png-decode-bench")
    sources = sorted(os.path.join(ROOT, "Sources/HitImage", f) for f in os.listdir(os.path.join(ROOT, "Sources/HitImage")) if f.endswith(".swift"))
    subprocess.run(["swiftc", "-O", "-wmo", "-parse-as-library", "-module-name", "HitImageBench", *sources,
                    os.path.join(HERE, "PNGDecodeBench.swift"), "-o", binary], check=True)
    return binary


def swift_times(binary, path, n):
    out = subprocess.run([binary, str(n), path], check=True, capture_output=True, text=True).stdout.split()
    return int(out[1]), int(out[2]), [float(t) for t in out[3:]]


def pillow_times(path, n):
    data = open(path, "rb").read()
    import io
    times = []
    for _ in range(n):
        start = time.perf_counter()
        im = Image.open(io.BytesIO(data))
        im.load()
        times.append(time.perf_counter() - start)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    files = make_files()
    binary = build()
    print(f"| file | PNG bytes | pixels | HitImage MB/s | Pillow MB/s | HitImage Mpx/s | Pillow Mpx/s | ratio |")
    print(f"|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in files:
        ours, theirs = [], []
        size = pixels = 0
        for _ in range(args.rounds):  # interleaved rounds: one decode each
            size, pixels, t = swift_times(binary, path, 1)
            ours += t
            theirs += pillow_times(path, 1)
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"| {os.path.basename(path)} | {size:,} | {pixels:,} | {size / a / 1e6:.1f} | {size / b / 1e6:.1f} | "
              f"{pixels / a / 1e6:.1f} | {pixels / b / 1e6:.1f} | {b / a:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generates the PNG decoder's oracle corpus: Tests/Corpus/png/*.png and, for
each, the expected alpha plane *.alpha (width*height bytes, row-major, top
row first; 16-bit alpha keeps its high byte); and zlib streams made by
Python's zlib, Tests/Corpus/zlib/*.z, with their contents *.raw.

Every colour type x bit depth x transparency variant x filter choice x
interlace is written by hand here (raw scanlines with the chosen filter
bytes, compressed with Python's zlib using stored, fixed-Huffman and
dynamic-Huffman blocks, IDAT sometimes split into many chunks), so every
filter and block type is covered. Two independent decoders are the oracles:
the expected alpha is what Pillow decodes, and it must equal what pypng (a
pure-Python decoder) decodes and the generator's own model of the pixels.
Pillow mishandles colour-key transparency (tRNS) in three cases, listed in
pillow_differs(): there pypng's answer (equal to the model) is written and
the cases are printed.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pillow pypng
    /tmp/venv/bin/python Tests/Corpus/make_png_corpus.py

Deterministic (seeded): running it twice writes identical files.
"""
import io
import os
import random
import struct
import sys
import zlib

import png  # pypng
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "png")
ZLIB_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zlib")

# (colour type, bit depths, transparency variants)
KINDS = [
    (0, [1, 2, 4, 8, 16], ["none", "key"]),
    (2, [8, 16], ["none", "key"]),
    (3, [1, 2, 4, 8], ["none", "short", "full"]),
    (4, [8, 16], ["none"]),
    (6, [8, 16], ["none"]),
]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
NAMES = {0: "gray", 2: "rgb", 3: "palette", 4: "grayalpha", 6: "rgba"}
FILTERS = ["f0", "f1", "f2", "f3", "f4", "mixed"]
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(ftype, row, prev, bpp):
    out = bytearray(len(row))
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][ftype]
        out[i] = (x - pred) & 0xFF
    return bytes([ftype]) + bytes(out)


def pack_row(samples, depth):
    """Packs a row of integer samples at `depth` bits, MSB first (16-bit big-endian)."""
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out = bytearray()
    per = 8 // depth
    for i in range(0, len(samples), per):
        byte = 0
        group = samples[i:i + per]
        for j, s in enumerate(group):
            byte |= s << (8 - depth * (j + 1))
        out.append(byte)
    return bytes(out)


def passes(w, h, interlaced):
    if not interlaced:
        return [(0, 0, 1, 1)]
    return ADAM7


def make_image(rng, w, h, ctype, depth, variant):
    """Returns (pixels: list of rows of sample tuples, extra chunks, model alpha)."""
    ch = CHANNELS[ctype]
    top = (1 << depth) - 1
    extra = b""
    alpha = bytearray(w * h)
    pixels = []
    key = None
    palette_size = 0
    trns = b""
    if ctype == 3:
        palette_size = min(1 << depth, 5 if depth == 1 else 200)
        palette_size = max(2, min(palette_size, 1 << depth))
        if depth == 1:
            palette_size = 2
        pal = bytes(rng.randrange(256) for _ in range(3 * palette_size))
        extra += chunk(b"PLTE", pal)
        if variant == "short":
            trns = bytes(rng.choice([0, 1, 127, 128, 254, 255, rng.randrange(256)]) for _ in range(max(1, palette_size // 2)))
        elif variant == "full":
            trns = bytes(rng.randrange(256) for _ in range(palette_size))
        if trns:
            extra += chunk(b"tRNS", trns)
    if variant == "key" and ctype == 0:
        key = (rng.randrange(top + 1),)
        extra += chunk(b"tRNS", struct.pack(">H", key[0]))
    if variant == "key" and ctype == 2:
        key = tuple(rng.randrange(top + 1) for _ in range(3))
        extra += chunk(b"tRNS", struct.pack(">HHH", *key))
    for y in range(h):
        row = []
        for x in range(w):
            if ctype == 3:
                s = (rng.randrange(palette_size),)
                a = trns[s[0]] if s[0] < len(trns) else 255
            elif key is not None and rng.random() < 0.3:
                s = key
                a = 0
            else:
                s = tuple(rng.choice([0, top, top // 2, rng.randrange(top + 1)]) for _ in range(ch))
                if ctype in (4, 6):
                    a = s[-1] >> 8 if depth == 16 else s[-1]
                elif key is not None:
                    a = 0 if s == key else 255
                else:
                    a = 255
            row.append(s)
            alpha[y * w + x] = a
        pixels.append(row)
    return pixels, extra, bytes(alpha)


def encode(pixels, w, h, ctype, depth, interlaced, filter_mode, extra, compression, idat_split):
    ch = CHANNELS[ctype]
    bpp = max(1, ch * depth // 8)
    raw = bytearray()
    n = 0
    for (xs, ys, dx, dy) in passes(w, h, interlaced):
        cols = (w - xs + dx - 1) // dx if w > xs else 0
        rows = (h - ys + dy - 1) // dy if h > ys else 0
        if cols == 0 or rows == 0:
            continue
        prev = bytes((cols * ch * depth + 7) // 8)
        for r in range(rows):
            y = ys + r * dy
            samples = [v for c in range(cols) for v in pixels[y][xs + c * dx]]
            line = pack_row(samples, depth)
            ftype = n % 5 if filter_mode == "mixed" else int(filter_mode[1])
            raw += filter_row(ftype, line, prev, bpp)
            prev = line
            n += 1
    level, strategy = compression
    co = zlib.compressobj(level, zlib.DEFLATED, 15, 9, strategy)
    stream = co.compress(bytes(raw)) + co.flush()
    ihdr = struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 1 if interlaced else 0)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra
    if idat_split:
        for i in range(0, len(stream), idat_split):
            out += chunk(b"IDAT", stream[i:i + idat_split])
    else:
        out += chunk(b"IDAT", stream)
    return out + chunk(b"IEND", b"")


def pillow_alpha(data):
    im = Image.open(io.BytesIO(data))
    im.load()
    w, h = im.size
    if "A" in im.getbands():
        return im.getchannel("A").tobytes()
    if "transparency" in im.info:
        return im.convert("RGBA").getchannel("A").tobytes()
    return bytes([255]) * (w * h)


def pypng_alpha(data):
    w, h, rows, info = png.Reader(bytes=data).asRGBA()
    depth = info["bitdepth"]
    top = (1 << depth) - 1
    out = bytearray()
    for row in rows:
        for a in row[3::4]:
            out.append(a >> 8 if depth == 16 else a * 255 // top)
    return bytes(out)


def pillow_differs(ctype, depth, variant):
    """Where Pillow 13 is known to differ from the PNG spec: a gray key of
    2 or 4 bits is compared with samples already scaled to 8 bits; a 16-bit
    gray image (mode I;16) loses its key in convert("RGBA"); a 16-bit RGB
    image is cut to 8 bits and then compared with the 16-bit key."""
    return variant == "key" and ((ctype == 0 and depth in (2, 4, 16)) or (ctype == 2 and depth == 16))


def expected_alpha(name, data, model, ctype, depth, variant, differ):
    pil = pillow_alpha(data)
    pyp = pypng_alpha(data)
    if pyp != model:
        raise SystemExit(f"{name}: pypng disagrees with the model")
    if pil == model:
        return pil
    if pillow_differs(ctype, depth, variant):
        differ.append(name)
        return pyp
    raise SystemExit(f"{name}: Pillow disagrees with pypng and the model")


def zlib_corpus():
    """zlib streams of several contents, levels, strategies and window sizes."""
    os.makedirs(ZLIB_OUT, exist_ok=True)
    for f in os.listdir(ZLIB_OUT):
        os.remove(os.path.join(ZLIB_OUT, f))
    rng = random.Random(1950)
    words = [b"hit", b"route", b"mask", b"alpha", b"pixel", b"layer", b" ", b"\n", b"png", b"zlib"]
    contents = {
        "empty": b"",
        "byte": b"x",
        "text": b"".join(rng.choice(words) for _ in range(3000)),
        "random": bytes(rng.randrange(256) for _ in range(5000)),
        "zeros": bytes(70000),
        "runs": b"".join(bytes([rng.randrange(4)]) * rng.randrange(1, 300) for _ in range(100)),
        "far": (bytes(rng.randrange(256) for _ in range(20000))) * 2,
    }
    few = {"random", "far"}  # incompressible: a few cases only
    strategies = {"default": zlib.Z_DEFAULT_STRATEGY, "filtered": zlib.Z_FILTERED, "huffman": zlib.Z_HUFFMAN_ONLY,
                  "rle": zlib.Z_RLE, "fixed": zlib.Z_FIXED}
    total = 0
    for name, data in contents.items():
        cases = [(level, "default", 15) for level in (0, 1, 6, 9)] + [(6, st, 15) for st in strategies if st != "default"]
        cases += [(9, "default", 9), (9, "default", 12)]
        if name in few:
            cases = [(9, "default", 15), (1, "huffman" if name == "random" else "default", 15)]
        for level, st, wbits in cases:
            co = zlib.compressobj(level, zlib.DEFLATED, wbits, 9, strategies[st])
            stream = co.compress(data) + co.flush()
            assert zlib.decompress(stream) == data
            base = f"{name}-l{level}-{st}-w{wbits}"
            with open(os.path.join(ZLIB_OUT, base + ".z"), "wb") as f:
                f.write(stream)
            total += len(stream)
        with open(os.path.join(ZLIB_OUT, name + ".raw"), "wb") as f:
            f.write(data)
        total += len(data)
    print(f"zlib corpus: {len(contents)} contents, {total} bytes")


def main():
    zlib_corpus()
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    rng = random.Random(19)
    compressions = [(0, zlib.Z_DEFAULT_STRATEGY), (6, zlib.Z_FIXED), (9, zlib.Z_DEFAULT_STRATEGY)]
    count = 0
    total = 0
    differ = []
    for ctype, depths, variants in KINDS:
        for depth in depths:
            for variant in variants:
                for interlaced in (False, True):
                    for fi, fmode in enumerate(FILTERS):
                        w, h = rng.choice([(13, 11), (9, 7), (1, 1), (1, 9), (9, 1), (17, 3), (5, 16)])
                        pixels, extra, model = make_image(rng, w, h, ctype, depth, variant)
                        compression = compressions[count % 3]
                        split = [0, 0, 7, 64][count % 4]
                        data = encode(pixels, w, h, ctype, depth, interlaced, fmode, extra, compression, split)
                        name = f"{NAMES[ctype]}{depth}-{variant}-{'adam7' if interlaced else 'plain'}-{fmode}"
                        expected = expected_alpha(name, data, model, ctype, depth, variant, differ)
                        with open(os.path.join(OUT, name + ".png"), "wb") as f:
                            f.write(data)
                        with open(os.path.join(OUT, name + ".alpha"), "wb") as f:
                            f.write(expected)
                        count += 1
                        total += len(data) + len(expected)
    # A larger compressible image: long matches and far distances (dynamic blocks).
    w, h = 160, 120
    pixels = [[(x & 255, y & 255, (x * y) & 255, (x + y) * 2 & 255) for x in range(w)] for y in range(h)]
    model = bytes(((x + y) * 2) & 255 for y in range(h) for x in range(w))
    for interlaced in (False, True):
        data = encode(pixels, w, h, 6, 8, interlaced, "mixed", b"", (9, zlib.Z_DEFAULT_STRATEGY), 1000)
        name = f"gradient-rgba8-{'adam7' if interlaced else 'plain'}"
        got = expected_alpha(name, data, model, 6, 8, "none", differ)
        with open(os.path.join(OUT, name + ".png"), "wb") as f:
            f.write(data)
        with open(os.path.join(OUT, name + ".alpha"), "wb") as f:
            f.write(got)
        count += 1
        total += len(data) + len(got)
    print(f"{count} images, {total} bytes")
    if differ:
        print(f"Pillow differs (known, pypng and the model agree) on {len(differ)}:", ", ".join(differ))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The costliest input per byte for the inflater: a 1×1 PNG whose zlib stream
is N dynamic-Huffman blocks that emit nothing (each ~12 bytes, each forcing
three table builds), then a stored block with the image's two bytes.

    python3 Benchmarks/png/empty_blocks.py OUT.png [N]   # default N = 1,000,000 (≈ 11.7 MB)
then time it with the decode bench:  /tmp/hitroute-png-bench/png-decode-bench 3 OUT.png
"""
import struct
import sys
import zlib


class Bits:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def write(self, value, bits):
        self.acc |= value << self.n
        self.n += bits
        while self.n >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.n -= 8

    def code(self, code, length):  # Huffman codes go most significant bit first
        for k in range(length - 1, -1, -1):
            self.write((code >> k) & 1, 1)

    def align(self):
        if self.n:
            self.write(0, 8 - self.n)


def empty_dynamic_block(b):
    b.write(0, 1)  # not final
    b.write(2, 2)  # dynamic
    b.write(0, 5)  # 257 literal/length codes
    b.write(0, 5)  # 1 distance code
    b.write(15, 4)  # 19 code-length code lengths
    order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    for s in order:  # symbols 1 and 18 get one bit each: 1 -> code 0, 18 -> code 1
        b.write(1 if s in (1, 18) else 0, 3)
    b.code(1, 1); b.write(127, 7)  # 138 zeros
    b.code(1, 1); b.write(107, 7)  # 118 zeros: symbols 0..255 unused
    b.code(0, 1)  # end-of-block gets length 1
    b.code(0, 1)  # the one distance code gets length 1
    b.code(0, 1)  # the block's only symbol: end of block


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    b = Bits()
    for _ in range(n):
        empty_dynamic_block(b)
    b.write(1, 1); b.write(0, 2); b.align()  # final stored block
    data = b"\x00\x00"
    b.out += struct.pack("<HH", len(data), len(data) ^ 0xFFFF) + data
    stream = b"\x78\x01" + bytes(b.out) + struct.pack(">I", zlib.adler32(data))
    assert zlib.decompress(stream) == data

    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    png += chunk(b"IDAT", stream) + chunk(b"IEND", b"")
    open(path, "wb").write(png)
    print(f"{path}: {len(png):,} bytes, {n:,} empty dynamic blocks")


if __name__ == "__main__":
    main()

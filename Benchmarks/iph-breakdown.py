#!/usr/bin/env python3
"""Where one hit's instructions go: callgrind's count of a single-hit load,
divided by the requests, by module and by function.

    python3 Benchmarks/iph-breakdown.py [--body JSON] [--port N] [--seconds S]
                                        [--top K] [BINARY]

BINARY defaults to .build/release/hitroute. The server runs with one event
loop under `valgrind --tool=callgrind --instr-atstart=no` on a loopback port
(default 28970), is given the ring scene (examples/ring-over-button.json) as
`ring-demo`, and only then is instrumentation switched on
(`callgrind_control -i on`): start-up and the upload are not counted. wrk
(1 thread, 16 keep-alive connections, wrk/one-hit.lua) sends `--body`
(default the traced `{"x":120,"y":120}`) for `--seconds` (default 6); then
the server is stopped and the instructions it ran are divided by the
requests wrk completed.

A function is put in the module whose `Sources/<Module>/` file holds it,
else in the module its mangled name starts with (compiler-generated code:
value witnesses, outlined copies, specializations), else in a row of its
own when it is the standard library's generic code specialized into the
binary, else in the library it is in (the Swift runtime's retain and
release, libc's memcpy and malloc).
The counts are of user space only, like Benchmarks/instructions-per-hit.sh,
whose per-hit total this matches to a few percent (a function under 0.01%
of the run is left out of both tables).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^\s*([\d,]+) \([^)]*\)\s+(.*?):(\S+)(?: \[(.*)\])?\s*$")
MANGLED_MODULE = re.compile(r"^\$s(\d+)")


def module_of(path, symbol, obj):
    m = re.search(r"/Sources/([^/]+)/", path)
    if m:
        return m.group(1)
    m = MANGLED_MODULE.match(symbol)
    if m:
        n = int(m.group(1))
        name = symbol[m.end():m.end() + n]
        if name and name != "s":
            return name
    if symbol.startswith("$s") and not obj.endswith(".so") and ".so." not in obj:
        return "stdlib generics specialized into the binary"
    if obj:
        return os.path.basename(obj)
    return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", nargs="?", default=os.path.join(HERE, "..", ".build", "release", "hitroute"))
    ap.add_argument("--body", default='{"x":120,"y":120}')
    ap.add_argument("--port", type=int, default=28970)
    ap.add_argument("--seconds", type=int, default=6)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_control", "callgrind_annotate", "wrk"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing (Debian: apt-get install valgrind wrk)")
    work = tempfile.mkdtemp(prefix="iph-breakdown-")
    out = os.path.join(work, "cg.out")
    server = subprocess.Popen(
        ["timeout", str(120 + args.seconds), "valgrind", "--tool=callgrind", "--instr-atstart=no",
         f"--callgrind-out-file={out}", args.binary, "--port", str(args.port), "--quiet", "--threads", "1"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "valgrind.err"), "w"), start_new_session=True)
    try:
        base = f"http://127.0.0.1:{args.port}"
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).read()
                break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit("the server exited (see valgrind's output)")
                time.sleep(0.2)
        ring = open(os.path.join(HERE, "..", "examples", "ring-over-button.json"), "rb").read()
        put = urllib.request.Request(base + "/scenes/ring-demo", data=ring, method="PUT")
        urllib.request.urlopen(put, timeout=30).read()
        valgrind_pid = str(server.pid)
        children = subprocess.run(["pgrep", "-P", valgrind_pid], capture_output=True, text=True).stdout.split()
        target = children[0] if children else valgrind_pid  # `timeout` runs valgrind as its child
        subprocess.run(["callgrind_control", "-i", "on", target], check=True, capture_output=True)
        env = dict(os.environ, HIT_BODY=args.body, HIT_KEY="")
        wrk = subprocess.run(["wrk", "-t1", "-c16", f"-d{args.seconds}s", "-s",
                              os.path.join(HERE, "wrk", "one-hit.lua"), base + "/"],
                             capture_output=True, text=True, env=env, timeout=args.seconds + 60).stdout
        m = re.search(r"(\d+) requests in", wrk)
        if not m or "Non-2xx" in wrk:
            raise SystemExit(f"wrk did not run cleanly:\n{wrk}")
        requests = int(m.group(1))
    finally:
        try:
            os.killpg(server.pid, 15)
        except ProcessLookupError:
            pass
        server.wait(timeout=60)
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=99.99", "--auto=no", out],
                               capture_output=True, text=True).stdout
    shutil.rmtree(work, ignore_errors=True)
    by_module = collections.Counter()
    by_function = collections.Counter()
    total = 0
    for line in annotated.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
            continue
        m = LINE.match(line)
        if not m:
            continue
        ir, path, symbol, obj = int(m.group(1).replace(",", "")), m.group(2), m.group(3), m.group(4) or ""
        by_module[module_of(path, symbol, obj)] += ir
        by_function[symbol] += ir
    names = list(by_function)
    demangled = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                               capture_output=True, text=True).stdout.splitlines() if shutil.which("swift") else names
    pretty = dict(zip(names, demangled)) if len(demangled) == len(names) else {n: n for n in names}
    print(f"{requests:,} requests of {args.body}; {total / requests:,.0f} instructions a request\n")
    print("| module | instructions a request | share |\n| --- | ---: | ---: |")
    for name, ir in by_module.most_common():
        if ir / requests >= 1:
            print(f"| {name} | {ir / requests:,.0f} | {ir / total:.1%} |")
    print(f"\n| function (top {args.top}) | instructions a request |\n| --- | ---: |")
    for symbol, ir in by_function.most_common(args.top):
        print(f"| `{pretty[symbol][:110]}` | {ir / requests:,.0f} |")


if __name__ == "__main__":
    sys.exit(main())

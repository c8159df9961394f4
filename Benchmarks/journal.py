#!/usr/bin/env python3
"""Journal benchmarks (SPEC §9, issue 17), against a built hitroute binary.

    python3 Benchmarks/journal.py [--binary .build/release/hitroute] [--port 24010]
        [--seconds 5] [--recovery-mb 1024] [--skip recovery,snapshot,...]

Prints one markdown table per part:
  changes  PATCH changes/s with --fsync always / everysec / never (and
           memory only), 1 and 16 writers (wrk, one scene per writer)
  drags    drag steps/s (pointer moves of a draggable layer), 1 and 16
  hits     hit throughput while one writer patches as fast as it can:
           memory only vs a journal
  snapshot time of a snapshot of the 100k-polygon scene (gen_scene.py) and
           the longest time writes were held off (the server's log) and the
           longest PATCH latency a client saw meanwhile
  recovery MB/s replaying a journal of about --recovery-mb MB of uploads
           (1 MB scenes), against the upload ingest speed of the same data
Every server runs under `timeout`, on 127.0.0.1, in a temporary data dir
that is removed afterwards.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LIFETIME = 900


def log(msg):
    print(f"[journal-bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Server:
    def __init__(self, binary, port, data_dir=None, extra=()):
        self.err_path = tempfile.mktemp(prefix="hitroute-jbench-", suffix=".log")
        self.err = open(self.err_path, "w")
        # Port 0: the server picks a free port and says which in its log.
        args = ["timeout", "-s", "KILL", str(LIFETIME), binary, "--port", "0", "--quiet", *extra]
        if data_dir:
            args += ["--data-dir", data_dir]
        self.port = None
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.time() + 600
        while time.time() < deadline:
            m = re.search(r"listening on [^ ]*:(\d+)", self.log())
            if m and self.port is None:
                self.port = int(m.group(1))
            try:
                if self.port and req(self.port, "GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(self.log())
            time.sleep(0.01)
        raise RuntimeError("not ready")

    def log(self):
        with open(self.err_path) as f:
            return f.read()

    def kill(self):
        try:
            child = int(subprocess.check_output(["pgrep", "-P", str(self.proc.pid)]).split()[0])
            os.kill(child, signal.SIGKILL)
        except Exception:
            pass
        self.proc.wait()
        self.err.close()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()
        self.err.close()


def req(port, method, path, body=None, raw=None, timeout=600):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        c.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def scene(k=0):
    return {"width": 400, "height": 400, "layers": [
        {"id": "bg", "shape": {"type": "rect", "x": 0, "y": 0, "width": 400, "height": 400}},
        {"id": "knob", "draggable": True, "shape": {"type": "circle", "cx": 50, "cy": 50, "r": 30}}]}


def wrk(port, script, threads, conns, seconds, env=None):
    e = dict(os.environ, **(env or {}))
    out = subprocess.run(["timeout", str(seconds + 60), "wrk", "-t", str(threads), "-c", str(conns), "-d", f"{seconds}s",
                          "--latency", "-s", script, f"http://127.0.0.1:{port}"],
                         capture_output=True, text=True, env=e).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    mx = re.search(r"Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)", out)
    unit = {"us": 1e-3, "ms": 1, "s": 1e3}
    return {"rps": rps, "errors": int(non2xx.group(1)) if non2xx else 0,
            "p99_ms": float(p99.group(1)) * unit[p99.group(2)] if p99 else None,
            "max_ms": float(mx.group(1)) * unit[mx.group(2)] if mx else None}


def versions(port, n):
    return sum(json.loads(req(port, "GET", f"/scenes/bench-{i}")[1])["version"] for i in range(n))


def part_changes(a, rows):
    # (mode, writers, event-loop threads): a write waits for its sync on its
    # event loop, so with `always` the loops bound how many writers share one
    # fsync; the last row gives each writer a loop.
    runs = [(m, w, None) for m in ["memory", "always", "everysec", "never"] for w in [1, 16]] + [("always", 16, 16)]
    for mode, writers, loops in runs:
            d = tempfile.mkdtemp(prefix="hitroute-jbench-", dir=a.data_root)
            extra = ([] if mode == "memory" else ["--fsync", mode]) + (["--threads", str(loops)] if loops else [])
            s = Server(a.binary, a.port, None if mode == "memory" else d, extra)
            try:
                for i in range(writers):
                    req(s.port, "PUT", f"/scenes/bench-{i}", scene())
                r = wrk(s.port, os.path.join(HERE, "journal", "patch.lua"), writers, writers, a.seconds)
                v = versions(s.port, writers) - writers
                rows.append(("changes", mode + (f" --threads {loops}" if loops else ""), writers, f"{v / a.seconds:,.0f} changes/s", f"p99 {r['p99_ms']:.2f} ms, max {r['max_ms']:.1f} ms, {r['errors']} errors"))
                log(rows[-1])
            finally:
                s.stop()
                shutil.rmtree(d, ignore_errors=True)


def part_drags(a, rows):
    for mode in ["memory", "always", "everysec"]:
        for writers in [1, 16]:
            d = tempfile.mkdtemp(prefix="hitroute-jbench-", dir=a.data_root)
            s = Server(a.binary, a.port, None if mode == "memory" else d, [] if mode == "memory" else ["--fsync", mode])
            try:
                for i in range(writers):
                    req(s.port, "PUT", f"/scenes/bench-{i}", scene())
                r = wrk(s.port, os.path.join(HERE, "journal", "drag.lua"), writers, writers, a.seconds)
                v = versions(s.port, writers) - writers
                rows.append(("drags", mode, writers, f"{v / a.seconds:,.0f} drag steps/s", f"{r['rps']:,.0f} requests/s, p99 {r['p99_ms']:.2f} ms"))
                log(rows[-1])
                if mode != "memory":
                    s.stop()
                    s2 = Server(a.binary, a.port, d, ["--fsync", mode])
                    v2 = versions(s2.port, writers) - writers
                    s2.stop()
                    if v2 != v:
                        rows.append(("drags", mode, writers, "MISMATCH", f"after restart {v2} steps, before {v}"))
                    s = None
            finally:
                if s:
                    s.stop()
                shutil.rmtree(d, ignore_errors=True)


def part_hits(a, rows, rounds=3):
    """Hits/s while one writer patches flat out, memory vs journal, in
    interleaved rounds (A B C A B C ...); medians."""
    ring = open(os.path.join(REPO, "examples", "ring-over-button.json"), "rb").read()
    modes = ["memory", "always", "everysec"]
    samples = {m: [] for m in modes}
    writes = {m: [] for m in modes}
    for _ in range(rounds):
        for mode in modes:
            d = tempfile.mkdtemp(prefix="hitroute-jbench-", dir=a.data_root)
            s = Server(a.binary, a.port, None if mode == "memory" else d, ["--threads", "2"] + ([] if mode == "memory" else ["--fsync", mode]))
            try:
                req(s.port, "PUT", "/scenes/ring-demo", raw=ring)
                req(s.port, "PUT", "/scenes/bench-0", scene())
                writer = subprocess.Popen(["timeout", str(a.seconds + 60), "wrk", "-t", "1", "-c", "1", "-d", f"{a.seconds + 2}s",
                                           "-s", os.path.join(HERE, "journal", "patch.lua"), f"http://127.0.0.1:{s.port}"],
                                          stdout=subprocess.PIPE, text=True)
                time.sleep(1)
                busy = wrk(s.port, os.path.join(HERE, "wrk", "hit.lua"), 1, 16, a.seconds)
                wout = writer.communicate()[0]
                samples[mode].append(busy["rps"])
                writes[mode].append(float(re.search(r"Requests/sec:\s+([\d.]+)", wout).group(1)))
                log(f"hits {mode}: {busy['rps']:,.0f} hits/s, writer {writes[mode][-1]:,.0f} changes/s")
            finally:
                s.stop()
                shutil.rmtree(d, ignore_errors=True)
    med = lambda xs: sorted(xs)[len(xs) // 2]
    for mode in modes:
        rows.append(("hits", mode, "16 hit + 1 write conns", f"{med(samples[mode]):,.0f} hits/s (median of {rounds}: {', '.join(f'{x:,.0f}' for x in samples[mode])})",
                     f"writer {med(writes[mode]):,.0f} changes/s; {med(samples[mode]) / med(samples['memory']):.2f}x memory"))


def part_snapshot(a, rows):
    big = os.path.join(a.data_root, "p100k.json")
    if not os.path.exists(big):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_scene.py"), "100000", "10000", big], check=True)
    raw = open(big, "rb").read()
    d = tempfile.mkdtemp(prefix="hitroute-jbench-", dir=a.data_root)
    s = Server(a.binary, a.port, d, ["--fsync", "always", "--compact-factor", "2", "--max-body-bytes", str(len(raw) + 1024)])
    try:
        req(s.port, "PUT", "/scenes/bench-0", scene())
        samples = []  # (start, seconds) of each PATCH
        stop = threading.Event()

        def patcher():
            c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=600)
            k = 0
            while not stop.is_set():
                k += 1
                t = time.perf_counter()
                c.request("PATCH", "/scenes/bench-0/layers/bg", body=json.dumps({"action": f"a{k}"}), headers={"Content-Type": "application/json"})
                c.getresponse().read()
                samples.append((t, time.perf_counter() - t))
            c.close()
        for k in range(3):  # three uploads of the scene: the journal holds 3x the live JSON, over the factor 2
            t = time.perf_counter()
            last_put = t
            status, _ = req(s.port, "PUT", "/scenes/polygons-100000", raw=raw)
            log(f"PUT big ({len(raw) / 1e6:.1f} MB): {status} in {time.perf_counter() - t:.2f} s")
            answered = time.perf_counter()
            if k == 1:
                th = threading.Thread(target=patcher)
                th.start()
        deadline = time.time() + 600
        while "snapshot snapshot-" not in s.log() and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        stop.set()
        th.join()
        line = [l for l in s.log().splitlines() if "snapshot snapshot-" in l][-1]
        during = [x for (t0, x) in samples if t0 >= answered]
        behind = max((x for (t0, x) in samples if t0 < answered), default=0)
        rows.append(("snapshot", "always", 1, line.split(": ", 1)[1],
                     f"{len(during)} PATCHes during the snapshot, longest {max(during, default=0) * 1000:.1f} ms; "
                     f"longest behind a 77 MB PUT's own write+fsync {behind * 1000:.0f} ms"))
        log(rows[-1])
    finally:
        s.stop()
        shutil.rmtree(d, ignore_errors=True)


def part_recovery(a, rows):
    one = os.path.join(a.data_root, "p1mb.json")
    if not os.path.exists(one):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_scene.py"), "1600", "2000", one], check=True)
    doc = json.load(open(one))
    doc.pop("id", None)
    raw = json.dumps(doc, separators=(",", ":")).encode()
    n = max(1, int(a.recovery_mb * 1e6 / len(raw)))
    d = tempfile.mkdtemp(prefix="hitroute-jbench-", dir=a.data_root)
    s = Server(a.binary, a.port, d, ["--fsync", "never", "--max-store-bytes", str(1 << 40), "--max-scenes", str(n + 10)])
    try:
        recovery_run(a, rows, s, d, raw, n)
    finally:
        if s.proc.poll() is None:
            s.kill()
        shutil.rmtree(d, ignore_errors=True)


def recovery_run(a, rows, s, d, raw, n):
    t = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=600)
    for i in range(n):
        c.request("PUT", f"/scenes/r{i}", body=raw, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        assert r.status == 201, r.status
    c.close()
    ingest = n * len(raw) / 1e6 / (time.perf_counter() - t)
    s.kill()
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    t = time.perf_counter()
    s = Server(a.binary, a.port, d, ["--max-store-bytes", str(1 << 40), "--max-scenes", str(n + 10)])
    ready = time.perf_counter() - t
    line = [l for l in s.log().splitlines() if "recovered" in l][-1]
    s.stop()
    s.proc.wait()
    rows.append(("recovery", "-", n, f"{size / 1e6:,.0f} MB journal ready in {ready:.1f} s: {size / 1e6 / ready:,.0f} MB/s", f"upload ingest of the same {ingest:,.0f} MB/s; server: {line.split('(', 1)[1].split(')')[0]}"))
    log(rows[-1])
    shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(REPO, ".build", "release", "hitroute"))
    ap.add_argument("--port", type=int, default=24010)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--recovery-mb", type=float, default=1024)
    ap.add_argument("--data-root", default=tempfile.gettempdir())
    ap.add_argument("--only", default="changes,drags,hits,snapshot,recovery")
    a = ap.parse_args()
    rows = []
    parts = {"changes": part_changes, "drags": part_drags, "hits": part_hits, "snapshot": part_snapshot, "recovery": part_recovery}
    for name in a.only.split(","):
        parts[name](a, rows)
    print("| part | mode | writers | result | notes |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")


if __name__ == "__main__":
    main()

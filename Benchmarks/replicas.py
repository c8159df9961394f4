#!/usr/bin/env python3
"""Redis mode against memory mode, side by side (issue 18, SPEC §10).

    python3 Benchmarks/replicas.py [--bin .build/release/hitroute] [--rounds 3] [--seconds 5]
                                   [--warm-layers 100000]

Starts, on loopback ports 25090-25099 and 25379 (redis-server in a temp
dir, no persistence), one replica in memory mode and one in Redis mode,
each with `--threads 1` (so the two do not fight over the 2 cores more
than the load generator does), and measures, in interleaved rounds
(A B A B …, medians quoted):

1. single hits (wrk, Benchmarks/wrk/hit.lua) and batches of 100
   (hits100.lua) on the ring: Redis mode answers from its cache;
2. write latency (PATCH of one layer, one connection, p50/p99) and
   throughput (8 connections);
3. with --warm-layers N: the time a fresh Redis-mode replica takes to
   answer its first hit on the N-polygon scene (Benchmarks/gen_scene.py),
   i.e. fetch from Redis, decode and compile.

Every process is stopped by its PID; every wait is bounded.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REDIS_PORT = 25379
PROCS = []


def start(args, log):
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    PROCS.append(p)
    return p


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def call(port, method, path, body=None, headers=None, timeout=120):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    h = {"Content-Type": "application/json"} if data is not None else {}
    h.update(headers or {})
    c.request(method, path, body=data, headers=h)
    r = c.getresponse()
    payload = r.read()
    c.close()
    return r.status, payload


def wait_ready(port, deadline=60):
    end = time.time() + deadline
    while time.time() < end:
        try:
            if call(port, "GET", "/readyz", timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"nothing ready on {port}")


def wrk(port, script, seconds):
    env = dict(os.environ)
    out = subprocess.run(["wrk", "-t1", "-c16", f"-d{seconds}s", "-s", os.path.join(HERE, "wrk", script),
                          f"http://127.0.0.1:{port}"], capture_output=True, text=True, env=env, timeout=seconds + 60).stdout
    m = re.search(r"Requests/sec:\s*([\d.]+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non2xx:
        raise SystemExit(f"wrk saw {non2xx.group(1)} non-2xx answers on {port}")
    return float(m.group(1))


def patch_latency(port, n):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for i in range(n):
        body = json.dumps({"action": f"a{i}"}).encode()
        t = time.perf_counter()
        c.request("PATCH", "/scenes/ring-demo/layers/ring", body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        r.read()
        times.append(time.perf_counter() - t)
        assert r.status == 200, r.status
    c.close()
    times.sort()
    return times[len(times) // 2] * 1e3, times[int(len(times) * 0.99)] * 1e3


def patch_throughput(port, seconds, conns=8):
    done = [0] * conns
    end = time.time() + seconds

    def worker(k):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = 0
        while time.time() < end:
            c.request("PATCH", f"/scenes/ring-demo/layers/button", body=json.dumps({"action": f"t{k}-{i}"}).encode(),
                      headers={"Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
            assert r.status == 200, r.status
            i += 1
        done[k] = i
        c.close()

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(done) / seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "hitroute"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--warm-layers", type=int, default=0)
    ap.add_argument("--skip-hits", action="store_true", help="only the writes and the warm-up")
    ap.add_argument("--python", default=sys.executable, help="a python with numpy, for gen_scene.py")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="hitroute-replicas-")
    log = open(os.path.join(tmp, "log.txt"), "w")
    try:
        redis = start(["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "no", "--dir", tmp], log)
        for _ in range(300):
            if subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "ping"], capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        if redis.poll() is not None:
            raise SystemExit(f"redis-server did not start on {REDIS_PORT} (port in use?)")
        common = ["--threads", "1", "--quiet", "--max-body-bytes", "200000000", "--host", "127.0.0.1"]
        mem = start([a.bin, "--port", "25090"] + common, log)
        red = start([a.bin, "--port", "25091", "--store", f"redis://127.0.0.1:{REDIS_PORT}/0"] + common, log)
        for port in (25090, 25091):
            wait_ready(port)
        ring = json.load(open(os.path.join(ROOT, "examples", "ring-over-button.json")))
        ring["id"] = "ring-demo"
        ring = json.dumps(ring).encode()
        for port in (25090, 25091):
            s, _ = call(port, "PUT", "/scenes/ring-demo", ring)
            assert s in (200, 201), s
        rows = {"hit": ([], []), "hits100": ([], [])}
        for r in range(0 if a.skip_hits else a.rounds):
            for name, script in (("hit", "hit.lua"), ("hits100", "hits100.lua")):
                rows[name][0].append(wrk(25090, script, a.seconds))
                rows[name][1].append(wrk(25091, script, a.seconds))
        print("| measure | memory | redis | redis / memory |")
        print("| --- | --- | --- | --- |")
        for name, (m, rd) in rows.items():
            if not m:
                continue
            mm, rm = statistics.median(m), statistics.median(rd)
            print(f"| {name} req/s (median of {a.rounds}) | {mm:,.0f} | {rm:,.0f} | {rm / mm:.3f} |")
            print(f"|   rounds | {', '.join(f'{x:,.0f}' for x in m)} | {', '.join(f'{x:,.0f}' for x in rd)} | |")
        lat = {p: [] for p in (25090, 25091)}
        thr = {p: [] for p in (25090, 25091)}
        for r in range(a.rounds):
            for p in (25090, 25091):
                lat[p].append(patch_latency(p, 300))
                thr[p].append(patch_throughput(p, a.seconds))
        for p, label in ((25090, "memory"), (25091, "redis")):
            p50 = statistics.median(x[0] for x in lat[p])
            p99 = statistics.median(x[1] for x in lat[p])
            print(f"| PATCH latency {label}: p50 {p50:.3f} ms, p99 {p99:.3f} ms (1 connection, 300 patches, median of rounds) | | | |")
            print(f"| PATCH throughput {label}: {statistics.median(thr[p]):,.0f} /s (8 connections) | | | |")
        if a.warm_layers:
            scene = os.path.join(tmp, "big.json")
            world = 10000 * (a.warm_layers / 1e5) ** 0.5
            subprocess.run([a.python, os.path.join(HERE, "gen_scene.py"), str(a.warm_layers), str(world), scene], check=True)
            body = open(scene, "rb").read()
            t = time.perf_counter()
            s, answer = call(25091, "POST", "/scenes", body, timeout=600)
            assert s in (200, 201), (s, answer[:400])
            put_s = time.perf_counter() - t
            warm = []
            for r in range(a.rounds):
                fresh = start([a.bin, "--port", "25092", "--store", f"redis://127.0.0.1:{REDIS_PORT}/0"] + common, log)
                wait_ready(25092)
                t = time.perf_counter()
                s, _ = call(25092, "GET", f"/scenes/polygons-{a.warm_layers}/hit?x=5000&y=5000&trace=0", timeout=600)
                warm.append(time.perf_counter() - t)
                assert s == 200, s
                stop(fresh)
            print(f"| {a.warm_layers:,}-polygon scene ({len(body) / 1e6:.1f} MB JSON): POST through Redis {put_s:.2f} s; "
                  f"first hit on a fresh replica (fetch + decode + compile) {', '.join(f'{w:.2f}' for w in warm)} s | | | |")
    finally:
        for p in reversed(PROCS):
            stop(p)
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Side by side: hitroute builds, each with one event loop, and nginx's one
worker, under the single-hit load of target 1, in interleaved rounds.

    python3 Benchmarks/server-ab.py ROUNDS CONNECTIONS HITROUTE_BINARY...

Starts nginx (peers/nginx.conf) and every build given (`--threads 1`), loads
the ring scene into each, then runs `wrk -t1 -cCONNECTIONS -d5s` with
wrk/hit.lua against each in turn, every round (odd rounds in reverse order),
and prints each round, the medians, and each build's p99 ÷ nginx's per round.
Needs wrk and nginx (run.sh installs them).

A build may be given as `BINARY::EXTRA ARGS` (e.g.
`.build/release/hitroute::--api-keys-file /tmp/keys`); HIT_KEY makes wrk send
`Authorization: Bearer $HIT_KEY` to every server (nginx and builds without
keys ignore it), and HIT_WRITE_KEY is sent with the scene upload.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402  (its wrk runner and parser)


def wait_up(port):
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=0.2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing answers on port {port}")


def main():
    rounds, conns, builds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    port = int(os.environ.get("HITROUTE_AB_PORT", "28900"))
    procs, servers = [], {}
    prefix = tempfile.mkdtemp(prefix="server-ab-")
    os.makedirs(os.path.join(prefix, "tmp"))
    conf = open(os.path.join(HERE, "peers", "nginx.conf")).read().replace(
        "listen 127.0.0.1:18082", f"listen 127.0.0.1:{port}")
    open(os.path.join(prefix, "nginx.conf"), "w").write(conf)
    nginx = os.environ.get("NGINX", "/usr/sbin/nginx")
    procs.append(subprocess.Popen([nginx, "-p", prefix + "/", "-c", os.path.join(prefix, "nginx.conf"),
                                   "-g", "daemon off;"]))
    wait_up(port)
    servers["nginx"] = port
    ring = open(os.path.join(HERE, "..", "examples", "ring-over-button.json"), "rb").read()
    write_key = os.environ.get("HIT_WRITE_KEY")
    for i, spec in enumerate(builds):
        port += 1
        build, _, extra = spec.partition("::")
        procs.append(subprocess.Popen([build, "--port", str(port), "--quiet", "--threads", "1"] + extra.split()))
        wait_up(port)
        headers = {"Authorization": f"Bearer {write_key}"} if write_key else {}
        put = urllib.request.Request(f"http://127.0.0.1:{port}/scenes/ring-demo", data=ring, method="PUT", headers=headers)
        urllib.request.urlopen(put).read()
        servers[f"{i}:{os.path.basename(build)}{'+' + extra.split()[0] if extra else ''}"] = port
    results = {name: [] for name in servers}
    try:
        for r in range(rounds):
            order = list(servers) if r % 2 == 0 else list(servers)[::-1]
            for name in order:
                results[name].append(harness.wrk(f"http://127.0.0.1:{servers[name]}", "hit.lua", conns, 5))
            print(f"round {r + 1}: " + "  ".join(
                f"{name} {results[name][-1]['rps']:.0f} req/s p50 {results[name][-1]['p50'] * 1e3:.2f} "
                f"p99 {results[name][-1]['p99'] * 1e3:.2f} ms" for name in servers), flush=True)
    finally:
        for p in procs:
            p.terminate()
    print("medians:")
    for name in servers:
        med = {k: statistics.median(x[k] for x in results[name]) for k in ("rps", "p50", "p99")}
        print(f"  {name}: {med['rps']:.0f} req/s, p50 {med['p50'] * 1e3:.3f} ms, p99 {med['p99'] * 1e3:.3f} ms")
    for name in list(servers)[1:]:
        ratios = [a["p99"] / b["p99"] for a, b in zip(results[name], results["nginx"])]
        print(f"  {name} p99 ÷ nginx's, per round: " + " ".join(f"{x:.2f}" for x in ratios)
              + f"; median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()

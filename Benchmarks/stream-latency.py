#!/usr/bin/env python3
"""Message latency on pointer streams at frame rate: POINTERS pointers
hovering at HZ over STREAMS streams, on one event loop (hitroute
--threads 1), from Node `ws` clients (Debian node-ws) split over PROCS
processes; the service remembers up to 2 × POINTERS pointers
(--max-pointers), since every pointer hovers.

    python3 Benchmarks/stream-latency.py BINARY [--port 33400] [--streams 100]
        [--pointers 1000] [--hz 60] [--seconds 10] [--warmup 3] [--procs 2] [--plain]

Each stream carries POINTERS / STREAMS pointers; every frame it writes one
`hover` per pointer ({"x","y","pointer","phase":"hover","trace":false,
"seq"}, x sweeping across the ring's band and hole). Latency is from the
client's write of a message to its read of the answer. With --plain the
messages are plain hits (no `pointer`, no `phase`): the same traffic
without pointer state. Prints p50, p90,
p99 and the largest latency, the messages sent and answered per second,
the answers' `coalesced` total (the service replaces a waiting hover only
when answers back up), how late the clients' timers ran behind their
schedule, and the server's CPU use over the measured seconds."""
import argparse, json, os, socket, statistics, subprocess, sys, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf("SC_CLK_TCK")
RING = {"id": "bench", "layers": [
    {"id": "button", "action": "below.press", "shape": {"type": "rect", "x": 0, "y": 0, "width": 240, "height": 240}},
    {"id": "ring", "action": "ring.select", "shape": {"type": "compound", "fillRule": "evenodd", "shapes": [
        {"type": "ellipse", "cx": 120, "cy": 120, "rx": 120, "ry": 120},
        {"type": "ellipse", "cx": 120, "cy": 120, "rx": 48, "ry": 48}]}}]}


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--port", type=int, default=33400)
    ap.add_argument("--streams", type=int, default=100)
    ap.add_argument("--pointers", type=int, default=1000)
    ap.add_argument("--hz", type=float, default=60)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=3)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--plain", action="store_true", help="plain hits: no pointer, no phase")
    a = ap.parse_args()
    assert a.pointers % a.streams == 0 and a.streams % a.procs == 0
    # Every pointer is remembered (it hovers): --max-pointers past POINTERS.
    server = subprocess.Popen([a.binary, "--port", str(a.port), "--threads", "1", "--quiet",
                               "--max-pointers", str(2 * a.pointers)])
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", a.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        req = urllib.request.Request(f"http://127.0.0.1:{a.port}/scenes/bench", data=json.dumps(RING).encode(),
                                     method="PUT", headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()
        env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
        per = a.streams // a.procs
        workers = [subprocess.Popen(["node", os.path.join(HERE, "stream-latency.js"), str(a.port), "bench", str(per),
                                     str(a.pointers // a.streams), str(a.hz), str(a.seconds), str(a.warmup), str(k),
                                     "none" if a.plain else "hover"],
                                    stdout=subprocess.PIPE, env=env) for k in range(a.procs)]
        # The measured window starts WARMUP s after the workers' streams open; sample the server's CPU then.
        time.sleep(a.warmup + 0.5)
        c0, t0 = cpu(server.pid), time.monotonic()
        time.sleep(a.seconds - 1)
        c1, t1 = cpu(server.pid), time.monotonic()
        results = [json.loads(w.communicate()[0]) for w in workers]
        if any(w.returncode for w in workers):
            raise SystemExit("a load process failed")
    finally:
        server.terminate()
        server.wait()
    lat = sorted(x for r in results for x in r["latenciesUs"])
    sent = sum(r["sent"] for r in results)
    answered = sum(r["answered"] for r in results)
    coalesced = sum(r["coalesced"] for r in results)
    errors = sum(r["errors"] for r in results)
    lag = max(r["lagMaxMs"] for r in results)
    target = a.pointers * a.hz
    print(f"{a.pointers} {'plain-hit senders' if a.plain else 'hovering pointers'} at {a.hz:g} Hz over {a.streams} streams ({a.procs} node-ws processes), "
          f"{a.seconds:g} s measured after {a.warmup:g} s:")
    print(f"  sent {sent / a.seconds:,.0f} messages/s (target {target:,.0f}), answered {answered / a.seconds:,.0f}/s, "
          f"coalesced {coalesced}, errors {errors}")
    if lat:
        print(f"  latency p50 {percentile(lat, 0.5) / 1000:.2f} ms, p90 {percentile(lat, 0.9) / 1000:.2f} ms, "
              f"p99 {percentile(lat, 0.99) / 1000:.2f} ms, max {lat[-1] / 1000:.2f} ms, mean {statistics.mean(lat) / 1000:.2f} ms")
    print(f"  clients' timers at most {lag:.1f} ms behind schedule (a frame is {1000 / a.hz:.1f} ms)")
    print(f"  server CPU {100 * (c1 - c0) / (t1 - t0):.0f} % of one core")


main()

#!/usr/bin/env python3
"""Message latency on pointer streams at frame rate: POINTERS pointers
hovering at HZ over STREAMS streams, on one event loop (hitroute
--threads 1), from Node `ws` clients (Debian node-ws) split over PROCS
processes; the service remembers up to 2 × POINTERS pointers
(--max-pointers), since every pointer hovers.

    python3 Benchmarks/stream-latency.py BINARY [--port 33400] [--streams 100]
        [--pointers 1000] [--hz 60] [--seconds 10] [--warmup 3] [--procs 2] [--plain]
        [--base BASE_BINARY] [--rounds 3]

With --base, BASE_BINARY and BINARY run alternately (base, head, base,
head, ...) for --rounds rounds each, and the medians of the rounds are
printed for each, with every round's figures. The server's CPU per
answered message (µs) is its utime + stime over the measured seconds
divided by the messages answered in them; the load processes' own CPU
is printed too (the load generator shares the machine's cores), and the
share of the measured seconds the server's threads spent runnable but
waiting for a CPU (schedstat).

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


def waited(pid):
    """Seconds the process's threads have spent runnable but waiting for a
    CPU (/proc/PID/task/TID/schedstat, field 2)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
        except OSError:
            pass
    return total / 1e9


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def run(binary, a):
    """One run of BINARY: the figures of its measured seconds."""
    # Every pointer is remembered (it hovers): --max-pointers past POINTERS.
    server = subprocess.Popen([binary, "--port", str(a.port), "--threads", "1", "--quiet",
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
        c0, w0, t0 = cpu(server.pid), waited(server.pid), time.monotonic()
        time.sleep(a.seconds - 1)
        c1, w1, t1 = cpu(server.pid), waited(server.pid), time.monotonic()
        results = [json.loads(w.communicate()[0]) for w in workers]
        if any(w.returncode for w in workers):
            raise SystemExit("a load process failed")
    finally:
        server.terminate()
        server.wait()
    lat = sorted(x for r in results for x in r["latenciesUs"])
    answered = sum(r["answered"] for r in results)
    server_cpu = (c1 - c0) / (t1 - t0)  # cores
    return {
        "sent": sum(r["sent"] for r in results) / a.seconds,
        "answered": answered / a.seconds,
        "coalesced": sum(r["coalesced"] for r in results),
        "errors": sum(r["errors"] for r in results),
        "lag": max(r["lagMaxMs"] for r in results),
        "p50": percentile(lat, 0.5) / 1000 if lat else float("nan"),
        "p90": percentile(lat, 0.9) / 1000 if lat else float("nan"),
        "p99": percentile(lat, 0.99) / 1000 if lat else float("nan"),
        "max": lat[-1] / 1000 if lat else float("nan"),
        "cpu": 100 * server_cpu,
        "us_per_message": 1e6 * server_cpu * a.seconds / answered if answered else float("nan"),
        "waiting": 100 * (w1 - w0) / (t1 - t0),
        "load_cpu": 100 * sum(r.get("cpuUs", 0) for r in results) / 1e6 / a.seconds,
    }


def show(label, r):
    print(f"  {label}: sent {r['sent']:,.0f}/s, answered {r['answered']:,.0f}/s, coalesced {r['coalesced']:,}, "
          f"errors {r['errors']}; p50 {r['p50']:.2f} ms, p90 {r['p90']:.2f} ms, p99 {r['p99']:.2f} ms, "
          f"max {r['max']:.2f} ms; clients behind by at most {r['lag']:.1f} ms; "
          f"server CPU {r['cpu']:.0f} % ({r['us_per_message']:.2f} µs/message), runnable but waiting for a CPU "
          f"{r['waiting']:.0f} % of the time; load processes' CPU {r['load_cpu']:.0f} %")


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
    ap.add_argument("--base", help="a base binary, run alternately with BINARY")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    assert a.pointers % a.streams == 0 and a.streams % a.procs == 0
    target = a.pointers * a.hz
    print(f"{a.pointers} {'plain-hit senders' if a.plain else 'hovering pointers'} at {a.hz:g} Hz "
          f"(target {target:,.0f} messages/s) over {a.streams} streams ({a.procs} node-ws processes), "
          f"{a.seconds:g} s measured after {a.warmup:g} s:")
    binaries = [("base", a.base), ("head", a.binary)] if a.base else [("head", a.binary)]
    rounds = a.rounds if a.base else 1
    runs = {label: [] for label, _ in binaries}
    for k in range(rounds):
        for label, binary in binaries:
            r = run(binary, a)
            runs[label].append(r)
            show(f"round {k + 1} {label}", r)
    if rounds > 1:
        for label, _ in binaries:
            med = {key: statistics.median(r[key] for r in runs[label]) for key in runs[label][0]}
            show(f"median of {rounds} {label}", med)


main()

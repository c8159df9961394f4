#!/usr/bin/env python3
"""The single-hit table: hitroute against one nginx worker serving the very
same bytes, and hitroute against itself with keys, Redis and the journal.

    python3 Benchmarks/hit-table.py [--rounds 7] [--seconds 3] [--connections 16]
                                    [--port-base N] [--base BASE_BINARY] [--pin] [BINARY]

BINARY defaults to .build/release/hitroute. Every server listens on a free
127.0.0.1 port (the system's choice, or the first free ones from
`--port-base`, default $HITROUTE_BENCH_PORT_BASE), runs under `timeout`
(bounded lifetime) and is stopped on exit, error or signal; all traffic is
loopback. With `--base`, every hitroute configuration is also started from
BASE_BINARY and run in the same rounds, next to its counterpart, and the
table has a column for each build. It starts:

- hitroute `--threads 1` (memory store), hitroute with its default
  `--threads` (one loop per core), hitroute `--threads 1 --api-keys-file`,
  hitroute `--threads 1 --store redis://…` (a private `redis-server`, no
  persistence) and hitroute `--threads 1 --data-dir` (journal), each with
  the ring scene (examples/ring-over-button.json) as `ring-demo`;
- one nginx (`worker_processes 1`) with three ports, each answering
  `return 200` with hitroute's answer body to `{"x":120,"y":120,"trace":false}`,
  to `{"x":120,"y":120}` (traced) and to `{"x":120.37,"y":119.6}` (traced,
  fractional numbers: `x`, `y` and every `local` written in the shortest
  round-trip form), captured from the running hitroute,
  with every header field hitroute sends (`Content-Type`, the CORS
  fields, an `X-Request-Id` of the same length; `Date` and
  `Content-Length` nginx makes itself, and it adds `Server` and
  `Connection`, which hitroute does not send).

Before timing it checks that every hitroute answers those two requests with
the same body bytes nginx serves. Then, every round, `wrk -t1 -c16` with
wrk/one-hit.lua (the same request every time) runs against each
configuration in turn, odd rounds in reverse order, and the table gives the
medians and two ratios per row: the ratio of the medians, and the median
(and range) of the per-round ratios (each between runs seconds apart).

With `--pin` (on a machine with two or more usable CPUs), nginx and every
one-loop hitroute run on the last usable CPU, and wrk and redis-server on
the others (the two-loop hitroute keeps every CPU): server and load
generator then never take turns on one core.
"""
import argparse
import os
import shutil
import signal
import socket
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

UNTRACED = '{"x":120,"y":120,"trace":false}'
TRACED = '{"x":120,"y":120}'
FRACTIONAL = '{"x":120.37,"y":119.6}'
READ_KEY = "bench-read-key-0123456789abcdef"
WRITE_KEY = "bench-write-key-0123456789abcdef"


NEXT_PORT = [int(os.environ.get("HITROUTE_BENCH_PORT_BASE", "0"))]


def free_port():
    """A free loopback port: the system's choice, or the next free one from the base."""
    while True:
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", NEXT_PORT[0]))
            port = s.getsockname()[1]
        except OSError:
            NEXT_PORT[0] += 1
            continue
        finally:
            s.close()
        if NEXT_PORT[0]:
            NEXT_PORT[0] = port + 1
        return port


def wait_port(port, proc, what):
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{what} does not listen on {port}")


def request(port, method, path, body=None, key=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def server_pids(wrapper):
    """The processes `timeout` started (and their children: nginx's worker)."""
    pids, pending = [], [wrapper.pid]
    while pending:
        pid = pending.pop()
        try:
            kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
        except OSError:
            kids = []
        pids += [int(k) for k in kids]
        pending += [int(k) for k in kids]
    return pids


def cpu_ns(pids):
    """On-CPU time of every thread of `pids` so far (schedstat, nanoseconds)."""
    total = 0
    for pid in pids:
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                total += int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
        except OSError:
            pass
    return total


def nginx_string(body):
    """`body` as an nginx single-quoted string (no variables: `$` escaped)."""
    return "'" + body.replace("\\", "\\\\").replace("'", "\\'").replace("$", "${dollar}") + "'"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", nargs="?", default=os.path.join(HERE, "..", ".build", "release", "hitroute"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--port-base", type=int, default=None, help="first port tried (default: the system picks)")
    ap.add_argument("--base", default=None, help="a second hitroute binary run in the same rounds")
    ap.add_argument("--pin", action="store_true", help="one-loop servers on the last CPU, wrk on the others")
    args = ap.parse_args()
    if args.port_base is not None:
        NEXT_PORT[0] = args.port_base
    if args.rounds < 1 or args.seconds < 1:
        raise SystemExit("--rounds and --seconds must be at least 1")
    for tool in ("wrk", "redis-server"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing (Debian: apt-get install wrk redis-server)")
    nginx = os.environ.get("NGINX", "/usr/sbin/nginx")
    builds = {"": os.path.abspath(args.binary)}  # prefix of the configuration names → binary
    if args.base:
        builds["base "] = os.path.abspath(args.base)
    usable = sorted(os.sched_getaffinity(0))
    if args.pin and len(usable) < 2:
        raise SystemExit("--pin needs two usable CPUs")
    server_cpus = {usable[-1]} if args.pin else None  # every one-loop server and nginx
    load_cpus = set(usable[:-1]) if args.pin else None  # wrk and redis-server
    lifetime = str(60 + args.rounds * 11 * len(builds) * (args.seconds + 3))  # bounded: every server dies by then
    work = tempfile.mkdtemp(prefix="hit-table-")
    procs = []

    def start(cmd, port, what, cpus=None, **kw):
        pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        p = subprocess.Popen(["timeout", lifetime] + cmd, start_new_session=True, preexec_fn=pin, **kw)
        procs.append(p)
        wait_port(port, p, what)
        return p

    wrappers = {}

    def stop_all(*_):
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        ring = open(os.path.join(HERE, "..", "examples", "ring-over-button.json"), "rb").read()
        redis_port = free_port()
        start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--dir", work], redis_port, "redis-server", cpus=load_cpus, stdout=subprocess.DEVNULL)
        keys = os.path.join(work, "keys")
        with open(keys, "w") as f:
            f.write(f"read {READ_KEY}\nwrite {WRITE_KEY}\n")
        variants = {}  # name → (binary, extra arguments, read key, write key)
        for prefix, binary in builds.items():
            os.mkdir(os.path.join(work, prefix + "data"))
            variants.update({
                prefix + "one loop": (binary, ["--threads", "1"], None, None),
                prefix + "two loops": (binary, [], None, None),
                prefix + "keys": (binary, ["--threads", "1", "--api-keys-file", keys], READ_KEY, WRITE_KEY),
                # Each build its own Redis key space: one scene id per build.
                prefix + "redis": (binary, ["--threads", "1", "--store", f"redis://127.0.0.1:{redis_port}/{len(variants) // 5}"], None, None),
                prefix + "journal": (binary, ["--threads", "1", "--data-dir", os.path.join(work, prefix + "data")], None, None),
            })
        ports = {}
        for name, (binary, extra, _, write_key) in variants.items():
            port = free_port()
            wrappers[name] = start([binary, "--port", str(port), "--quiet"] + extra, port, f"hitroute ({name})",
                                   cpus=None if name.endswith("two loops") else server_cpus)
            for _ in range(100):  # a store that is still starting answers 503
                status, _, body = request(port, "PUT", "/scenes/ring-demo", ring, write_key)
                if status != 503:
                    break
                time.sleep(0.1)
            if status not in (200, 201):
                raise SystemExit(f"PUT ring-demo into hitroute ({name}): {status} {body[:300]!r}")
            ports[name] = port
        answers = {}
        for label, body in (("untraced", UNTRACED), ("traced", TRACED), ("fractional", FRACTIONAL)):
            status, headers, data = request(ports["one loop"], "POST", "/scenes/ring-demo/hit", body.encode())
            assert status == 200, status
            answers[label] = (headers, data)
            for name, (_, _, read_key, _) in variants.items():
                for _ in range(2):  # the second one is the cached scene in Redis mode
                    got = request(ports[name], "POST", "/scenes/ring-demo/hit", body.encode(), read_key)
                if got[0] != 200 or got[2] != data:
                    raise SystemExit(f"hitroute ({name}) answers {label} with other bytes: {got[0]} {got[2][:200]!r}")
        nginx_ports = {"untraced": free_port(), "traced": free_port(), "fractional": free_port()}
        servers = []
        for label, port in nginx_ports.items():
            headers, data = answers[label]
            # Every field hitroute sends, but those nginx makes itself (a
            # fixed X-Request-Id of the same length in place of a fresh one).
            extra = "".join(
                f"\n            add_header {name} {nginx_string('0' * len(value) if name.lower() == 'x-request-id' else value)};"
                for name, value in headers.items() if name.lower() not in ("content-type", "content-length", "date", "connection"))
            servers.append(f"""
    server {{
        listen 127.0.0.1:{port} backlog=1024;
        location / {{
            default_type "{headers['Content-Type']}";{extra}
            return 200 {nginx_string(data.decode())};
        }}
    }}""")
        os.makedirs(os.path.join(work, "nginx", "tmp"))
        conf = os.path.join(work, "nginx", "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    server_tokens off;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;
    geo $dollar {{ default "$"; }}
{''.join(servers)}
}}
""")
        nginx_proc = subprocess.Popen(["timeout", lifetime, nginx, "-p", os.path.join(work, "nginx") + "/", "-c", conf,
                                       "-g", "daemon off;"], start_new_session=True,
                                      preexec_fn=(lambda: os.sched_setaffinity(0, server_cpus)) if server_cpus else None)
        procs.append(nginx_proc)
        for label, port in nginx_ports.items():
            wait_port(port, nginx_proc, "nginx")
            status, _, data = request(port, "POST", "/scenes/ring-demo/hit", b"{}")
            if status != 200 or data != answers[label][1]:
                raise SystemExit(f"nginx ({label}) serves other bytes: {data[:200]!r}")
        wrappers["nginx"] = nginx_proc
        pids = {name: server_pids(w) for name, w in wrappers.items()}
        print(f"same bytes: untraced {len(answers['untraced'][1])} B, traced {len(answers['traced'][1])} B, "
              f"fractional {len(answers['fractional'][1])} B "
              f"(every hitroute and nginx checked)", flush=True)

        # Ordered so that each row's two configurations run next to each
        # other (odd rounds reverse the order, which keeps them adjacent).
        # (With --base, each hitroute configuration's two builds run one
        # after the other.)
        configs = {}  # name → (port, request body, key, server)

        def hitroute(name, variant, body, key=None):
            for prefix in builds:
                configs[prefix + name] = (ports[prefix + variant], body, key, prefix + variant)

        hitroute("journal untraced", "journal", UNTRACED)
        hitroute("redis untraced", "redis", UNTRACED)
        hitroute("one loop untraced", "one loop", UNTRACED)
        hitroute("keys untraced", "keys", UNTRACED, READ_KEY)
        configs["nginx untraced"] = (nginx_ports["untraced"], UNTRACED, None, "nginx")
        hitroute("two loops untraced", "two loops", UNTRACED)
        hitroute("two loops traced", "two loops", TRACED)
        configs["nginx traced"] = (nginx_ports["traced"], TRACED, None, "nginx")
        hitroute("one loop traced", "one loop", TRACED)
        hitroute("one loop fractional", "one loop", FRACTIONAL)
        configs["nginx fractional"] = (nginx_ports["fractional"], FRACTIONAL, None, "nginx")
        results = {name: [] for name in configs}
        for r in range(args.rounds):
            order = list(configs) if r % 2 == 0 else list(configs)[::-1]
            for name in order:
                port, body, key, server = configs[name]
                env = {"HIT_BODY": body, "HIT_KEY": key or ""}
                before = cpu_ns(pids[server])
                res = harness.wrk(f"http://127.0.0.1:{port}", "one-hit.lua", args.connections, args.seconds, env=env,
                                  cpus=load_cpus)
                res["cpu_us"] = (cpu_ns(pids[server]) - before) / 1e3 / max(1, res["requests"])
                results[name].append(res)
                if results[name][-1]["errors"]:
                    print(f"  {name}: {results[name][-1]['errors']} errors", flush=True)
            print(f"round {r + 1}: " + ", ".join(f"{n} {results[n][-1]['rps'] or 0:.0f}" for n in configs), flush=True)
    finally:
        stop_all()
        shutil.rmtree(work, ignore_errors=True)

    def med(name, key="rps"):
        return statistics.median(x[key] or 0 for x in results[name])

    rows = [
        ("untraced hit / nginx serving the untraced answer", "one loop untraced", "nginx untraced"),
        ("traced hit / nginx serving the traced answer", "one loop traced", "nginx traced"),
        ("traced hit, fractional numbers / nginx serving its answer", "one loop fractional", "nginx fractional"),
        ("two loops (default `--threads`), traced / nginx one worker", "two loops traced", "nginx traced"),
        ("two loops (default `--threads`), untraced / nginx one worker", "two loops untraced", "nginx untraced"),
        ("two loops / one loop, untraced", "two loops untraced", "one loop untraced"),
        ("API keys on / open, both untraced", "keys untraced", "one loop untraced"),
        ("Redis mode (cached scene) / memory, untraced", "redis untraced", "one loop untraced"),
        ("journal (`--data-dir`) / memory, untraced", "journal untraced", "one loop untraced"),
    ]
    pinning = f"; servers on CPU {usable[-1]}, wrk on {sorted(load_cpus)}" if args.pin else ""
    print(f"\nwrk -t1 -c{args.connections} -d{args.seconds}s, {args.rounds} interleaved rounds{pinning}; medians of "
          "req/s and of the server's on-CPU time per request (every thread, user and kernel, from schedstat):")
    for name in configs:
        samples = ", ".join(f"{x['rps'] or 0:.0f}" for x in results[name])
        print(f"  {name}: {med(name):,.0f} req/s ({samples}); {med(name, 'cpu_us'):.2f} µs CPU a request")
    for prefix, binary in builds.items():
        print(f"\n{binary}:\n\n| measure | req/s: ratio of medians | per-round ratios: median (range) | CPU a request: inverse ratio |"
              "\n| --- | --- | --- | --- |")
        for label, a, b in rows:
            a = prefix + a
            b = b if b.startswith("nginx") else prefix + b
            per = [(x["rps"] or 0) / y["rps"] for x, y in zip(results[a], results[b]) if y["rps"]]
            cpu = med(b, "cpu_us") / med(a, "cpu_us") if med(a, "cpu_us") else 0
            print(f"| {label} | {med(a) / med(b):.2f} | {statistics.median(per):.2f} ({min(per):.2f}–{max(per):.2f}) "
                  f"| {cpu:.2f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Starts the release binary exactly as the repository ships it.

CI has no Docker engine and no Kubernetes, so this reads what they would
read and does what they would do, on loopback:

  * the Dockerfile's ENV, ENTRYPOINT, CMD and HEALTHCHECK;
  * deploy/k8s/hitroute.yaml's container args, env and probes (a container's
    env overrides the image's ENV; its args replace the image's CMD);
  * deploy/k8s/redis.yaml's redis.conf and command, run by a real
    redis-server.

Only what cannot work off a cluster is rewritten, and each rewrite is
printed: the listening host becomes 127.0.0.1, ports become free loopback
ports, the Service name `redis` becomes 127.0.0.1, and /data becomes a temp
directory. Each case waits for the readiness probe's path to answer 200,
then checks a write and a hit, the liveness path, the image's HEALTHCHECK
command, and that SIGTERM ends the process with status 0 within the pod's
termination grace period.

    python3 .ci/shipped.py --binary .build/release/hitroute [--work DIR]

Needs PyYAML (kubernetes-validate's venv has it) and redis-server.
"""
import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILS = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILS.append(what)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ----------------------------------------------------------------------------
# The Dockerfile


def dockerfile_instructions(path):
    """(INSTRUCTION, text) pairs of the final stage, continuations joined."""
    lines, joined = open(path).read().splitlines(), []
    current = ""
    for line in lines:
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        joined.append(current.strip())
        current = ""
    stages, stage = [], []
    for text in joined:
        word, _, rest = text.partition(" ")
        if word.upper() == "FROM":
            stage = []
            stages.append(stage)
        stage.append((word.upper(), rest.strip()))
    return stages[-1]


def parse_env(text):
    """ENV key=value pairs (shell-style quoting), or the legacy `ENV key value`."""
    words = shlex.split(text)
    if words and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}
    return dict(w.split("=", 1) for w in words)


def image(path):
    env, entrypoint, cmd, health, user = {}, [], [], None, None
    for word, rest in dockerfile_instructions(path):
        if word == "ENV":
            env.update(parse_env(rest))
        elif word == "ENTRYPOINT":
            entrypoint = json.loads(rest)
        elif word == "CMD":
            cmd = json.loads(rest)
        elif word == "HEALTHCHECK":
            m = re.search(r"\bCMD\s+(\[.*\])\s*$", rest)
            health = json.loads(m.group(1)) if m else None
        elif word == "USER":
            user = rest
    return {"env": env, "entrypoint": entrypoint, "cmd": cmd, "healthcheck": health, "user": user}


# ----------------------------------------------------------------------------
# The manifests


def documents(path):
    return [d for d in yaml.safe_load_all(open(path)) if d]


def container(path, kind, name):
    for d in documents(path):
        if d.get("kind") == kind and d["metadata"]["name"] == name:
            spec = d["spec"]["template"]["spec"]
            return spec, next(c for c in spec["containers"] if c["name"] == name)
    raise SystemExit(f"no {kind} {name} in {path}")


def configmap(path, name):
    for d in documents(path):
        if d.get("kind") == "ConfigMap" and d["metadata"]["name"] == name:
            return d["data"]
    raise SystemExit(f"no ConfigMap {name} in {path}")


# ----------------------------------------------------------------------------
# Loopback rewrites


class Rewrites:
    """What cannot work off a cluster, replaced and printed."""

    def __init__(self, port, redis_port, data_dir):
        self.rules = [
            (re.compile(r"^0\.0\.0\.0$"), "127.0.0.1"),
            (re.compile(r"^(::|\[::\])$"), "127.0.0.1"),
            (re.compile(r"^8080$"), str(port)),
            (re.compile(r"redis://redis:6379"), f"redis://127.0.0.1:{redis_port}"),
            (re.compile(r"^/data$"), data_dir),
        ]

    def value(self, where, text):
        out = text
        for pattern, replacement in self.rules:
            out = pattern.sub(replacement, out)
        if out != text:
            print(f"      rewrite {where}: {text!r} -> {out!r}")
        return out

    def arg(self, text):
        flag, eq, value = text.partition("=")
        if eq and flag.startswith("--"):
            return flag + "=" + self.value(f"arg {flag}", value)
        return self.value("arg", text)


# ----------------------------------------------------------------------------
# Processes


def http(base, method, path, body=None, timeout=5):
    req = urllib.request.Request(base + path, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_status(base, path, want, proc, seconds):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return f"exited with status {proc.returncode}"
        try:
            last, _ = http(base, "GET", path, timeout=2)
            if last == want:
                return None
        except OSError as e:
            last = e
        time.sleep(0.1)
    return f"no {want} within {seconds} s (last: {last})"


def stop(proc, grace):
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def start_redis(work, password):
    """redis-server with the shipped redis.conf (dir, port and bind for loopback)."""
    _, c = container(os.path.join(ROOT, "deploy/k8s/redis.yaml"), "StatefulSet", "redis")
    conf = configmap(os.path.join(ROOT, "deploy/k8s/redis.yaml"), "redis-config")["redis.conf"]
    port = free_port()
    data = tempfile.mkdtemp(prefix="redis-data.", dir=work)
    lines = []
    for line in conf.splitlines():
        if line.split()[:1] == ["dir"] and line.split()[1] == "/data":
            print(f"      rewrite redis.conf: {line!r} -> 'dir {data}'")
            line = f"dir {data}"
        lines.append(line)
    lines += [f"port {port}", "bind 127.0.0.1", "daemonize no"]
    if password:
        lines.append(f"requirepass {password}")
    os.makedirs(os.path.join(work, "etc-redis"), exist_ok=True)
    path = os.path.join(work, "etc-redis", "redis.conf")
    open(path, "w").write("\n".join(lines) + "\n")
    command = [path if a == "/etc/redis/redis.conf" else a for a in c["command"]]
    check(command[0] == "redis-server", f"redis container runs redis-server ({c['command']})")
    log = open(os.path.join(work, f"redis-{port}.log"), "w")
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"redis-server did not listen on {port}")


def run_case(name, binary, argv, env, probes, healthcheck, grace, work):
    """Starts `argv` with `env` (nothing inherited but PATH), waits for the
    readiness path, checks a write, a hit, liveness and the HEALTHCHECK,
    then SIGTERM."""
    print(f"\n== {name}", flush=True)
    print("      argv: " + " ".join(shlex.quote(a) for a in argv))
    print("      env:  " + " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()) if "PASSWORD" not in k))
    log_path = os.path.join(work, re.sub(r"\W+", "-", name) + ".log")
    log = open(log_path, "w")
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
    proc = subprocess.Popen([binary] + argv[1:], env=full_env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{probes['port']}"
    try:
        err = wait_status(base, probes["readiness"], 200, proc, 60)
        if not check(err is None, f"{name}: readiness probe GET {probes['readiness']} -> 200" + (f" ({err})" if err else "")):
            print(open(log_path).read())
            return
        status, _ = http(base, "GET", probes["liveness"])
        check(status == 200, f"{name}: liveness probe GET {probes['liveness']} -> {status}")
        scene = open(os.path.join(ROOT, "examples/ring-over-button.json"), "rb").read()
        status, body = http(base, "PUT", "/scenes/ring-demo", scene)
        check(status in (200, 201), f"{name}: PUT /scenes/ring-demo -> {status}")
        status, body = http(base, "GET", "/scenes/ring-demo/hit?x=120&y=120")
        check(status == 200 and json.loads(body).get("layer") == "button", f"{name}: hit (120,120) -> {status} {body[:60]!r}")
        if healthcheck:
            hc = subprocess.run(healthcheck, env=full_env, timeout=10)
            check(hc.returncode == 0, f"{name}: the image's HEALTHCHECK {healthcheck[:2]}… -> {hc.returncode}")
    finally:
        rc = stop(proc, grace)
        log.close()
    check(rc == 0, f"{name}: SIGTERM -> exit status {rc} within {grace} s")
    text = open(log_path).read()
    print("      log: " + text.strip().replace("\n", "\n           "))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/hitroute"))
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="hitroute-shipped.")
    os.makedirs(work, exist_ok=True)
    binary = os.path.abspath(a.binary)

    img = image(os.path.join(ROOT, "Dockerfile"))
    print(f"Dockerfile: ENV {img['env']}, ENTRYPOINT {img['entrypoint']}, CMD {img['cmd']}, USER {img['user']}")
    check(img["entrypoint"] == ["/usr/local/bin/hitroute"], "the image's entry point is the binary")

    # 1. `docker run -v hitroute-data:/data hitroute`: the image alone.
    port = free_port()
    rw = Rewrites(port, 0, tempfile.mkdtemp(prefix="data.", dir=work))
    env = {k: rw.value(f"ENV {k}", v) for k, v in img["env"].items()}
    run_case("docker run (the image's ENV and CMD)", binary, img["entrypoint"] + img["cmd"], env,
             {"port": port, "readiness": "/readyz", "liveness": "/healthz"}, img["healthcheck"], 30, work)
    check(any(n.startswith("journal") for n in os.listdir(rw.rules[4][1])),
          "docker run: the image's data directory holds the journal")

    # 2. The Deployment over the StatefulSet's Redis, with and without the
    # optional password Secret.
    pod, c = container(os.path.join(ROOT, "deploy/k8s/hitroute.yaml"), "Deployment", "hitroute")
    grace = pod.get("terminationGracePeriodSeconds", 30)
    pre_stop = c.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
    drain = next((float(x.split("=", 1)[1]) for x in c.get("args", []) if x.startswith("--shutdown-grace=")), 10.0)
    pause = float(pre_stop[1]) if pre_stop[:1] == ["sleep"] else 0.0
    check(pause + drain < grace, f"preStop {pause:g} s + --shutdown-grace {drain:g} s < terminationGracePeriodSeconds {grace}")
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    ready = c["readinessProbe"]["httpGet"]
    live = c["livenessProbe"]["httpGet"]
    for password in ("", "shipped-secret-" + os.urandom(6).hex()):
        redis, redis_port = start_redis(work, password)
        try:
            port = free_port()
            rw = Rewrites(port, redis_port, tempfile.mkdtemp(prefix="data.", dir=work))
            env = {k: rw.value(f"ENV {k}", v) for k, v in img["env"].items()}
            for e in c.get("env", []):
                if "value" in e:
                    env[e["name"]] = rw.value(f"env {e['name']}", e["value"])
                elif "secretKeyRef" in e.get("valueFrom", {}):
                    ref = e["valueFrom"]["secretKeyRef"]
                    if password:
                        env[e["name"]] = password
                    else:
                        check(ref.get("optional") is True, f"env {e['name']}: its Secret is optional")
            argv = img["entrypoint"] + [rw.arg(x) for x in c.get("args", img["cmd"])]
            container_port = lambda p: ports[p] if isinstance(p, str) else p  # noqa: E731
            check(container_port(ready["port"]) == 8080 and container_port(live["port"]) == 8080,
                  "the probes' port is the container's 8080")
            run_case(f"Deployment hitroute ({'with' if password else 'without'} the Redis password)", binary, argv, env,
                     {"port": port, "readiness": ready["path"], "liveness": live["path"]}, img["healthcheck"], grace, work)
        finally:
            redis.terminate()
            redis.wait()

    print(f"\n{len(FAILS)} check(s) failed" + (": " + "; ".join(FAILS) if FAILS else ""))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()

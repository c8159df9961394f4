#!/usr/bin/env python3
"""With --log-format json every line the process writes is one JSON object.

Runs the binary three times on loopback and reads all it writes (stdout and
stderr), every line of which must parse as one JSON object; lines without
`method` (the process's own: start, notes, warnings, recovery, reloads,
shutdown, a bad flag) must have `time`, `level` and `msg`; access lines must
have `time`, `method`, `status`.

  1. --data-dir (recovery), an empty key file (a warning), requests (access
     lines), SIGHUP with a key, SIGHUP with a broken file (a warning),
     SIGTERM (stopped);
  2. the same directory again: recovery of the scene written in run 1;
  3. a bad flag after --log-format json: one error line, status 2.

    python3 .ci/json_logs.py --binary .build/release/hitroute
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

FAILS = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILS.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(base, method, path, body=None, key=None):
    req = urllib.request.Request(base + path, data=body, method=method)
    if key:
        req.add_header("Authorization", "Bearer " + key)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def wait_until(predicate, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def lines_of(path, name):
    """Every line must be one JSON object; returns them parsed."""
    out = []
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        try:
            obj = json.loads(line)
        except ValueError:
            check(False, f"{name} line {n} is JSON: {line!r}")
            continue
        if not isinstance(obj, dict):
            check(False, f"{name} line {n} is an object: {line!r}")
            continue
        if "method" in obj:
            ok = all(k in obj for k in ("time", "method", "status", "route"))
        else:
            ok = all(isinstance(obj.get(k), str) for k in ("time", "level", "msg")) and obj["level"] in ("info", "warning", "error")
        if not ok:
            check(False, f"{name} line {n} has its fields: {line!r}")
        out.append(obj)
    check(len(out) > 0, f"{name}: {len(out)} lines, each one JSON object with its fields")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="hitroute-jsonlogs.")
    data = os.path.join(work, "data")
    keys = os.path.join(work, "keys")
    open(keys, "w").write("# no key yet\n")
    key = "json-logs-" + os.urandom(12).hex()
    scene = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "ring-over-button.json"), "rb").read()

    def start(log_path):
        port = free_port()
        log = open(log_path, "w")
        proc = subprocess.Popen([a.binary, "--port", str(port), "--log-format", "json", "--data-dir", data,
                                 "--api-keys-file", keys], stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        check(wait_until(lambda: _ready(base)), f"{log_path}: ready")
        return proc, base

    # 1.
    log1 = os.path.join(work, "run1.log")
    proc, base = start(log1)
    check(request(base, "GET", "/scenes") == 401, "no key yet: 401")
    open(keys, "w").write(f"write {key}\n")
    proc.send_signal(signal.SIGHUP)
    check(wait_until(lambda: request(base, "GET", "/scenes", key=key) == 200), "SIGHUP: the key works")
    check(request(base, "PUT", "/scenes/ring-demo", scene, key=key) == 201, "PUT a scene")
    check(request(base, "GET", "/scenes/ring-demo/hit?x=120&y=120", key=key) == 200, "a hit")
    open(keys, "w").write("write short\n")
    proc.send_signal(signal.SIGHUP)
    wait_until(lambda: "not reloaded" in open(log1).read(), 10)
    proc.send_signal(signal.SIGTERM)
    check(proc.wait(timeout=30) == 0, "run 1: SIGTERM -> 0")
    run1 = lines_of(log1, "run 1")
    levels = [(o.get("level"), o.get("msg", "")) for o in run1 if "method" not in o]
    for want_level, fragment in [("info", "listening on"), ("warning", "holds no key"), ("info", "journal: recovered 0 scenes"),
                                 ("info", "reloaded 1 API key"), ("warning", "not reloaded"), ("info", "stopped")]:
        check(any(lv == want_level and fragment in m for lv, m in levels), f"run 1 has a {want_level} line with {fragment!r}")
    check(sum(1 for o in run1 if "method" in o) >= 4, "run 1 has the access lines")
    check(key not in open(log1).read(), "no key in the log")

    # 2.
    open(keys, "w").write(f"write {key}\n")
    log2 = os.path.join(work, "run2.log")
    proc, base = start(log2)
    proc.send_signal(signal.SIGTERM)
    check(proc.wait(timeout=30) == 0, "run 2: SIGTERM -> 0")
    run2 = lines_of(log2, "run 2")
    check(any("recovered 1 scenes" in o.get("msg", "") for o in run2), "run 2 logs the recovery of 1 scene")

    # 3.
    log3 = os.path.join(work, "run3.log")
    with open(log3, "w") as log:
        rc = subprocess.run([a.binary, "--log-format", "json", "--port", "nope"], stdout=log, stderr=subprocess.STDOUT).returncode
    check(rc == 2, f"a bad flag: status {rc}")
    run3 = lines_of(log3, "run 3")
    check(len(run3) == 1 and run3[0]["level"] == "error" and "--port" in run3[0]["msg"], f"a bad flag: one error line {run3}")

    print(f"{len(FAILS)} JSON log check(s) failed; logs in {work}")
    sys.exit(1 if FAILS else 0)


def _ready(base):
    try:
        return request(base, "GET", "/readyz") == 200
    except OSError:
        return False


if __name__ == "__main__":
    main()

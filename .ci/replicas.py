#!/usr/bin/env python3
"""Through nginx in front of three replicas (deploy/local.sh running):

1. every scene's requests, pointer events included, reach one replica
   (nginx adds X-Upstream), and a drag holds its capture across events;
2. with one replica stopped (deploy/local.sh stop-replica 2) only the
   scenes that were on it move; every scene still answers.

Bounded: 60 scenes, a few requests each, every request with a timeout.
Standard library only. Prints what it measured; exits 1 on a failure.
"""
import argparse
import collections
import http.client
import json
import subprocess
import sys
import time
import urllib.parse

SCENES = 60
SCENE = {"layers": [
    {"id": "pad", "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100}},
    {"id": "knob", "draggable": True, "shape": {"type": "circle", "cx": 50, "cy": 50, "r": 10}},
]}


def request(base, method, path, body=None, headers=None):
    u = urllib.parse.urlsplit(base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    data = json.dumps(body).encode() if body is not None else None
    h = {"Content-Type": "application/json"} if data is not None else {}
    h.update(headers or {})
    c.request(method, path, body=data, headers=h)
    r = c.getresponse()
    payload = r.read()
    c.close()
    return r.status, r.getheader("X-Upstream"), (json.loads(payload) if payload else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="http://127.0.0.1:25080")
    args = ap.parse_args()
    failures = []
    owner = {}
    for k in range(SCENES):
        sid = f"s{k}"
        status, up, _ = request(args.base, "PUT", f"/scenes/{sid}", SCENE)
        if status not in (200, 201):
            failures.append(f"PUT {sid}: {status}")
            continue
        ups = set()
        for i, (phase, x) in enumerate([("down", 50), ("move", 60), ("move", 70), ("up", 80)]):
            status, up, body = request(args.base, "POST", f"/scenes/{sid}/hit",
                                       {"x": x, "y": 50, "trace": False, "pointer": "p", "phase": phase})
            ups.add(up)
            if status != 200 or body.get("layer") != "knob" or body.get("captured") is not True:
                failures.append(f"{sid} {phase}: {status} {body}")
        status, up, body = request(args.base, "GET", f"/scenes/{sid}/hit?x=1&y=1&trace=0")
        ups.add(up)
        if len(ups) != 1:
            failures.append(f"{sid}: answered by {sorted(ups)}")
        owner[sid] = up
    spread = collections.Counter(owner.values())
    print(f"scenes per replica: {dict(spread)}")
    if len(spread) != 3:
        failures.append(f"the scenes hashed onto {len(spread)} replicas, not 3")

    gone_port = None
    gone = [u for u in spread if u and u.endswith(":" + str(int(args.base.rsplit(":", 1)[1]) + 2))]
    gone_port = gone[0] if gone else None
    subprocess.run(["bash", "deploy/local.sh", "stop-replica", "2"], check=True)
    moved, stayed, lost = 0, 0, 0
    for sid, before in owner.items():
        status, after, body = request(args.base, "GET", f"/scenes/{sid}/hit?x=1&y=1&trace=0")
        if status != 200 or body.get("layer") != "pad":
            lost += 1
            failures.append(f"{sid} after the stop: {status} {body}")
        if after != before:
            moved += 1
            if before != gone_port:
                failures.append(f"{sid} moved from {before} to {after} though its replica is up")
        else:
            stayed += 1
    print(f"after stopping replica 2 ({gone_port}): moved {moved} (it held {spread.get(gone_port, 0)}), "
          f"stayed {stayed}, failed {lost}")
    for f in failures:
        print("FAIL:", f)
    print("replicas.py:", "ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Counts the series of /metrics after a fixed workload that reaches every
route with its methods and the usual answers (2xx, 4xx of every kind the
API gives for bad input, 405, 404), so that two builds can be compared.

    python3 Benchmarks/metrics-series.py --binary .build/release/hitroute

Prints the number of samples (lines not starting with `#`) in the text
scrape, and how many belong to hitroute_http_request_duration_seconds.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def call(base, method, path, body=None, headers=None):
    req = urllib.request.Request(base + path, data=body.encode() if isinstance(body, str) else body, method=method)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def workload(base):
    ring = open(os.path.join(ROOT, "examples/ring-over-button.json")).read()
    squares = open(os.path.join(ROOT, "examples/overlapping-squares.json")).read()
    j = {"Content-Type": "application/json"}
    steps = [
        ("GET", "/healthz", None, None), ("GET", "/readyz", None, None), ("GET", "/openapi.yaml", None, None),
        ("GET", "/metrics", None, None), ("GET", "/", None, {"Accept": "text/html"}), ("GET", "/", None, None),
        ("GET", "/hitroute.js", None, None), ("GET", "/nope.js", None, None),
        ("PUT", "/scenes/ring-demo", ring, j), ("PUT", "/scenes/ring-demo", ring, j), ("PUT", "/scenes/squares", squares, j),
        ("POST", "/scenes", ring, j), ("POST", "/scenes", '{"layers":[{"id":"a","hitslop":1}]}', j),
        ("POST", "/scenes", "{", j), ("POST", "/scenes", ring, {"Content-Type": "application/xml"}),
        ("GET", "/scenes", None, None), ("GET", "/scenes/ring-demo", None, None), ("GET", "/scenes/none", None, None),
        ("PUT", "/scenes/ring-demo", ring, {**j, "If-Match": '"99"'}), ("DELETE", "/scenes/none", None, None),
        ("GET", "/scenes/ring-demo/hit?x=120&y=120", None, None), ("GET", "/scenes/ring-demo/hit?x=a", None, None),
        ("POST", "/scenes/ring-demo/hit", '{"x":210,"y":120}', j), ("POST", "/scenes/ring-demo/hit", '{"x":"a"}', j),
        ("GET", "/scenes/none/hit?x=1&y=1", None, None), ("HEAD", "/scenes/ring-demo/hit?x=1&y=1", None, None),
        ("POST", "/scenes/ring-demo/hits", '{"points":[{"x":1,"y":1}]}', j), ("POST", "/scenes/ring-demo/hits", '{"points":1}', j),
        ("GET", "/scenes/ring-demo/hits", None, None),
        ("POST", "/scenes/squares/hit", '{"x":300,"y":300,"pointer":"m","phase":"down"}', j),
        ("POST", "/scenes/squares/hit", '{"x":310,"y":310,"pointer":"m","phase":"move"}', j),
        ("POST", "/scenes/squares/hit", '{"x":310,"y":310,"pointer":"m","phase":"up"}', j),
        ("PATCH", "/scenes/ring-demo/layers/ring", '{"color":"#000"}', {"Content-Type": "application/merge-patch+json"}),
        ("PATCH", "/scenes/ring-demo/layers/none", '{"color":"#000"}', {"Content-Type": "application/merge-patch+json"}),
        ("PATCH", "/scenes/ring-demo/layers/ring", '{"shape":1}', {"Content-Type": "application/merge-patch+json"}),
        ("GET", "/scenes/ring-demo/render.svg?x=1&y=1&regions=1", None, None), ("GET", "/scenes/ring-demo/render.svg?x=z", None, None),
        ("OPTIONS", "/scenes/ring-demo/hit", None, {"Origin": "http://a.test", "Access-Control-Request-Method": "POST"}),
        ("DELETE", "/scenes/squares", None, None), ("DELETE", "/healthz", None, None), ("TRACE", "/scenes", None, None),
        ("GET", "/no/such/route", None, None),
    ]
    for method, path, body, headers in steps:
        for _ in range(3):
            call(base, method, path, body, headers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    a = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([a.binary, "--port", str(port), "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if call(base, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        workload(base)
        text = call(base, "GET", "/metrics")[1].decode()
        samples = [l for l in text.splitlines() if l and not l.startswith("#")]
        duration = [l for l in samples if l.startswith("hitroute_http_request_duration_seconds")]
        combos = {re.sub(r',?le="[^"]*"', "", l.split("{", 1)[1].rsplit("}", 1)[0]) for l in duration}
        requests = [l for l in samples if l.startswith("hitroute_http_requests_total")]
        print(json.dumps({"samples": len(samples), "duration_histogram_samples": len(duration),
                          "duration_label_sets": len(combos), "request_counter_samples": len(requests)}))
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()

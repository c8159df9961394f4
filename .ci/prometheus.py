#!/usr/bin/env python3
"""A real Prometheus scrapes hitroute with its own content negotiation.

Starts the release binary (with an API key file) and Debian's `prometheus`
on loopback. The scrape configuration is deploy/prometheus.yml itself, its
relabelling rules included; only the discovery is swapped: Kubernetes pod
discovery needs a cluster (and Debian's build leaves it out), so a file_sd
file lists two "pods" with the labels that discovery gives
(`__meta_kubernetes_pod_annotation_*`, the pod's label, name, namespace):
hitroute's, annotated as in deploy/k8s/hitroute.yaml, and another pod
without the annotations. The bearer key goes in the credentials file.

Passes when the targets API lists exactly one active target, hitroute's,
with health `up`, the `pod` label set by the rules and the scrape URL the
annotations name; and a query of `hitroute_build_info` answers a series.

    python3 .ci/prometheus.py --binary .build/release/hitroute [--work DIR]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, key=None):
    req = urllib.request.Request(url)
    if key:
        req.add_header("Authorization", "Bearer " + key)
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.status, r.read()


def wait(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            result = predicate()
            if result:
                return result
        except OSError:
            pass
        time.sleep(0.25)
    return None


def pod_annotations(path):
    for d in yaml.safe_load_all(open(path)):
        if d and d.get("kind") == "Deployment":
            return d["spec"]["template"]["metadata"]["annotations"]
    raise SystemExit("no Deployment in " + path)


def meta_annotation(name):
    return "__meta_kubernetes_pod_annotation_" + "".join(c if c.isalnum() else "_" for c in name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="hitroute-prometheus.")
    os.makedirs(work, exist_ok=True)
    key = "prometheus-" + os.urandom(12).hex()
    open(os.path.join(work, "keys"), "w").write(f"read {key}\n")
    key_file = os.path.join(work, "hitroute.key")
    open(key_file, "w").write(key)

    port, prom_port = free_port(), free_port()
    server = subprocess.Popen([a.binary, "--port", str(port), "--quiet", "--api-keys-file", os.path.join(work, "keys")],
                              stdout=open(os.path.join(work, "hitroute.log"), "w"), stderr=subprocess.STDOUT)
    prom = None
    try:
        if not wait(lambda: get(f"http://127.0.0.1:{port}/readyz")[0] == 200, 30):
            raise SystemExit("hitroute did not become ready")

        # The pods as Kubernetes discovery would present them.
        annotations = pod_annotations(os.path.join(ROOT, "deploy/k8s/hitroute.yaml"))
        hitroute_pod = {meta_annotation(k): v for k, v in annotations.items()}
        hitroute_pod[meta_annotation("prometheus.io/port")] = str(port)  # the container's 8080, on loopback
        hitroute_pod.update({"__meta_kubernetes_pod_label_app_kubernetes_io_name": "hitroute",
                             "__meta_kubernetes_pod_name": "hitroute-7d9f-abcde",
                             "__meta_kubernetes_namespace": "default"})
        other_pod = {"__meta_kubernetes_pod_label_app_kubernetes_io_name": "redis",
                     "__meta_kubernetes_pod_name": "redis-0", "__meta_kubernetes_namespace": "default"}
        sd_file = os.path.join(work, "pods.json")
        json.dump([{"targets": [f"127.0.0.1:{port}"], "labels": hitroute_pod},
                   {"targets": [f"127.0.0.1:{free_port()}"], "labels": other_pod}], open(sd_file, "w"))

        config = yaml.safe_load(open(os.path.join(ROOT, "deploy/prometheus.yml")))
        config["global"]["scrape_interval"] = "1s"
        job = next(j for j in config["scrape_configs"] if j["job_name"] == "hitroute")
        assert job.pop("kubernetes_sd_configs") == [{"role": "pod"}], "deploy/prometheus.yml discovers pods"
        job["file_sd_configs"] = [{"files": [sd_file], "refresh_interval": "1s"}]
        job["authorization"]["credentials_file"] = key_file
        config_file = os.path.join(work, "prometheus.yml")
        yaml.safe_dump(config, open(config_file, "w"))
        subprocess.run(["promtool", "check", "config", config_file], check=True)

        prom = subprocess.Popen(["prometheus", "--config.file", config_file,
                                 "--storage.tsdb.path", os.path.join(work, "tsdb"),
                                 "--web.listen-address", f"127.0.0.1:{prom_port}"],
                                stdout=open(os.path.join(work, "prometheus.log"), "w"), stderr=subprocess.STDOUT)
        api = f"http://127.0.0.1:{prom_port}/api/v1"

        def targets_up():
            d = json.loads(get(api + "/targets")[1])["data"]["activeTargets"]
            return d if d and all(t["health"] == "up" for t in d) else None

        targets = wait(targets_up, 90)
        last = json.loads(get(api + "/targets")[1])["data"]
        print(json.dumps(last, indent=1)[:3000])
        assert targets, "no target up within 90 s"
        assert len(targets) == 1, f"one target (the redis pod dropped by the rules): {targets}"
        t = targets[0]
        assert t["labels"].get("pod") == "hitroute-7d9f-abcde" and t["labels"].get("namespace") == "default", t["labels"]
        assert t["scrapeUrl"] == f"http://127.0.0.1:{port}{annotations['prometheus.io/path']}", t["scrapeUrl"]

        def build_info():
            q = urllib.parse.quote('hitroute_build_info{job="hitroute"}')
            r = json.loads(get(f"{api}/query?query={q}")[1])["data"]["result"]
            return r or None

        series = wait(build_info, 30)
        assert series and series[0]["value"][1] == "1", series
        print(f"prometheus: target {t['scrapeUrl']} up (pod {t['labels']['pod']}), hitroute_build_info {series[0]['metric']}")
    finally:
        for p in (prom, server):
            if p:
                p.terminate()
                p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())

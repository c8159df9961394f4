#!/usr/bin/env python3
"""Side by side: uploads of one scene to hitroute builds, each to a fresh
server, in interleaved rounds (target 5's measurement, several builds).

    python3 Benchmarks/ingest-ab.py SCENE.json ROUNDS HITROUTE_BINARY...

Every round starts each build in turn (odd rounds in reverse order), PUTs
SCENE.json to it with curl as Benchmarks/harness.py does (`--data-binary`,
`/scenes/<the scene's id>`), and stops it. Prints each build's median MB/s
(body size ÷ curl's total time), its ratio to the first build's, and every
round. A scene: `hitroute-bench generate 100000 > scene.json`.
"""
import os
import re
import socket
import statistics
import subprocess
import sys
import time


def wait_up(port, proc):
    for _ in range(400):
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.025)
    raise SystemExit(f"nothing answers on port {port}")


def upload(build, port, scene, scene_id):
    proc = subprocess.Popen([build, "--port", str(port), "--quiet", "--max-body-bytes", str(256 << 20)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_up(port, proc)
        time.sleep(0.2)
        out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-X", "PUT",
                              "-H", "Content-Type: application/json", "--data-binary", "@" + scene,
                              "--max-time", "120", f"http://127.0.0.1:{port}/scenes/{scene_id}"],
                             capture_output=True, text=True, timeout=150).stdout.split()
        if out[0] not in ("200", "201"):
            raise SystemExit(f"{build}: the upload answered {out[0]}")
        return float(out[1])
    finally:
        proc.terminate()
        proc.wait(30)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    scene, rounds, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    port = int(os.environ.get("HITROUTE_AB_PORT", "28950"))
    with open(scene, "rb") as fh:
        scene_id = re.search(rb'"id"\s*:\s*"([^"]+)"', fh.read(4096)).group(1).decode()
    megabytes = os.path.getsize(scene) / 1e6
    rates = {b: [] for b in builds}
    for r in range(rounds):
        for b in builds if r % 2 == 0 else builds[::-1]:
            rates[b].append(megabytes / upload(b, port, scene, scene_id))
    first = statistics.median(rates[builds[0]])
    for b in builds:
        m = statistics.median(rates[b])
        print(f"{b}: median {m:.1f} MB/s ({m / first:.3f}× the first); rounds: "
              + " ".join(f"{v:.0f}" for v in rates[b]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Crash tests for the journal (SPEC §9), against a built hitroute binary.

    python3 .ci/crash.py [--binary .build/release/hitroute] [--rounds 20]

Writer threads (in this process, not the server's) each own scenes and keep
a ledger of every change the server acknowledged: its version and the
scene's GET body at that version. The server is killed with SIGKILL at a
random moment of each round, restarted on the same --data-dir, and every
ledger entry is checked: with --fsync always every acknowledged change is
there (version equal, GET equal; a change in flight at the kill may be
there too, one version on). With everysec the kill is of the process, so
nothing should be lost either; what is lost is counted and reported.

Then: a second process on the same directory is refused (flock); a flipped
byte in the middle of the journal stops the start naming file and offset,
and --repair starts; a flipped byte at several offsets of a snapshot (header,
a record's length, a record's body, the last record, the index, the footer)
stops the start, and --repair keeps every scene but the damaged record's own
(at its acknowledged version), setting aside that scene's later journal
records; a flipped byte at several offsets of a segment keeps, with
--repair, every scene whose records precede it; a deleted segment (first,
middle, newest) stops the start naming it, and --repair keeps every scene
the segment held no record of. Each case prints the scenes kept against
those acknowledged. A file-size limit (RLIMIT_FSIZE, a full disk) makes
writes answer 507 and /readyz 503 while hits go on, and loses nothing
acknowledged. Exits non-zero on any failure. Every server runs under a
bounded lifetime; all traffic is on 127.0.0.1.
"""
import argparse
import http.client
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SERVER_LIFETIME_S = 600
FAILURES = []


def log(msg):
    print(f"[crash {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def fail(msg):
    FAILURES.append(msg)
    log("FAIL: " + msg)


class Server:
    def __init__(self, binary, data_dir, fsync="always", extra=(), fsize=None):
        self.stderr_path = tempfile.mktemp(prefix="hitroute-crash-", suffix=".log")
        self.err = open(self.stderr_path, "w")
        args = ["timeout", "-s", "KILL", str(SERVER_LIFETIME_S), binary, "--port", "0", "--quiet",
                "--data-dir", data_dir, "--fsync", fsync, *extra]

        def limit():
            if fsize is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.err, preexec_fn=limit)
        self.port = None

    def wait_listening(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(r"listening on [^ ]*:(\d+)", self.log())
            if m:
                self.port = int(m.group(1))
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.02)
        return False

    def wait_ready(self, timeout=120):
        if not self.wait_listening(timeout):
            return False
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if request(self.port, "GET", "/readyz")[0] == 200:
                    return True
            except OSError:
                pass
            if self.proc.poll() is not None:
                return False
            time.sleep(0.02)
        return False

    def log(self):
        with open(self.stderr_path) as f:
            return f.read()

    def kill(self):
        # SIGKILL the server itself (the child of `timeout`).
        try:
            child = int(subprocess.check_output(["pgrep", "-P", str(self.proc.pid)]).split()[0])
            os.kill(child, signal.SIGKILL)
        except (subprocess.CalledProcessError, ProcessLookupError, IndexError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.err.close()


def request(port, method, path, body=None, headers=None, timeout=30, with_headers=False):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        h = {"Content-Type": "application/json"} if data is not None else {}
        h.update(headers or {})
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        body = r.read()
        if with_headers:
            return r.status, body, {k.lower(): v for k, v in r.getheaders()}
        return r.status, body
    finally:
        c.close()


def scene_body(k):
    return {"width": 400, "height": 400, "layers": [
        {"id": "bg", "shape": {"type": "rect", "x": 0, "y": 0, "width": 400, "height": 400}},
        {"id": "knob", "draggable": True, "action": f"knob.{k}",
         "shape": {"type": "circle", "cx": 50, "cy": 50, "r": 30}}]}


class Writer(threading.Thread):
    """Owns scene `sid` and changes it until the server dies. The ledger
    holds, per scene, the last acknowledged version (0: deleted or never
    made) and the GET body at that version (None until read back)."""

    def __init__(self, port, sid, rng, ledger, pending):
        super().__init__(daemon=True)
        self.port, self.sid, self.rng, self.ledger, self.pending = port, sid, rng, ledger, pending
        self.acks = 0

    def send(self, kind, method, path, body):
        # What is in flight, should the answer never come.
        self.pending[self.sid] = kind
        status, answer, self.headers = request(self.port, method, path, body, with_headers=True)
        self.pending[self.sid] = None
        return status, answer

    def ack(self, version):
        self.ledger[self.sid] = (version, None)  # acknowledged: recorded before anything else
        self.acks += 1
        status, body = request(self.port, "GET", f"/scenes/{self.sid}")
        if status == 200 and json.loads(body)["version"] == version:
            self.ledger[self.sid] = (version, body)
        else:
            fail(f"{self.sid}: GET after acknowledged v{version} gave {status} {body[:100]!r}")

    def run(self):
        try:
            self.loop()
        except (OSError, http.client.HTTPException):
            pass  # the server was killed

    def loop(self):
        k = 0
        pointer_down = False
        while True:
            k += 1
            version, body = self.ledger.get(self.sid, (0, None))
            op = self.rng.random()
            if version == 0 or body is None or op < 0.04:
                status, answer = self.send("change", "PUT", f"/scenes/{self.sid}", scene_body(k))
                if status in (200, 201):
                    self.ack(json.loads(answer)["version"])
                    pointer_down = False
                elif status != 503:
                    fail(f"{self.sid}: PUT answered {status} {answer[:200]!r}")
            elif op < 0.07:
                status, answer = self.send("delete", "DELETE", f"/scenes/{self.sid}", None)
                if status == 204:
                    self.ledger[self.sid] = (0, None)
                    self.acks += 1
                elif status != 503:
                    fail(f"{self.sid}: DELETE answered {status}")
            elif op < 0.55:
                status, answer = self.send("change", "PATCH", f"/scenes/{self.sid}/layers/bg", {"action": f"bg.{k}"})
                if status == 200:
                    self.ack(int(self.headers["etag"].strip('"')))
                elif status != 503:
                    fail(f"{self.sid}: PATCH answered {status} {answer[:200]!r}")
            else:
                layer = [l for l in json.loads(body)["layers"] if l["id"] == "knob"][0]
                t = layer.get("transform", {}).get("translate", [0, 0])
                x, y = 50 + t[0], 50 + t[1]
                if pointer_down:
                    x, y = x + self.rng.uniform(-3, 3), y + self.rng.uniform(-3, 3)
                status, answer = self.send("change", "POST", f"/scenes/{self.sid}/hit",
                                         {"x": x, "y": y, "pointer": "p", "phase": "move" if pointer_down else "down", "trace": False})
                if status == 200:
                    a = json.loads(answer)
                    pointer_down = a.get("captured") is True
                    if a["version"] != version:
                        self.ack(a["version"])
                elif status != 503:
                    fail(f"{self.sid}: hit answered {status} {answer[:200]!r}")


def verify(port, ledger, pending, fsync):
    """Every acknowledged change is there. One change per writer may have
    been in flight at the kill (sent, not answered): it may be kept (one
    version on, or the scene deleted) or not. Returns (kept, in_flight, lost)."""
    kept = in_flight = lost = 0
    for sid, (version, body) in sorted(ledger.items()):
        status, got = request(port, "GET", f"/scenes/{sid}")
        v = json.loads(got)["version"] if status == 200 else 0
        if v == version and (body is None or got == body or version == 0):
            kept += 1
        elif (pending.get(sid) == "change" and v == version + 1) or (pending.get(sid) == "delete" and v == 0):
            in_flight += 1
        else:
            lost += 1
            why = f"{sid}: acknowledged v{version}, found {status} v{v}" + (" with a different body" if v == version else "")
            if fsync == "always":
                fail(why)
            else:
                log("lost: " + why)
    return kept, in_flight, lost


def crash_rounds(binary, rounds, fsync, writers, seed):
    data = tempfile.mkdtemp(prefix=f"hitroute-crash-{fsync}-")
    rng = random.Random(seed)
    ledger = {}
    pending = {}
    total_acks = total_lost = total_flight = 0
    try:
        for r in range(rounds):
            server = Server(binary, data, fsync)
            if not server.wait_ready():
                fail(f"{fsync} round {r}: server did not become ready: {server.log()[-2000:]}")
                server.kill()
                return
            if ledger:
                kept, flight, lost = verify(server.port, ledger, pending, fsync)
                total_lost += lost
                total_flight += flight
                # Continue from what the server holds now.
                for sid in list(ledger):
                    status, got = request(server.port, "GET", f"/scenes/{sid}")
                    ledger[sid] = (json.loads(got)["version"], got) if status == 200 else (0, None)
                pending.clear()
                log(f"{fsync} round {r}: after restart {kept} kept, {flight} in flight, {lost} lost; {server.log().count('cut off')} torn tails cut at this start")
            ws = [Writer(server.port, f"w{i}", random.Random(rng.random()), ledger, pending) for i in range(writers)]
            for w in ws:
                w.start()
            time.sleep(rng.uniform(0.2, 1.2))
            server.kill()
            for w in ws:
                w.join(timeout=60)
            total_acks += sum(w.acks for w in ws)
        server = Server(binary, data, fsync)
        if not server.wait_ready():
            fail(f"{fsync}: final start failed: {server.log()[-2000:]}")
            server.kill()
            return
        kept, flight, lost = verify(server.port, ledger, pending, fsync)
        total_lost += lost
        server.stop()
        log(f"{fsync}: {rounds} SIGKILL rounds, {total_acks} acknowledged changes, {total_lost} lost, {total_flight} in-flight changes kept")
        if fsync == "everysec" and total_lost:
            log(f"{fsync}: a process crash lost {total_lost} acknowledged changes (expected 0)")
            fail(f"everysec lost {total_lost} acknowledged changes on a process crash")
    finally:
        shutil.rmtree(data, ignore_errors=True)


def lock_and_damage(binary):
    data = tempfile.mkdtemp(prefix="hitroute-crash-damage-")
    try:
        a = Server(binary, data)
        if not a.wait_ready():
            return fail("lock: first server not ready")
        for k in range(20):
            request(a.port, "PUT", f"/scenes/s{k}", scene_body(k))
        b = Server(binary, data)
        rc = b.proc.wait(timeout=60)
        b.err.close()
        if rc == 0 or "another process holds the directory" not in b.log():
            fail(f"lock: a second server on the same directory exited {rc}: {b.log()[-500:]}")
        else:
            log("lock: a second process on the same --data-dir is refused")
        a.stop()
        seg = sorted(n for n in os.listdir(data) if n.endswith(".hrj") and os.path.getsize(os.path.join(data, n)) > 100)[-1]
        path = os.path.join(data, seg)
        raw = bytearray(open(path, "rb").read())
        raw[len(raw) // 2] ^= 0x20
        open(path, "wb").write(raw)
        c = Server(binary, data)
        rc = c.proc.wait(timeout=60)
        c.err.close()
        m = re.search(r"at offset (\d+)", c.log())
        if rc == 0 or seg not in c.log() or not m:
            fail(f"damage: start with a flipped byte exited {rc}: {c.log()[-500:]}")
        else:
            log(f"damage: a flipped byte at {len(raw) // 2} stops the start: {c.log().strip().splitlines()[-1]}")
        d = Server(binary, data, extra=["--repair"])
        if not d.wait_ready():
            fail(f"repair: did not start: {d.log()[-500:]}")
        else:
            status, body = request(d.port, "GET", "/scenes")
            n = len(json.loads(body)["scenes"])
            aside = [x for x in os.listdir(data) if ".damaged-" in x]
            log(f"repair: started with {n} of 20 scenes (the prefix before the damage); moved aside: {aside}")
            if not aside or n >= 20:
                fail("repair: nothing moved aside")
        d.stop()
    finally:
        shutil.rmtree(data, ignore_errors=True)


def start_refused(binary, data, expect_file):
    """A start without --repair exits non-zero naming `expect_file`. Returns the message."""
    s = Server(binary, data)
    try:
        rc = s.proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        s.kill()
        return fail(f"refused start: still running: {s.log()[-300:]}")
    s.err.close()
    m = re.search(re.escape(expect_file) + r"[^;]*", s.log())
    line = m.group(0) if m else (s.log().strip().splitlines() or [""])[-1]
    if rc == 0 or expect_file not in s.log():
        fail(f"start on a damaged dir exited {rc} without naming {expect_file}: {s.log()[-500:]}")
    return line


def documents(port, ids):
    out = {}
    for sid in ids:
        status, body = request(port, "GET", f"/scenes/{sid}")
        out[sid] = body if status == 200 else None
    return out


def repaired(binary, data, ids, acknowledged, intact, label):
    """Starts with --repair; every id in `intact` must be as acknowledged.
    Then a start without --repair must succeed with the same documents.
    Returns (kept, total) or None."""
    s = Server(binary, data, extra=["--repair"])
    if not s.wait_ready():
        fail(f"{label}: --repair did not start: {s.log()[-800:]}")
        s.kill()
        return None
    got = documents(s.port, ids)
    s.stop()
    kept = [sid for sid in ids if got[sid] == acknowledged[sid]]
    broken = [sid for sid in intact if got[sid] != acknowledged[sid]]
    if broken:
        fail(f"{label}: --repair lost intact scenes {broken}: {s.log()[-800:]}")
    t = Server(binary, data)
    if not t.wait_ready():
        fail(f"{label}: the start after --repair needed --repair again: {t.log()[-800:]}")
        t.kill()
    else:
        if documents(t.port, ids) != got:
            fail(f"{label}: the start after --repair found other documents")
        t.stop()
    return len(kept), len(ids)


def big_scene(k, rects=3000):
    """About 1 MB of JSON that is cheap to compile (hidden layers, long actions)."""
    pad = "x" * 240
    return {"width": 100000, "height": 100, "layers": [
        {"id": f"r{i}", "hidden": True, "action": f"big.{k}.{pad}", "shape": {"type": "rect", "x": i * 10, "y": 0, "width": 8, "height": 8}}
        for i in range(rects)]}


def snapshot_records(raw):
    """(offset, end, scene id or None) of every record of a snapshot."""
    out = []
    at = 0
    while at + 22 <= len(raw):
        length = int.from_bytes(raw[at:at + 4], "little")
        end = at + 12 + length
        id_len = raw[at + 13]
        kind = raw[at + 12]
        out.append((at, end, raw[at + 22:at + 22 + id_len].decode() if kind < 0x10 else None))
        at = end
    return out


def snapshot_damage(binary):
    """30 small scenes and one of about 1 MB, PUT again until the journal
    outgrows them and a snapshot is written; then patches after it. A byte
    flipped at several offsets of the snapshot, each start refused, each
    --repair counted."""
    data = tempfile.mkdtemp(prefix="hitroute-crash-snapshot-")
    started = time.time()
    try:
        s = Server(binary, data, extra=["--compact-factor", "1"])
        if not s.wait_ready():
            return fail(f"snapshot damage: not ready: {s.log()[-500:]}")
        ids = [f"k{i:02d}" for i in range(30)]
        for i, sid in enumerate(ids):
            request(s.port, "PUT", f"/scenes/{sid}", scene_body(i))
        for k in range(40):
            request(s.port, "PUT", "/scenes/big", big_scene(k))
            if "journal: snapshot" in s.log():
                break
            time.sleep(0.06)
        deadline = time.time() + 60
        while "journal: snapshot" not in s.log() and time.time() < deadline:
            time.sleep(0.05)
        if "journal: snapshot" not in s.log():
            s.stop()
            return fail(f"snapshot damage: no snapshot was written: {s.log()[-500:]}")
        time.sleep(0.3)
        later = ["k03", "k17", "k29"]
        for sid in later:
            request(s.port, "PATCH", f"/scenes/{sid}/layers/bg", {"action": "after.snapshot"})
        ids.append("big")
        acknowledged = documents(s.port, ids)
        s.stop()
        snap = sorted(n for n in os.listdir(data) if n.endswith(".hrs"))[-1]
        raw = bytes(open(os.path.join(data, snap), "rb").read())
        recs = snapshot_records(raw)
        scene_recs = [r for r in recs if r[2]]
        k17 = [r for r in scene_recs if r[2] == "k17"][0]
        k05 = [r for r in scene_recs if r[2] == "k05"][0]
        last = scene_recs[-1]
        cases = [("header", 5, None), ("k17 length", k17[0] + 1, "k17"), ("k05 body", (k05[0] + k05[1]) // 2, "k05"),
                 ("last record", last[1] - 2, last[2]), ("index", recs[-2][0] + 20, None), ("footer", len(raw) - 3, None)]
        total_kept = total = 0
        for label, offset, victim in cases:
            d = tempfile.mkdtemp(prefix="hitroute-crash-snapcase-")
            try:
                shutil.rmtree(d)
                shutil.copytree(data, d)
                damaged = bytearray(raw)
                damaged[offset] ^= 0x20
                open(os.path.join(d, snap), "wb").write(damaged)
                start_refused(binary, d, snap)
                intact = [sid for sid in ids if sid != victim]
                r = repaired(binary, d, ids, acknowledged, intact, f"snapshot {label}")
                if r:
                    total_kept += r[0]
                    total += r[1]
                    aside = sorted(n for n in os.listdir(d) if n.startswith("set-aside-"))
                    log(f"snapshot damage ({label}, byte {offset} of {len(raw)}): start refused; --repair kept {r[0]} of {r[1]} acknowledged scenes"
                        + (f"; lost {victim}" if r[0] < r[1] else "") + (f"; set aside {aside}" if aside else ""))
                    if victim in later and not aside:
                        fail(f"snapshot {label}: {victim}'s later journal records were not set aside")
            finally:
                shutil.rmtree(d, ignore_errors=True)
        log(f"snapshot damage: {len(cases)} flipped bytes in a snapshot of {len(scene_recs)} scenes: kept {total_kept} of {total} acknowledged in {time.time() - started:.1f} s")
    finally:
        shutil.rmtree(data, ignore_errors=True)


def segment_damage_and_loss(binary):
    """Three runs, three segments (seg 1 makes a*, seg 2 makes b* and
    patches a0, seg 3 makes c* and patches b0). A flipped byte in the newest
    segment, and each segment deleted in turn, with and without --repair."""
    data = tempfile.mkdtemp(prefix="hitroute-crash-segments-")
    started = time.time()
    try:
        runs = [
            [("PUT", f"/scenes/a{i}", scene_body(i)) for i in range(8)],
            [("PUT", f"/scenes/b{i}", scene_body(i)) for i in range(8)] + [("PATCH", "/scenes/a0/layers/bg", {"action": "seg2"})],
            [("PUT", f"/scenes/c{i}", scene_body(i)) for i in range(8)] + [("PATCH", "/scenes/b0/layers/bg", {"action": "seg3"})],
        ]
        ids = [f"{p}{i}" for p in "abc" for i in range(8)]
        touched = {}
        for run in runs:
            s = Server(binary, data)
            if not s.wait_ready():
                return fail(f"segments: not ready: {s.log()[-500:]}")
            seg = None
            for method, path, body in run:
                status, _ = request(s.port, method, path, body)
                if status >= 300:
                    fail(f"segments: {method} {path} answered {status}")
            seg = sorted(n for n in os.listdir(data) if n.endswith(".hrj") and n.startswith("journal-"))[-1]
            touched[seg] = {p.split("/")[2] for _, p, _ in run}
            acknowledged = documents(s.port, ids)
            s.kill()  # SIGKILL: every change was acknowledged with --fsync always
        segs = sorted(touched)
        # A flipped byte in the newest segment, in its first records.
        newest = os.path.join(data, segs[-1])
        raw = bytes(open(newest, "rb").read())
        for offset in (60, len(raw) // 3, len(raw) // 2):
            d = tempfile.mkdtemp(prefix="hitroute-crash-segcase-")
            try:
                shutil.rmtree(d)
                shutil.copytree(data, d)
                damaged = bytearray(raw)
                damaged[offset] ^= 0x20
                open(os.path.join(d, segs[-1]), "wb").write(damaged)
                start_refused(binary, d, segs[-1])
                intact = [sid for sid in ids if sid not in touched[segs[-1]]]
                r = repaired(binary, d, ids, acknowledged, intact, f"segment byte {offset}")
                if r:
                    log(f"segment damage (byte {offset} of {len(raw)} in {segs[-1]}): start refused; --repair kept {r[0]} of {r[1]} acknowledged scenes (the valid prefix)")
            finally:
                shutil.rmtree(d, ignore_errors=True)
        for which, seg in zip(["first", "middle", "newest"], segs):
            d = tempfile.mkdtemp(prefix="hitroute-crash-segloss-")
            try:
                shutil.rmtree(d)
                shutil.copytree(data, d)
                os.remove(os.path.join(d, seg))
                line = start_refused(binary, d, seg)
                intact = [sid for sid in ids if sid not in touched[seg]]
                r = repaired(binary, d, ids, acknowledged, intact, f"deleted {which} segment")
                if r:
                    log(f"deleted {which} segment {seg}: start refused ({line}); --repair kept {r[0]} of {r[1]} acknowledged scenes ({len(intact)} had no record in it)")
            finally:
                shutil.rmtree(d, ignore_errors=True)
        log(f"segments: damage and loss cases in {time.time() - started:.1f} s")
    finally:
        shutil.rmtree(data, ignore_errors=True)


def full_disk(binary):
    data = tempfile.mkdtemp(prefix="hitroute-crash-full-")
    try:
        s = Server(binary, data, fsize=64 * 1024)
        if not s.wait_ready():
            return fail(f"full disk: not ready: {s.log()[-500:]}")
        acked = {}
        statuses = {}
        ready_503 = hits_ok = 0
        for k in range(1500):
            sid = f"f{k % 10}"
            status, body = request(s.port, "PUT", f"/scenes/{sid}", scene_body(k))
            statuses[status] = statuses.get(status, 0) + 1
            if status in (200, 201):
                acked[sid] = json.loads(body)["version"]
            elif status in (503, 507):
                if request(s.port, "GET", "/readyz")[0] == 503:
                    ready_503 += 1
                if sid in acked and request(s.port, "POST", f"/scenes/{sid}/hit", {"x": 1, "y": 1})[0] == 200:
                    hits_ok += 1
            else:
                fail(f"full disk: PUT answered {status} {body[:200]!r}")
        s.kill()
        log(f"full disk (RLIMIT_FSIZE 64 KiB): PUT statuses {statuses}; /readyz 503 after {ready_503} refusals; {hits_ok} hits answered meanwhile")
        if 507 not in statuses:
            fail("full disk: no 507")
        t = Server(binary, data)
        if not t.wait_ready():
            return fail(f"full disk: restart failed: {t.log()[-500:]}")
        for sid, v in acked.items():
            status, body = request(t.port, "GET", f"/scenes/{sid}")
            got = json.loads(body)["version"] if status == 200 else None
            if got is None or got < v:
                fail(f"full disk: {sid} acknowledged v{v}, found {got}")
        log(f"full disk: after restart without the limit, all {len(acked)} scenes at their acknowledged versions or later")
        t.stop()
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=".build/release/hitroute")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"no binary at {args.binary}")
    crash_rounds(args.binary, args.rounds, "always", args.writers, args.seed)
    crash_rounds(args.binary, args.rounds, "everysec", args.writers, args.seed + 1)
    lock_and_damage(args.binary)
    snapshot_damage(args.binary)
    segment_damage_and_loss(args.binary)
    full_disk(args.binary)
    if FAILURES:
        print(f"crash: {len(FAILURES)} failures", flush=True)
        sys.exit(1)
    print("crash: all passed", flush=True)


if __name__ == "__main__":
    main()

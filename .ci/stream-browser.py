#!/usr/bin/python3
"""A page on another origin uses pointer streams through /hitroute.js, in a
real headless Chromium (Debian's chromium, chromium-driver and
python3-selenium; nothing downloads a browser).

    /usr/bin/python3 .ci/stream-browser.py --binary .build/release/hitroute --work DIR [--port P]

Starts its own services (ports P, P+1, P+2 when --port is given, else free
ones) and a static page on another port, http://localhost:<port>, while the
services are http://127.0.0.1:<port>: another origin. The page imports
/hitroute.js from the service and drives HitRouteStream:

1. Keyed service (`--api-keys-file`, a `read` and a `write` key): the page
   opens GET /scenes/ring-demo/stream with the write key as the subprotocol
   `bearer.<base64url>` and hovers the pointer `mouse` across the ring scene
   (examples/ring-over-button.json): the hole, the band twice, a corner,
   off the scene, then `leave`. Each answer's `boundary` must be exactly
   the hand-computed one (SPEC §11.1), and each answer must be POST …/hit's
   answer to the same body, plus `seq`. Then across a nested scene with
   pass-through layers, where `leave` and `enter` hold several layers in
   the orders of §11.1. Resting on the band while this script PATCHes the
   ring hidden (write key), the page must receive the scene push and then
   the mouse's boundary push. A `down` with the read key is an error of
   status 403 and the stream stays open.
2. Client-side coalescing (window 1): ten hovers, a down, ten hovers sent
   at once leave the client as four messages (the service counts four),
   every promise settles with the answer of the message that replaced it,
   and the down is neither dropped nor moved.
3. A wrong key, and no key, are refused: the socket never opens (the raw
   handshake is a 401), and no URL the page opened holds a key.
4. An open service (no key file): the foreign page's stream opens and
   plain hits are answered, but pointer phases (`hover` included) get an
   error of status 403 (`/problems/foreign-origin`) and the stream stays
   open; with the page's origin in `--cors-origin` its hovers are answered.

Exit status 0 when all pass; a JSON report goes to --work.
"""

import argparse
import base64
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILURES = []


def boundary(out, leave, over, enter, removed=()):
    return {"out": out, "leave": list(leave), "over": over, "enter": list(enter), "removed": list(removed)}


# The ring scene: button below, an even-odd ring (outer radius 120, hole
# radius 48, centre (120, 120)) above it, a frame on top that takes no
# pointer; the canvas is 240 × 240. Each pointer's hovered set is its
# target's path (the scene is flat).
RING_HOVERS = [
    ((120, 120), "hover", boundary(None, [], "button", ["button"])),          # the hole: the button
    ((210, 120), "hover", boundary("button", ["button"], "ring", ["ring"])),  # the band
    ((215, 120), "hover", None),                                               # the band again: nothing changed
    ((10, 10), "hover", boundary("ring", ["ring"], "button", ["button"])),    # a corner, outside the ring's disc
    ((300, 300), "hover", boundary("button", ["button"], None, [])),          # off the scene
    ((300, 300), "leave", None),                                               # over nothing already
]

# A nested scene: `base` at the back, a container `group` holding two
# pass-through layers (`glass` below `glare`), a pass-through `overlay` on
# top, all four over (0..100)²; `base` covers (0..200)². At (50, 50) the
# target is `base` and glare, glass and overlay receive the point: H is
# {base} ∪ {group, glare} ∪ {group, glass} ∪ {overlay}.
NEST = {"id": "nest", "width": 240, "height": 240, "layers": [
    {"id": "base", "action": "base.press", "shape": {"type": "rect", "x": 0, "y": 0, "width": 200, "height": 200}},
    {"id": "group", "children": [
        {"id": "glass", "passThrough": True, "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100}},
        {"id": "glare", "passThrough": True, "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100}}]},
    {"id": "overlay", "passThrough": True, "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100}}]}
ALL_FIVE_ENTER = ["base", "group", "overlay", "glass", "glare"]   # depth 0 back to front, then depth 1 back to front
ALL_FIVE_LEAVE = ["glare", "glass", "overlay", "group", "base"]   # depth 1 front to back, then depth 0 front to back
NEST_HOVERS = [
    ((50, 50), "hover", boundary(None, [], "base", ALL_FIVE_ENTER)),
    ((150, 150), "hover", boundary(None, ["glare", "glass", "overlay", "group"], None, [])),  # base only; same target
    ((60, 40), "hover", boundary(None, [], None, ["group", "overlay", "glass", "glare"])),
    ((220, 220), "hover", boundary("base", ALL_FIVE_LEAVE, None, [])),                       # inside the canvas, on nothing
]

PUSH = {"type": "boundary", "pointer": "mouse", "version": 2, "layer": "button",
        "boundary": boundary("ring", ["ring"], "button", ["button"])}

PAGE = b"""<!doctype html>
<meta charset="utf-8">
<title>another origin</title>
<script type="module">
const base = new URLSearchParams(location.search).get("base");
try {
  window.hitroute = await import(base + "/hitroute.js");
  window.__ready = true;
} catch (e) { window.__error = String(e); }
</script>
"""

# Opens a stream (arguments: base, scene, key, window) and resolves with
# "open" or the close that came first; the stream is window.__stream, its
# pushes and closes are logged in window.__log.
OPEN_JS = """
const [base, scene, key, win, done] = arguments;
const { HitRoute } = window.hitroute;
if (window.__stream) window.__stream.close();
const log = window.__log = [];
const s = window.__stream = new HitRoute({ base, key }).stream(scene, { reconnect: false, window: win });
for (const type of ["scene", "boundary"]) s.on(type, (m) => log.push(["push", m]));
s.on("close", (e) => { log.push(["close", e]); done({ closed: e }); });
s.on("open", () => done({ open: true }));
"""

# Sends [x, y, phase] one after another (phase null: a plain hit) and
# resolves with each answer, or {error: status, problem} for an error.
WALK_JS = """
const [steps, done] = arguments;
const s = window.__stream, out = [];
(async () => {
  for (const [x, y, phase] of steps) {
    const body = phase ? { x, y, pointer: "mouse", phase, trace: false } : { x, y, trace: false };
    try { out.push(await s.send(body)); } catch (e) { out.push({ error: e.status, problem: e.problem }); }
  }
  done(out);
})();
"""

# Ten hovers, a down, ten hovers, all sent at once on a stream of window 1.
COALESCE_JS = """
const done = arguments[arguments.length - 1];
const s = window.__stream, sends = [];
const hover = (i) => s.send({ x: 200 + i, y: 120, pointer: "mouse", phase: "hover", trace: false });
for (let i = 1; i <= 10; i++) sends.push(hover(i));
sends.push(s.send({ x: 211, y: 120, pointer: "mouse", phase: "down", trace: false }));
for (let i = 11; i <= 20; i++) sends.push(hover(i));
Promise.allSettled(sends).then((r) => done({
  settled: r.map((p) => p.status === "fulfilled" ? { x: p.value.x, seq: p.value.seq } : { error: p.reason.status }),
  coalesced: s.coalesced }));
"""


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(base, method, path, body=None, key=None):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if key:
        req.add_header("Authorization", "Bearer " + key)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def raw_handshake(port, scene, protocols, origin):
    """The status line of a hand-written opening handshake."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall((f"GET /scenes/{scene}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                   f"Sec-WebSocket-Protocol: {protocols}\r\nOrigin: {origin}\r\n\r\n").encode())
        return s.recv(4096).split(b"\r\n", 1)[0].decode()


def b64url(key):
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def metric(base, name, key=None):
    _, text = request(base, "GET", "/metrics", key=key)
    return sum(float(l.split()[-1]) for l in text.decode().splitlines() if l.startswith(name + " ") or l.startswith(name + "{"))


class Services:
    """hitroute processes started by this script, stopped at the end."""

    def __init__(self, binary, work):
        self.binary, self.work, self.procs = binary, work, []

    def start(self, port, *args):
        log = open(os.path.join(self.work, "stream-browser-server-%d.log" % port), "wb")
        p = subprocess.Popen([self.binary, "--port", str(port), "--quiet", *args], stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(p)
        base = "http://127.0.0.1:%d" % port
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if request(base, "GET", "/readyz")[0] == 200:
                    return base
            except OSError:
                time.sleep(0.1)
        raise SystemExit("hitroute on %d did not get ready" % port)

    def stop(self):
        for p in self.procs:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def walk(driver, steps):
    return driver.execute_async_script(WALK_JS, [[x, y, phase] for (x, y), phase, *_ in steps])


def open_stream(driver, base, scene, key="", window=8):
    return driver.execute_async_script(OPEN_JS, base, scene, key, window)


def load(driver, page, base):
    driver.get("%s/?base=%s" % (page, base))
    try:
        WebDriverWait(driver, 30, poll_frequency=0.05).until(
            lambda d: d.execute_script("return window.__ready === true || !!window.__error"))
    except Exception:
        pass
    return check(driver.execute_script("return window.__ready === true"),
                 "the page on %s imported %s/hitroute.js (%s)" % (page, base, driver.execute_script("return window.__error || null")))


def compare_with_http(base, key, scene, steps, answers, what):
    """Each answer is POST …/hit's answer to the same body (on a pointer of
    its own, which has walked the same steps), plus seq."""
    twin = "http-twin-" + what
    for ((x, y), phase, expected), answer in zip(steps, answers):
        body = {"x": x, "y": y, "trace": False, "pointer": twin, "phase": phase}
        got = json.loads(request(base, "POST", "/scenes/%s/hit" % scene, body, key)[1])
        mine = {k: v for k, v in answer.items() if k != "seq"}
        check(mine == got and "seq" in answer,
              "%s %s at (%d, %d): the answer is POST …/hit's to the same body, plus seq" % (what, phase, x, y))


def keyed(driver, services, port, page, work, report):
    read_key, write_key = "stream-read-" + os.urandom(12).hex(), "stream-write-" + os.urandom(12).hex()
    keys = os.path.join(work, "stream-keys")
    with open(keys, "w") as f:
        f.write("read %s\nwrite %s\n" % (read_key, write_key))
    base = services.start(port, "--api-keys-file", keys)
    with open(os.path.join(ROOT, "examples", "ring-over-button.json"), "rb") as f:
        check(request(base, "PUT", "/scenes/ring-demo", f.read(), write_key)[0] in (200, 201), "the ring scene is stored")
    check(request(base, "PUT", "/scenes/nest", NEST, write_key)[0] in (200, 201), "the nested scene is stored")
    if not load(driver, page, base):
        return

    # 1. Hovers across the ring, then the push.
    opened = open_stream(driver, base, "ring-demo", write_key)
    check(opened == {"open": True}, "the page opened the stream with the write key as bearer.<base64url>: %s" % opened)
    answers = walk(driver, RING_HOVERS)
    report["ring"] = answers
    for ((x, y), phase, expected), answer in zip(RING_HOVERS, answers + [None] * len(RING_HOVERS)):
        got = answer.get("boundary") if answer and "error" not in answer else ("an error %s" % answer if answer else "no answer")
        check(got == expected, "ring %s at (%d, %d): boundary %s (expected %s)" % (phase, x, y, got, expected))
    compare_with_http(base, write_key, "ring-demo", RING_HOVERS, answers, "ring")
    rest = walk(driver, [((210, 120), "hover")])[0]
    check(rest.get("boundary") == boundary(None, [], "ring", ["ring"]), "back on the band after the leave: %s" % rest.get("boundary"))
    check(request(base, "PATCH", "/scenes/ring-demo/layers/ring", {"hidden": True}, write_key)[0] == 200,
          "another client hides the ring")
    pushed = lambda d: [e[1] for e in d.execute_script("return window.__log") if e[0] == "push"]
    try:
        WebDriverWait(driver, 30, poll_frequency=0.05).until(lambda d: len(pushed(d)) >= 2)
    except Exception:
        pass
    pushes = pushed(driver)
    report["pushes"] = pushes
    check(pushes[:1] == [{"type": "scene", "version": 2}], "the scene push comes first: %s" % pushes[:1])
    check(pushes[1:2] == [PUSH], "then the mouse's boundary push: %s" % pushes[1:2])
    # A read key may hover; the other phases need interact.
    check(open_stream(driver, base, "ring-demo", read_key) == {"open": True}, "a stream opens with the read key")
    after = walk(driver, [((10, 10), "hover"), ((210, 120), "down"), ((10, 10), "leave"), ((12, 10), "hover")])
    check(after[0].get("boundary") == boundary(None, [], "button", ["button"]), "the read key's hover is answered: %s" % after[0])
    check([a.get("error") for a in after[1:3]] == [403, 403] and after[3].get("layer") == "button" and "boundary" not in after[3],
          "the read key's down and leave are errors of status 403, and the stream stays open: %s" % after)

    # The nested scene: several layers left and entered, in SPEC §11.1's orders.
    check(open_stream(driver, base, "nest", read_key) == {"open": True}, "a stream on the nested scene opens")
    answers = walk(driver, NEST_HOVERS)
    report["nest"] = answers
    for ((x, y), phase, expected), answer in zip(NEST_HOVERS, answers + [None] * len(NEST_HOVERS)):
        got = answer.get("boundary") if answer and "error" not in answer else ("an error %s" % answer if answer else "no answer")
        check(got == expected, "nest %s at (%d, %d): boundary %s (expected %s)" % (phase, x, y, got, expected))
    compare_with_http(base, write_key, "nest", NEST_HOVERS, answers, "nest")

    # 2. Client-side coalescing.
    check(open_stream(driver, base, "nest", read_key, 1) == {"open": True}, "a stream of window 1 opens")
    received = metric(base, "hitroute_stream_messages_received_total", read_key)
    got = driver.execute_async_script(COALESCE_JS)
    report["coalescing"] = got
    xs = [s.get("x", s.get("error")) for s in got["settled"]]
    check(xs == [201] + [210] * 9 + [403] + [220] * 10,
          "hovers 2–10 settle with hover 10's answer, the down is answered (403) in its place, 11–20 with 20's: %s" % xs)
    check(got["coalesced"] == 17, "the client counts 17 replaced hovers: %s" % got["coalesced"])
    sent = metric(base, "hitroute_stream_messages_received_total", read_key) - received
    check(sent == 4, "the service received 4 messages (hover 1, hover 10, the down, hover 20): %g" % sent)

    # 3. Wrong keys.
    for name, key in (("a wrong key", "stream-wrong-" + os.urandom(8).hex()), ("no key", "")):
        got = open_stream(driver, base, "ring-demo", key)
        check("closed" in got and not got["closed"]["opened"], "%s: the socket never opens: %s" % (name, got))
    origin = page
    check(raw_handshake(port, "ring-demo", "hitroute.v1, bearer." + b64url("stream-wrong-key"), origin).startswith("HTTP/1.1 401"),
          "a wrong key's handshake is a 401")
    check(raw_handshake(port, "ring-demo", "hitroute.v1", origin).startswith("HTTP/1.1 401"), "no key's handshake is a 401")
    check(raw_handshake(port, "ring-demo", "hitroute.v1, bearer." + b64url(read_key), origin).startswith("HTTP/1.1 101"),
          "the read key's handshake is a 101")
    urls = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            urls.add(message["params"].get("url") or message["params"]["request"]["url"])
    check(not any(k in u for u in urls for k in (read_key, write_key, b64url(read_key), b64url(write_key))), "no URL the page opened holds a key")
    check(any(u.startswith("ws://127.0.0.1:%d/scenes/ring-demo/stream" % port) for u in urls),
          "the page opened ws://127.0.0.1:%d/scenes/ring-demo/stream" % port)


def open_service(driver, services, port, page, cors, report):
    args = ["--cors-origin", page] if cors else []
    base = services.start(port, *args)
    with open(os.path.join(ROOT, "examples", "ring-over-button.json"), "rb") as f:
        check(request(base, "PUT", "/scenes/ring-demo", f.read())[0] in (200, 201), "open service: the ring scene is stored")
    if not load(driver, page, base):
        return
    label = "open service, %s in --cors-origin" % page if cors else "open service (--cors-origin *)"
    check(open_stream(driver, base, "ring-demo") == {"open": True}, "%s: the foreign page's stream opens" % label)
    got = walk(driver, [((210, 120), None), ((210, 120), "hover"), ((120, 120), None)])
    report["open-cors" if cors else "open"] = got
    check(got[0].get("layer") == "ring" and got[2].get("layer") == "button", "%s: plain hits are answered" % label)
    if cors:
        check(got[1].get("boundary") == boundary(None, [], "ring", ["ring"]), "%s: a hover is answered: %s" % (label, got[1]))
    else:
        check(got[1].get("error") == 403 and got[1]["problem"].get("problem") == "/problems/foreign-origin",
              "%s: a hover from the foreign page is a 403 foreign-origin error: %s" % (label, got[1]))
        check("error" not in got[2], "%s: the stream stays open after it" % label)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--port", type=int, help="the first of four ports (three services and the page); default free ones")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    ports = [a.port + k for k in range(4)] if a.port else [free_port() for _ in range(4)]

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args):
            pass

    pages = http.server.ThreadingHTTPServer(("127.0.0.1", ports[3]), Page)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    page = "http://localhost:%d" % ports[3]   # localhost: another origin than the services' 127.0.0.1
    services = Services(a.binary, a.work)
    driver = None
    report = {}
    try:
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-default-apps", "--disable-sync"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.set_script_timeout(60)
        keyed(driver, services, ports[0], page, a.work, report)
        open_service(driver, services, ports[1], page, False, report)
        open_service(driver, services, ports[2], page, True, report)
    finally:
        if driver:
            driver.quit()
        pages.shutdown()
        services.stop()
    report["failures"] = FAILURES
    with open(os.path.join(a.work, "stream-browser-report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print("stream browser test: %d failure(s)" % len(FAILURES))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()

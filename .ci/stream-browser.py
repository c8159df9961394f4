#!/usr/bin/python3
"""A page on another origin hovers across the ring scene over a pointer
stream, in a real headless Chromium (Debian's chromium, chromium-driver and
python3-selenium; nothing downloads a browser).

    /usr/bin/python3 .ci/stream-browser.py --binary .build/release/hitroute --work DIR

Starts its own keyed hitroute (a `read` key and a `write` key) and, on
another port, a static page (origin http://localhost:<port>, the service
being http://127.0.0.1:<port>). The page imports /hitroute.js from the
service, opens GET /scenes/ring-demo/stream with the read key as the
subprotocol `bearer.<base64url>` (never in the URL), and:

1. hovers the pointer `mouse` across the ring scene (examples/ring-over-button.json):
   the hole, the band twice, a corner, off the scene, then `leave`; the
   answers' `boundary` must be exactly the hand-computed sequence, and each
   answer must be byte for byte the JSON that POST .../hit gives the same
   body (plus `seq`);
2. rests on the band while this script PATCHes the ring hidden over HTTP
   (write key): the page must receive `{"type": "scene", "version": 2}` and
   then `{"type": "boundary", "pointer": "mouse", "version": 2, "layer":
   "button", "boundary": {"out": "ring", "leave": ["ring"], "over":
   "button", "enter": ["button"], "removed": []}}`;
3. a `down` with the read key is answered with an error of status 403 and
   the stream stays open (the next hover is answered).

Exit status 0 when all pass; a JSON report goes to --work.
"""

import argparse
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

# The hand-computed sequence on the ring scene: button below, an even-odd
# ring (outer radius 120, hole 48) above it, a frame on top that takes no
# pointer.
HOVERS = [
    ((120, 120), "hover", {"out": None, "leave": [], "over": "button", "enter": ["button"], "removed": []}),
    ((210, 120), "hover", {"out": "button", "leave": ["button"], "over": "ring", "enter": ["ring"], "removed": []}),
    ((215, 120), "hover", None),
    ((10, 10), "hover", {"out": "ring", "leave": ["ring"], "over": "button", "enter": ["button"], "removed": []}),
    ((300, 300), "hover", {"out": "button", "leave": ["button"], "over": None, "enter": [], "removed": []}),
    ((300, 300), "leave", None),
]
PUSH = {"type": "boundary", "pointer": "mouse", "version": 2, "layer": "button",
        "boundary": {"out": "ring", "leave": ["ring"], "over": "button", "enter": ["button"], "removed": []}}

PAGE = """<!doctype html>
<meta charset="utf-8">
<title>another origin</title>
<script type="module">
const base = %(base)s, key = %(key)s;
const { HitRoute } = await import(base + "/hitroute.js");
const log = window.__log = [];
const stream = new HitRoute({ base, key }).stream("ring-demo", { reconnect: false });
for (const type of ["scene", "boundary"]) stream.addEventListener(type, (e) => log.push(["push", e.detail]));
stream.addEventListener("close", (e) => log.push(["close", e.detail]));
await new Promise((resolve, reject) => {
  stream.addEventListener("open", resolve);
  stream.addEventListener("close", () => reject(new Error("closed before it opened")));
}).catch((e) => { window.__error = String(e); throw e; });
const mouse = stream.pointer("mouse");
window.__answers = [];
for (const [x, y, phase] of %(hovers)s) window.__answers.push(await mouse[phase](x, y));
window.__rest = await mouse.hover(210, 120);   // on the band, for the patch
window.__ready = true;
// After the push: a down needs the interact scope; the stream stays open.
window.__afterPush = async () => {
  try { await mouse.down(210, 120); return { error: null }; }
  catch (e) { return { error: e.status, next: (await mouse.hover(10, 10)).layer }; }
};
</script>
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    read_key, write_key = "stream-read-" + os.urandom(12).hex(), "stream-write-" + os.urandom(12).hex()
    keys = os.path.join(a.work, "stream-keys")
    with open(keys, "w") as f:
        f.write("read %s\nwrite %s\n" % (read_key, write_key))
    port, page_port = free_port(), free_port()
    base = "http://127.0.0.1:%d" % port
    server = subprocess.Popen([a.binary, "--port", str(port), "--quiet", "--api-keys-file", keys],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page = (PAGE % {"base": json.dumps(base), "key": json.dumps(read_key),
                    "hovers": json.dumps([[x, y, phase] for (x, y), phase, _ in HOVERS])}).encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    pages = http.server.ThreadingHTTPServer(("127.0.0.1", page_port), Page)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    driver = None
    report = {}
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if request(base, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        with open(os.path.join(ROOT, "examples", "ring-over-button.json"), "rb") as f:
            check(request(base, "PUT", "/scenes/ring-demo", f.read(), write_key)[0] in (200, 201), "the ring scene is stored")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-default-apps", "--disable-sync"]:
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        # localhost: another origin than the service's 127.0.0.1.
        driver.get("http://localhost:%d/" % page_port)
        ready = False
        try:
            WebDriverWait(driver, 30, poll_frequency=0.05).until(
                lambda d: d.execute_script("return window.__ready === true || !!window.__error"))
            ready = driver.execute_script("return window.__ready === true")
        except Exception:
            pass
        check(ready, "the page on http://localhost:%d opened the stream and hovered (error: %s)"
              % (page_port, driver.execute_script("return window.__error || null")))
        answers = driver.execute_script("return window.__answers || []")
        for ((x, y), phase, expected), answer in zip(HOVERS, answers + [None] * len(HOVERS)):
            got = answer.get("boundary") if answer else "no answer"
            check(got == expected, "%s at (%d, %d): boundary %s (expected %s)" % (phase, x, y, got, expected))
            if answer:
                body = {"x": x, "y": y, "trace": False, "pointer": "http-twin-" + phase, "phase": phase}
                twin = json.loads(request(base, "POST", "/scenes/ring-demo/hit", body, write_key)[1])
                same = {k: v for k, v in answer.items() if k not in ("seq", "boundary")} == \
                    {k: v for k, v in twin.items() if k != "boundary"}
                check(same and "seq" in answer, "%s at (%d, %d): the answer is POST …/hit's, plus seq" % (phase, x, y))
        # A change by another client while the mouse rests on the band.
        check(request(base, "PATCH", "/scenes/ring-demo/layers/ring", {"hidden": True}, write_key)[0] == 200,
              "another client hides the ring")
        pushed = lambda d: [e[1] for e in d.execute_script("return window.__log") if e[0] == "push"]
        try:
            WebDriverWait(driver, 30, poll_frequency=0.05).until(lambda d: len(pushed(d)) >= 2)
        except Exception:
            pass
        pushes = pushed(driver)
        check(pushes[:1] == [{"type": "scene", "version": 2}], "the scene push comes first: %s" % pushes[:1])
        check(pushes[1:2] == [PUSH], "then the mouse's boundary: %s" % pushes[1:2])
        after = driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; window.__afterPush().then(done, (e) => done({ thrown: String(e) }));"
        ) if ready else {}
        check(after.get("error") == 403 and after.get("next") == "button",
              "a down with the read key is a 403 error and the stream stays open: %s" % after)
        urls = set()
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") in ("Network.requestWillBeSent", "Network.webSocketCreated"):
                urls.add(message["params"].get("url") or message["params"]["request"]["url"])
        check(not any(read_key in u for u in urls), "the key is in no URL the page opened")
        check(any(u.startswith("ws://127.0.0.1:%d/scenes/ring-demo/stream" % port) for u in urls),
              "the page opened ws://127.0.0.1:%d/scenes/ring-demo/stream" % port)
        report = {"answers": answers, "log": driver.execute_script("return window.__log")}
    finally:
        if driver:
            driver.quit()
        pages.shutdown()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    report["failures"] = FAILURES
    with open(os.path.join(a.work, "stream-browser-report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print("stream browser test: %d failure(s)" % len(FAILURES))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()

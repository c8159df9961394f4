#!/usr/bin/python3
"""Browser test of SPEC §7 with a real headless Chromium (Debian's chromium
and chromium-driver, python3-selenium; nothing downloads a browser).

    /usr/bin/python3 .ci/browser.py --base http://127.0.0.1:18080 --work DIR \
        [--scenes 24] [--points 400] [--seed 15] [--only agreement] [--binary .build/release/hitroute]

Against a running hitroute:

1. Agreement: seeded random scenes that SVG can express (no hitSlop, no
   masks, clipping only by filled regions; every shape type, fill rules,
   strokes, hitShapes, transforms (some singular), zIndex, pointerEvents,
   hidden, opacity, clipChildren, nesting) are uploaded; each render.svg is
   opened as a document and `document.elementFromPoint` (through the nearest
   `data-layer`) is compared with the service's target (POST /hits) at
   random points. A point counts when it is farther than a pixel from any
   boundary: the eight points 1.5 px around it get the same answer as it
   does, from the browser and from the service. Must agree at >= 99.9 %.
   Every render is also parsed with Python's XML parser (well-formed).
2. The playground: the ring example loads in one click; clicks at the three
   SPEC points show button / ring / button; hovering the ring's band, its
   hole and a corner outlines ring / button / button; the keyboard form routes too;
   a drag of the draggable square in pointer mode changes its stored
   translation; hovers and the drag go over the scene's pointer stream (no
   hover or move request over HTTP), and a patch by another client moves
   the hover outline by the stream's push; the deep link /?scene=ring-demo&x=210&y=120 opens with that
   query answered; a scene whose action is `"><script>alert(1)</script>`
   and whose colour is `red" onload="alert(1)` runs nothing (no dialog);
   a typo shows its JSON Pointer; a phone-sized window has no sideways
   scroll; no console error; no request to another origin. A button per
   file in examples/. While a drag is held the picture follows it (redrawn
   per answer); after the release the picture's mark and the result name
   the same layer; the scene list and title follow the version; numbers
   are shown rounded; no word of the trace table breaks across lines.
3. With --binary: a keyed service of its own (on --keyed-port, else a free
   port): with the key typed in, the picture is drawn (render.svg fetched
   with the key), a click routes, and the curl line shown for it works as
   copied with $HITROUTE_KEY set. Its one stream (--max-streams 1) is held
   by this script: the page hovers over HTTP instead, and once the stream
   is let go the page's stream client reconnects and hovers go over it.

Screenshots and a JSON report go to --work. Exit status 0 when all pass.
"""

import argparse
import glob
import json
import math
import os
import random
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

FAILURES = []
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)
    return ok


def http(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            return r.status, raw
    except urllib.error.HTTPError as e:
        return e.code, e.read()


# --------------------------------------------------------------------------
# Random scenes that SVG can express

def rnd_point(rng, lo=-20, hi=420):
    return [round(rng.uniform(lo, hi), 2), round(rng.uniform(lo, hi), 2)]


def rnd_geometry(rng, depth=0):
    kind = rng.choice(["rect", "rect", "ellipse", "circle", "polygon", "polyline", "path", "path", "compound"])
    cx, cy = rng.uniform(0, 400), rng.uniform(0, 400)
    size = rng.uniform(40, 230)
    if kind == "rect":
        g = {"type": "rect", "x": round(cx - size / 2, 2), "y": round(cy - size / 3, 2),
             "width": round(size, 2), "height": round(size * rng.uniform(0.3, 1.2), 2)}
        if rng.random() < 0.4:
            g["cornerRadius"] = round(rng.uniform(0, size / 2), 2)
        return g
    if kind == "ellipse":
        return {"type": "ellipse", "cx": round(cx, 2), "cy": round(cy, 2), "rx": round(size / 2, 2),
                "ry": round(size * rng.uniform(0.2, 0.7), 2)}
    if kind == "circle":
        return {"type": "circle", "cx": round(cx, 2), "cy": round(cy, 2), "r": round(size / 2, 2)}
    if kind in ("polygon", "polyline"):
        n = rng.randint(3, 9)
        pts = []
        for k in range(n):
            a = 2 * math.pi * k / n + rng.uniform(-0.3, 0.3)
            r = size / 2 * rng.uniform(0.3, 1)
            pts.append([round(cx + r * math.cos(a), 2), round(cy + r * math.sin(a), 2)])
        if rng.random() < 0.3:
            rng.shuffle(pts)  # self-intersecting: fill rules matter
        return {"type": kind, "points": pts}
    if kind == "path":
        parts = []
        for _ in range(rng.randint(1, 3)):
            x0, y0 = cx + rng.uniform(-size, size) / 2, cy + rng.uniform(-size, size) / 2
            parts.append("M%.2f %.2f" % (x0, y0))
            for _ in range(rng.randint(2, 5)):
                op = rng.choice("LQCAlqcaHVs")
                p = lambda: "%.2f %.2f" % (cx + rng.uniform(-size, size) / 2, cy + rng.uniform(-size, size) / 2)
                d = lambda: "%.2f %.2f" % (rng.uniform(-size, size) / 3, rng.uniform(-size, size) / 3)
                if op == "L": parts.append("L" + p())
                elif op == "l": parts.append("l" + d())
                elif op == "Q": parts.append("Q" + p() + " " + p())
                elif op == "q": parts.append("q" + d() + " " + d())
                elif op == "C": parts.append("C" + p() + " " + p() + " " + p())
                elif op == "c": parts.append("c" + d() + " " + d() + " " + d())
                elif op == "s": parts.append("s" + d() + " " + d())
                elif op == "H": parts.append("H%.2f" % (cx + rng.uniform(-size, size) / 2))
                elif op == "V": parts.append("V%.2f" % (cy + rng.uniform(-size, size) / 2))
                else:
                    rx, ry = rng.uniform(5, size / 2), rng.uniform(5, size / 2)
                    target = p() if op == "A" else d()
                    parts.append("%s%.2f %.2f %.1f %d %d %s" % (op, rx, ry, rng.uniform(0, 180),
                                                              rng.randint(0, 1), rng.randint(0, 1), target))
            if rng.random() < 0.7:
                parts.append("Z")
        return {"type": "path", "d": " ".join(parts)}
    members = []
    for _ in range(rng.randint(2, 3)):
        m = rnd_geometry(rng, depth + 1) if depth < 1 else {"type": "circle", "cx": round(cx, 2),
                                                             "cy": round(cy, 2), "r": round(size / 3, 2)}
        if m["type"] == "compound":
            m = {"type": "rect", "x": round(cx, 2), "y": round(cy, 2), "width": 30, "height": 30}
        members.append(m)
    return {"type": "compound", "shapes": members}


def rnd_shape(rng, filled_only=False):
    s = rnd_geometry(rng)
    if rng.random() < 0.4:
        s["fillRule"] = rng.choice(["evenodd", "nonzero"])
    if not filled_only:
        r = rng.random()
        if r < 0.2:
            s["fill"] = False
            s["stroke"] = round(rng.uniform(3, 16), 2)
        elif r < 0.4:
            s["stroke"] = round(rng.uniform(2, 14), 2)
    if s["type"] == "polyline" and s.get("fill") is not False and rng.random() < 0.5:
        s["fill"] = False
        s["stroke"] = round(rng.uniform(4, 14), 2)
    return s


def rnd_transform(rng):
    r = rng.random()
    if r < 0.35:
        return None
    if r < 0.45:
        a, b, c, d = (round(rng.uniform(-1.5, 1.5), 3) for _ in range(4))
        if abs(a * d - b * c) < 0.2:
            a, d = 1.0, 1.0
        return {"matrix": [a, b, c, d, round(200 - 200 * a - 200 * c + rng.uniform(-40, 40), 2),
                           round(200 - 200 * b - 200 * d + rng.uniform(-40, 40), 2)]}  # keeps (200, 200) near itself
    if r < 0.48:
        return {"scale": [0, 1]}  # singular: unhittable
    t = {"translate": [round(rng.uniform(-60, 60), 2), round(rng.uniform(-60, 60), 2)]}
    if rng.random() < 0.6:
        t["rotate"] = round(rng.uniform(-180, 180), 1)
    if rng.random() < 0.5:
        t["scale"] = round(rng.uniform(0.5, 1.6), 3) if rng.random() < 0.5 else [round(rng.uniform(0.5, 1.6), 3),
                                                                                 round(rng.uniform(0.5, 1.6), 3)]
    if "rotate" in t or "scale" in t:
        t["origin"] = rnd_point(rng, 100, 300)  # about a point of the canvas, so shapes stay in view
    return t


def rnd_layer(rng, ids, depth):
    lid = "L%d" % len(ids)
    ids.append(lid)
    layer = {"id": lid, "color": "#%06x" % rng.randrange(1 << 24)}
    has_children = depth < 3 and rng.random() < 0.3
    if rng.random() < 0.9 or not has_children:
        clip = has_children and rng.random() < 0.35
        layer["shape"] = rnd_shape(rng, filled_only=clip)
        if rng.random() < 0.2:
            layer["hitShape"] = rnd_shape(rng, filled_only=clip)
        if clip:
            layer["clipChildren"] = True
    if rng.random() < 0.5:
        layer["action"] = "act." + lid
    t = rnd_transform(rng)
    if t:
        layer["transform"] = t
    if rng.random() < 0.3:
        layer["zIndex"] = rng.choice([-1, 1, 2])
    r = rng.random()
    if r < 0.07:
        layer["pointerEvents"] = "none"
    elif r < 0.15:
        layer["pointerEvents"] = "children-only"
    elif r < 0.22:
        layer["pointerEvents"] = "self-only"
    r = rng.random()
    if r < 0.05:
        layer["hidden"] = True
    elif r < 0.1:
        layer["opacity"] = 0.005
    elif r < 0.2:
        layer["opacity"] = 0.6
    if has_children:
        layer["children"] = [rnd_layer(rng, ids, depth + 1) for _ in range(rng.randint(1, 4))]
    return layer


def rnd_scene(seed):
    rng = random.Random(seed)
    ids = []
    return {"id": "rand-%d" % seed, "width": 400, "height": 400,
            "layers": [rnd_layer(rng, ids, 1) for _ in range(rng.randint(10, 22))]}


NAMES_JS = """
const [points, offsets] = arguments;
const svg = document.documentElement;
const m = svg.getScreenCTM(), inv = m.inverse();
const nameAt = (x, y) => {
  const e = document.elementFromPoint(x, y);
  if (!e) return null;
  const g = e.closest('[data-layer]');
  return g ? g.getAttribute('data-layer') : null;
};
return points.map(([x, y]) => {
  const c = new DOMPoint(x, y).matrixTransform(m);
  const names = [nameAt(c.x, c.y)], around = [];
  for (const [dx, dy] of offsets) {
    names.push(nameAt(c.x + dx, c.y + dy));
    const s = new DOMPoint(c.x + dx, c.y + dy).matrixTransform(inv);
    around.push([s.x, s.y]);
  }
  return [names, around];
});
"""

OFFSETS = [[dx * 1.5, dy * 1.5] for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def agreement(driver, base, scenes, points, seed, work):
    compared = agreed = excluded = targets = agreed_on_layer = 0
    timing = {"browser": 0.0, "service": 0.0}
    disagreements = []
    for k in range(scenes):
        scene = rnd_scene(seed * 100_000 + k)
        sid = scene["id"]
        status, raw = http(base, "PUT", "/scenes/" + sid, scene)
        if not check(status in (200, 201), "PUT %s -> %d %s" % (sid, status, raw[:200])):
            continue
        status, svg = http(base, "GET", "/scenes/%s/render.svg" % sid)
        try:
            ET.fromstring(svg)
            wellformed = True
        except ET.ParseError as e:
            wellformed = False
            print(e)
        check(status == 200 and wellformed, "render.svg of %s is well-formed XML (%d bytes)" % (sid, len(svg)))
        t0 = time.monotonic()
        driver.get(base + "/scenes/%s/render.svg" % sid)
        rng = random.Random(seed * 7 + k)
        pts = [[round(rng.uniform(0, 400), 3), round(rng.uniform(0, 400), 3)] for _ in range(points)]
        browser = driver.execute_script(NAMES_JS, pts, OFFSETS)
        timing["browser"] += time.monotonic() - t0
        t0 = time.monotonic()
        query = []
        for p, (_, around) in zip(pts, browser):
            query.append({"x": p[0], "y": p[1]})
            query.extend({"x": a[0], "y": a[1]} for a in around)
        status, raw = http(base, "POST", "/scenes/%s/hits" % sid, {"points": query})
        results = [r["layer"] for r in json.loads(raw)["results"]]
        timing["service"] += time.monotonic() - t0
        per = 1 + len(OFFSETS)
        for i, (p, (names, _)) in enumerate(zip(pts, browser)):
            service = results[i * per:(i + 1) * per]
            if len(set(names)) != 1 or len(set(service)) != 1:
                excluded += 1
                continue
            compared += 1
            if service[0] is not None:
                targets += 1
            if names[0] == service[0]:
                if service[0] is not None:
                    agreed_on_layer += 1
                agreed += 1
            elif len(disagreements) < 20:
                disagreements.append({"scene": sid, "x": p[0], "y": p[1], "browser": names[0], "service": service[0]})
    ratio = agreed / compared if compared else 0
    report = {"scenes": scenes, "points_per_scene": points, "seed": seed, "sampled": scenes * points,
              "near_a_boundary": excluded, "compared": compared, "compared_with_a_target": targets, "agreed_with_a_target": agreed_on_layer, "agreed": agreed, "agreement": ratio,
              "seconds": {k: round(v, 1) for k, v in timing.items()}, "disagreements": disagreements}
    with open(work + "/browser-agreement.json", "w") as f:
        json.dump(report, f, indent=1)
    print("agreement: %d of %d points farther than a pixel from a boundary (%.4f %%; %d of %d on a layer); "
          "%d of %d sampled were near a boundary" % (agreed, compared, 100 * ratio, agreed_on_layer, targets, excluded, scenes * points))
    print("time in the browser %.1f s, in the service %.1f s" % (timing["browser"], timing["service"]))
    for d in disagreements[:10]:
        print("  disagree:", d)
    check(compared > 0 and ratio >= 0.999, "elementFromPoint agrees with the service at >= 99.9 %% (%.4f %%)" % (100 * ratio))
    return report


# --------------------------------------------------------------------------
# The playground

def wait(driver, what, predicate, timeout=20):
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: predicate(d))
        return True
    except TimeoutException:
        return False


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def client_point(driver, x, y):
    return driver.execute_script("""
        const svg = document.querySelector('#picture svg');
        const c = new DOMPoint(arguments[0], arguments[1]).matrixTransform(svg.getScreenCTM());
        return [c.x, c.y];""", x, y)


def click_scene(driver, x, y):
    cx, cy = client_point(driver, x, y)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(int(round(cx)), int(round(cy))).click()
    actions.perform()


def set_viewport(driver, width, height):
    """Sizes the window so that the page itself gets width × height CSS pixels."""
    driver.set_window_size(width, height)
    w, h = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(width + (width - w), height + (height - h))


def open_page(driver, url):
    driver.get(url)
    return wait(driver, "ready", lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))


def picture_version(driver):
    return driver.execute_script("const s = document.querySelector('#picture svg'); return s ? s.outerHTML.length + ':' + s.getAttribute('data-version') + ':' + (s.querySelector('.routing circle') ? s.querySelector('.routing circle').getAttribute('cx') : '') : ''")


def no_alert(driver, where):
    try:
        alert = driver.switch_to.alert
        check(False, "no dialog on %s (got %r)" % (where, alert.text))
        alert.dismiss()
    except NoAlertPresentException:
        check(True, "no dialog on %s" % where)


def playground(driver, base, work):
    check(open_page(driver, base + "/"), "the playground loads")
    examples = sorted(os.path.basename(f)[:-5] for f in glob.glob(os.path.join(ROOT, "examples", "*.json")))
    buttons = sorted(b.get_attribute("data-example") for b in driver.find_elements(By.CSS_SELECTOR, "#examples button"))
    check(buttons == examples, "a button per file in examples/: %s (files %s)" % (buttons, examples))
    driver.find_element(By.CSS_SELECTOR, "button[data-example='ring-over-button']").click()
    check(wait(driver, "ring", lambda d: "ring-demo" in text(d, "scene-name")
               and d.find_elements(By.CSS_SELECTOR, "#picture svg [data-layer='ring']")),
          "the ring example uploads and is drawn in one click")
    check(wait(driver, "stream", lambda d: text(d, "result-link").startswith("stream (ws://")),
          "the page opened the scene's pointer stream: %s" % text(driver, "result-link"))
    for (x, y), expected in [((120, 120), "button"), ((210, 120), "ring"), ((10, 10), "button")]:
        click_scene(driver, x, y)
        check(wait(driver, "target", lambda d: text(d, "result-target") == expected
                   and text(d, "result-point") == "(%s, %s)" % (x, y)
                   or (text(d, "result-target") == expected and abs(float(d.find_element(By.ID, "px").get_attribute("value")) - x) < 1.5)),
              "a click at (%d, %d) shows %s (shown: %s, %s)" % (x, y, expected, text(driver, "result-target"), text(driver, "result-point")))
        if expected == "ring":
            wait(driver, "overlay", lambda d: d.find_elements(By.CSS_SELECTOR, "#picture svg [data-overlay='target'][data-of='ring']"))
            rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#trace tbody tr")]
            check(len(rows) == 2 and rows[0].startswith("frame skip") and rows[1].startswith("ring hit"),
                  "the trace table is frame skip, ring hit: %r" % rows)
            driver.save_screenshot(work + "/playground.png")
    # Hovering outlines what the pointer is over, from the answers' boundaries.
    for (x, y), expected in [((210, 120), "ring"), ((120, 120), "button"), ((10, 10), "button")]:
        cx, cy = client_point(driver, x, y)
        actions = ActionBuilder(driver)
        actions.pointer_action.move_to_location(int(round(cx)), int(round(cy)))
        actions.perform()
        outlined = lambda d: d.execute_script(
            "return [...new Set([...document.querySelectorAll('#picture svg .hovered')].map(g => g.getAttribute('data-layer')))]")
        check(wait(driver, "hover", lambda d: text(d, "result-hovered") == expected and outlined(d) == [expected]),
              "hovering (%d, %d) outlines %s (hovered: %s, outlined %s)" % (x, y, expected, text(driver, "result-hovered"), outlined(driver)))
    curl = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#curl li")]
    check(not any('"phase":"hover"' in c for c in curl), "the hovers went over the stream, not over HTTP")
    # Another client hides the ring under the resting pointer: the stream's
    # push moves the outline; showing it again moves it back.
    cx, cy = client_point(driver, 210, 120)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(int(round(cx)), int(round(cy)))
    actions.perform()
    wait(driver, "band", lambda d: text(d, "result-hovered") == "ring")
    for hidden, expected in ((True, "button"), (False, "ring")):
        status, raw = http(base, "PATCH", "/scenes/ring-demo/layers/ring", {"hidden": hidden})
        check(status == 200, "another client patches the ring: %d" % status)
        version = json.loads(http(base, "GET", "/scenes/ring-demo")[1])["version"]
        check(wait(driver, "push", lambda d: text(d, "result-hovered") == expected and outlined(d) == [expected]
                   and text(d, "scene-name").endswith("v%s" % version)),
              "the ring %s by another client: the push outlines %s and the title says v%s (hovered: %s, title %s)"
              % ("hidden" if hidden else "shown", expected, version, text(driver, "result-hovered"), text(driver, "scene-name")))
    # The keyboard: the form routes a point.
    px = driver.find_element(By.ID, "px")
    px.clear(); px.send_keys("120")
    py = driver.find_element(By.ID, "py")
    py.clear(); py.send_keys("120", Keys.ENTER)
    check(wait(driver, "form", lambda d: text(d, "result-target") == "button" and text(d, "result-point") == "(120, 120)"),
          "the keyboard form routes (120, 120) to the button")
    check("below.press" in text(driver, "result-action"), "the action is shown: %s" % text(driver, "result-action"))
    curl = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#curl li")]
    check(any(c.startswith("curl -sS -X POST") and "/scenes/ring-demo/hit" in c for c in curl),
          "requests are shown as curl: %s" % (curl[0] if curl else None))

    # The audit panel: targets with verdicts; choosing one routes its reach
    # point and lists its why-not answer; the audit's cells over the picture.
    driver.find_element(By.ID, "audit").click()
    check(wait(driver, "audit", lambda d: [r.get_attribute("data-layer") for r in d.find_elements(By.CSS_SELECTOR, "#audit-targets tbody tr")]
               == ["ring", "button"] and d.find_elements(By.CSS_SELECTOR, "#picture svg g.audit")),
          "the audit lists ring and button and draws its cells")
    driver.find_element(By.CSS_SELECTOR, "#audit-targets tbody tr[data-layer='button']").click()
    check(wait(driver, "why", lambda d: text(d, "result-target") == "button"
               and "lost to ring (covered)" in text(d, "audit-why")),
          "choosing the button routes its reach point to it and says the ring covers the rest: %s" % text(driver, "audit-why"))
    # The diff view against the same scene: nothing differs.
    Select(driver.find_element(By.ID, "diff-select")).select_by_value("ring-demo")
    driver.find_element(By.ID, "diff").click()
    check(wait(driver, "diff", lambda d: "no routing differs" in text(d, "diff-groups")
               and d.find_elements(By.CSS_SELECTOR, "#picture svg g.diff")),
          "the diff view against itself shows no group and draws its (empty) cells")

    # Dragging the draggable square.
    driver.find_element(By.CSS_SELECTOR, "button[data-example='overlapping-squares']").click()
    check(wait(driver, "squares", lambda d: "squares" in text(d, "scene-name")
               and d.find_elements(By.CSS_SELECTOR, "#picture svg [data-layer='square3']")),
          "the squares example loads in one click")
    before = json.loads(http(base, "GET", "/scenes/squares")[1])
    t0 = [l for l in before["layers"] if l["id"] == "square3"][0]["transform"]["translate"]
    driver.find_element(By.CSS_SELECTOR, "input[name=mode][value=pointer]").click()
    start, end = client_point(driver, 300, 300), client_point(driver, 340, 330)
    # Count the pictures drawn while the pointer is down.
    driver.execute_script("""
        window.__pictures = 0;
        new MutationObserver(() => { window.__pictures += 1; }).observe(document.getElementById('picture'), {childList: true});""")
    group_transform = "return [...document.querySelectorAll('#picture svg g[data-layer]')].find(g => g.getAttribute('data-layer') === 'square3').getAttribute('transform')"
    drawn_before = driver.execute_script(group_transform)
    actions = ActionBuilder(driver)
    pa = actions.pointer_action
    pa.move_to_location(int(start[0]), int(start[1])).pointer_down()
    for k in range(1, 6):
        pa.move_to_location(int(start[0] + (end[0] - start[0]) * k / 5), int(start[1] + (end[1] - start[1]) * k / 5))
        pa.pause(0.25)
    actions.perform()
    # Still pressed: the picture has followed the drag.
    check(wait(driver, "live", lambda d: d.execute_script(group_transform) != drawn_before),
          "while dragging, the picture shows square3 moved (%s, was %s)" % (driver.execute_script(group_transform), drawn_before))
    drawn_during = driver.execute_script("return window.__pictures")
    check(drawn_during >= 2, "the picture was redrawn %d times during the drag (one per answer, at most one a frame)" % drawn_during)
    actions = ActionBuilder(driver)
    actions.pointer_action.pointer_up()
    actions.perform()
    curl = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#curl li")]
    check(not any('"phase":"move"' in c or '"phase":"down"' in c for c in curl), "the drag went over the stream, not over HTTP")

    def moved(_):
        layer = [l for l in json.loads(http(base, "GET", "/scenes/squares")[1])["layers"] if l["id"] == "square3"][0]
        return layer["transform"]["translate"] != t0 and layer["transform"]["translate"]
    check(wait(driver, "drag", moved), "dragging square3 changes its stored translation")
    after = moved(None)
    if after:
        dx, dy = after[0] - t0[0], after[1] - t0[1]
        check(abs(dx - 40) < 3 and abs(dy - 30) < 3, "by about the drag, (40, 30): (%.2f, %.2f)" % (dx, dy))
    check(wait(driver, "captured", lambda d: text(d, "result-target") == "square3"), "the release is routed to square3")
    # The picture and the result name the same layer after the release.
    def mark(d):
        m = d.execute_script("""
            const m = document.querySelector('#picture svg .pointer-mark');
            const t = document.querySelector('#picture svg .pointer-target');
            return m && [m.dataset.layer, m.textContent, t ? t.getAttribute('data-layer') : null];""")
        return m if m and m[0] == text(d, "result-target") else None
    wait(driver, "mark", mark)
    shown = mark(driver)
    check(bool(shown) and shown[2] == "square3" and shown[1].startswith("square3 → square3.drag"),
          "after the drag the picture marks what the result says (%s; result %s)" % (shown, text(driver, "result-target")))
    driver.save_screenshot(work + "/playground-drag.png")
    check(not driver.find_elements(By.CSS_SELECTOR, "#picture svg [data-overlay='target']"),
          "pointer mode draws no fresh routing overlay (it could name another layer than the capture)")
    version = json.loads(http(base, "GET", "/scenes/squares")[1])["version"]
    option = driver.execute_script("return [...document.querySelectorAll('#scene-select option')].find(o => o.value === 'squares').textContent")
    check(option.endswith("v%d)" % version) and text(driver, "scene-name").endswith("v%d" % version),
          "the scene list and title follow the version: %r, %r (stored v%d)" % (option, text(driver, "scene-name"), version))
    for field in ("result-point", "result-local"):
        shown_text = text(driver, field)
        check(all(len(part.split(".")[1]) <= 3 for part in shown_text.strip("()").split(", ") if "." in part),
              "%s is rounded for reading: %s" % (field, shown_text))
    broken = driver.execute_script("""
        const broken = [];
        for (const cell of document.querySelectorAll('#trace td, #trace th')) {
          for (const node of cell.childNodes) {
            if (node.nodeType !== Node.TEXT_NODE) continue;
            const re = /\\S+/g; let m;
            while ((m = re.exec(node.data))) {
              const r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
              const lines = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
              if (lines.size > 1) broken.push(m[0]);
            }
          }
        }
        return broken;""")
    check(not broken, "no word of the trace table is broken across lines: %s" % broken[:5])
    driver.find_element(By.CSS_SELECTOR, "input[name=mode][value=route]").click()

    # The deep link.
    check(open_page(driver, base + "/?scene=ring-demo&x=210&y=120"), "the deep link loads")
    check(wait(driver, "deep", lambda d: text(d, "result-target") == "ring"
               and d.find_elements(By.CSS_SELECTOR, "#picture svg [data-overlay='target']")),
          "the deep link opens with (210, 120) answered: %s" % text(driver, "result-target"))

    # Hostile text runs nothing, in the page and in the SVG opened on its own.
    xss = {"id": "xss", "width": 200, "height": 200, "layers": [
        {"id": "evil", "action": "\"><script>alert(1)</script>", "color": "red\" onload=\"alert(1)",
         "shape": {"type": "rect", "x": 0, "y": 0, "width": 200, "height": 200}},
        {"id": "evil2", "action": "<img src=x onerror=alert(2)>", "color": "<svg onload=alert(3)>",
         "shape": {"type": "circle", "cx": 100, "cy": 100, "r": 40}}]}
    status, _ = http(base, "PUT", "/scenes/xss", xss)
    check(status in (200, 201), "the hostile scene is stored")
    ET.fromstring(http(base, "GET", "/scenes/xss/render.svg?x=100&y=100&regions=1")[1])
    check(open_page(driver, base + "/?scene=xss&x=10&y=10"), "the hostile scene's deep link loads")
    check(wait(driver, "xss", lambda d: text(d, "result-target") == "evil"), "its point is routed")
    check(text(driver, "result-action").startswith("\"><script>alert(1)</script>"), "its action is shown as text")
    check(not driver.find_elements(By.CSS_SELECTOR, "#picture script, #picture foreignObject, #result script"),
          "no script element came in")
    no_alert(driver, "the playground")
    driver.get(base + "/scenes/xss/render.svg?x=100&y=100")
    time.sleep(0.2)  # a dialog would be opened by the document's own load; give it its turn
    no_alert(driver, "render.svg")

    # A render with its overlay, for the README.
    driver.get(base + "/scenes/ring-demo/render.svg?x=120&y=120&width=480")
    driver.find_element(By.CSS_SELECTOR, "svg").screenshot(work + "/render-overlay.png")
    driver.get(base + "/scenes/squares/render.svg?x=200&y=200&regions=1&width=480")
    driver.find_element(By.CSS_SELECTOR, "svg").screenshot(work + "/render-regions.png")

    # Phone-sized: nothing scrolls sideways, the picture is usable.
    set_viewport(driver, 390, 844)
    check(open_page(driver, base + "/?scene=ring-demo&x=120&y=120"), "the phone-sized page loads")
    wait(driver, "phone", lambda d: text(d, "result-target") == "button")
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    width = driver.execute_script("return document.querySelector('#picture svg').getBoundingClientRect().width")
    check(overflow <= 1 and width >= 300, "phone-sized: no sideways scroll (%d px), picture %d px wide" % (overflow, width))
    driver.save_screenshot(work + "/playground-phone.png")
    set_viewport(driver, 1280, 800)

    # A typo shows its JSON Pointer (the 422 is expected in the console).
    open_page(driver, base + "/?scene=ring-demo")
    editor = driver.find_element(By.ID, "editor")
    driver.execute_script("arguments[0].value = arguments[1]", editor,
                          '{"id": "typo", "layers": [{"id": "a", "hitslop": 4}]}')
    driver.find_element(By.ID, "upload").click()
    check(wait(driver, "problem", lambda d: "/layers/0/hitslop" in text(d, "problems")),
          "a typo's problem is shown at /layers/0/hitslop: %r" % text(driver, "problems"))


def hold_stream(port, key, scene):
    """A pointer stream opened by this script (the key in Authorization)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(("GET /scenes/%s/stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                  "Sec-WebSocket-Protocol: hitroute.v1\r\nAuthorization: Bearer %s\r\n\r\n" % (scene, port, key)).encode())
    return sock, sock.recv(4096).split(b"\r\n", 1)[0]


def hover_at(driver, x, y):
    cx, cy = client_point(driver, x, y)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(int(round(cx)), int(round(cy)))
    actions.perform()


def keyed_playground(driver, binary, work, port=0):
    """On a keyed service: the page with a key draws the picture (render.svg
    is fetched with the key), routes a click, and the curl line it shows for
    a request works as copied, with the key in $HITROUTE_KEY. While its one
    stream is taken, the page hovers over HTTP; once it is free, over the
    stream its client reconnects."""
    key = "browser-write-" + os.urandom(12).hex()
    keys = os.path.join(work, "browser-keys")
    with open(keys, "w") as f:
        f.write("write %s\n" % key)
    if not port:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
    base = "http://127.0.0.1:%d" % port
    server = subprocess.Popen([binary, "--port", str(port), "--quiet", "--api-keys-file", keys, "--max-streams", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    held = None
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if http(base, "GET", "/readyz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        scene = json.load(open(os.path.join(ROOT, "examples", "ring-over-button.json")))
        req = urllib.request.Request(base + "/scenes/ring-demo", data=json.dumps(scene).encode(), method="PUT",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
        urllib.request.urlopen(req, timeout=30).read()
        held, status = hold_stream(port, key, "ring-demo")
        check(status.startswith(b"HTTP/1.1 101"), "keyed: this script holds the one stream: %s" % status)
        check(open_page(driver, base + "/"), "keyed: the playground loads")
        field = driver.find_element(By.ID, "key")
        field.send_keys(key, Keys.TAB)
        driver.find_element(By.CSS_SELECTOR, "button[data-example='ring-over-button']").click()
        check(wait(driver, "keyed ring", lambda d: d.find_elements(By.CSS_SELECTOR, "#picture svg [data-layer='ring']")),
              "keyed: the picture is drawn (render.svg fetched with the key): %r" % text(driver, "problems"))
        click_scene(driver, 210, 120)
        check(wait(driver, "keyed click", lambda d: text(d, "result-target") == "ring"
                   and d.find_elements(By.CSS_SELECTOR, "#picture svg [data-overlay='target'][data-of='ring']")),
              "keyed: a click routes and the overlay is drawn")
        curl = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#curl li")]
        line = next((c for c in curl if " -X POST" in c and "/scenes/ring-demo/hit" in c), None)
        check(line is not None and '"Authorization: Bearer $HITROUTE_KEY"' in line and key not in line,
              "keyed: the curl line names $HITROUTE_KEY in double quotes, not the key: %s" % line)
        if line:
            run = subprocess.run(["bash", "-c", line], env={**os.environ, "HITROUTE_KEY": key},
                                 capture_output=True, text=True, timeout=30)
            answer = json.loads(run.stdout) if run.stdout.startswith("{") else {}
            check(answer.get("layer") == "ring", "keyed: the copied curl line works with the key: %s" % run.stdout[:120])
        # The stream is taken: hovers go over HTTP.
        check(text(driver, "result-link").startswith("HTTP"), "keyed: no stream to be had, the link is HTTP: %s" % text(driver, "result-link"))
        hover_at(driver, 200, 120)   # on the band, away from the click (a pointer that does not move sends nothing)
        check(wait(driver, "keyed hover", lambda d: text(d, "result-hovered") == "ring"
                   and any('"phase":"hover"' in li.text for li in d.find_elements(By.CSS_SELECTOR, "#curl li"))),
              "keyed: without a stream a hover goes over HTTP and outlines the ring: %s (%s; %s)"
              % (text(driver, "result-hovered"), text(driver, "problems"), driver.find_element(By.CSS_SELECTOR, "#curl li").text))
        # Let go: the page's stream client reconnects (with backoff) and hovers go over the stream.
        held.close()
        held = None
        check(wait(driver, "keyed stream", lambda d: text(d, "result-link").startswith("stream (ws://"), timeout=60),
              "keyed: once the stream is free, the page's client reconnects: %s" % text(driver, "result-link"))
        before = len([li for li in driver.find_elements(By.CSS_SELECTOR, "#curl li") if '"phase":"hover"' in li.text])
        hover_at(driver, 120, 120)
        check(wait(driver, "keyed stream hover", lambda d: text(d, "result-hovered") == "button"),
              "keyed: a hover over the reconnected stream (the key as its subprotocol) outlines the button: %s" % text(driver, "result-hovered"))
        after = len([li for li in driver.find_elements(By.CSS_SELECTOR, "#curl li") if '"phase":"hover"' in li.text])
        check(after == before, "keyed: that hover did not go over HTTP")
        driver.save_screenshot(work + "/playground-keyed.png")
    finally:
        if held:
            held.close()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--points", type=int, default=400)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--only", choices=["agreement", "playground"])
    ap.add_argument("--binary", help="the hitroute binary, to start a keyed service for the playground's key checks")
    ap.add_argument("--keyed-port", type=int, default=0, help="the keyed service's port (default a free one)")
    a = ap.parse_args()
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-default-apps", "--disable-sync", "--force-device-scale-factor=1"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    started = time.monotonic()
    try:
        driver.get("about:blank")
        set_viewport(driver, 1280, 800)
        report = {}
        if a.only != "playground":
            report["agreement"] = agreement(driver, a.base, a.scenes, a.points, a.seed, a.work)
        if a.only != "agreement":
            playground(driver, a.base, a.work)
            console = driver.get_log("browser")
            errors = [e for e in console if e["level"] == "SEVERE"
                      and not ("/scenes/typo" in e["message"] and "422" in e["message"])]
            check(not errors, "no console error (%d messages): %s" % (len(console), errors[:3]))
            origins = set()
            for entry in driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message.get("method") == "Network.requestWillBeSent":
                    url = message["params"]["request"]["url"]
                    if not url.startswith(a.base + "/") and not url.startswith(("data:", "about:")):
                        origins.add(url)
            check(not origins, "no request to another origin: %s" % sorted(origins)[:5])
            if a.binary:
                keyed_playground(driver, a.binary, a.work, a.keyed_port)
        report["failures"] = FAILURES
        report["seconds"] = round(time.monotonic() - started, 1)
        with open(a.work + "/browser-report.json", "w") as f:
            json.dump(report, f, indent=1)
    finally:
        driver.quit()
    print("browser test: %d failure(s) in %.0f s" % (len(FAILURES), time.monotonic() - started))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()

"""The ring-over-button scene's exact hit logic, shared by the Python peers.

Front to back: the frame (pointerEvents none) is skipped; the ring is the
even-odd fill of two circles at (120, 120) with radii 120 and 48; the button
is the half-open rectangle 0 <= x < 240, 0 <= y < 240. Answers use
hitroute's JSON shapes (SPEC §4.2).
"""

import json
import math


def route(x, y, trace):
    dx, dy = x - 120.0, y - 120.0
    d2 = dx * dx + dy * dy
    in_outer, in_inner = d2 <= 120.0 * 120.0, d2 <= 48.0 * 48.0
    local = {"x": x, "y": y}
    entries = [{"layer": "frame", "decision": "skip", "reason": "pointer-events-none"}] if trace else None
    if in_outer != in_inner:
        if trace:
            entries.append({"layer": "ring", "decision": "hit", "reason": "inside", "local": local})
        return "ring", "ring.select", local, entries
    if trace:
        n = int(in_outer) + int(in_inner)
        if n:
            entries.append({"layer": "ring", "decision": "miss", "reason": "in-hole",
                            "detail": f"even-odd: inside {n} contours", "local": local})
        else:
            entries.append({"layer": "ring", "decision": "miss", "reason": "outside", "local": local})
    if 0 <= x < 240 and 0 <= y < 240:
        if trace:
            entries.append({"layer": "button", "decision": "hit", "reason": "inside", "local": local})
        return "button", "below.press", local, entries
    if trace:
        entries.append({"layer": "button", "decision": "miss", "reason": "outside", "local": local})
    return None, None, None, entries


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def single(x, y, trace):
    layer, action, local, entries = route(x, y, trace)
    out = {"scene": "ring-demo", "version": 1, "x": x, "y": y, "layer": layer,
           "path": [layer] if layer else None, "action": action, "actionLayer": layer, "local": local}
    if trace:
        out["trace"] = entries
    return out


def dumps(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def answer_hit_body(raw):
    """(status, body bytes) for a POST …/hit body."""
    try:
        q = json.loads(raw)
    except ValueError:
        return 400, dumps({"status": 400, "detail": "bad JSON"})
    if not isinstance(q, dict) or not _finite(q.get("x")) or not _finite(q.get("y")):
        return 422, dumps({"status": 422, "detail": "x, y"})
    return 200, dumps(single(q["x"], q["y"], q.get("trace", True) is not False))


def answer_hit_query(query):
    """(status, body bytes) for GET …/hit?x=&y=&trace=."""
    params = {}
    for part in query.split("&"):
        if "=" in part:
            k, v = part.split("=", 1)
            params[k] = v
    try:
        x, y = float(params["x"]), float(params["y"])
    except (KeyError, ValueError):
        return 422, dumps({"status": 422, "detail": "x, y"})
    if not (math.isfinite(x) and math.isfinite(y)):
        return 422, dumps({"status": 422, "detail": "x, y"})
    if x.is_integer():
        x = int(x)
    if y.is_integer():
        y = int(y)
    return 200, dumps(single(x, y, params.get("trace", "1") not in ("0", "false")))


def answer_hits_body(raw):
    """(status, body bytes) for a POST …/hits body."""
    try:
        q = json.loads(raw)
    except ValueError:
        return 400, dumps({"status": 400, "detail": "bad JSON"})
    points = q.get("points") if isinstance(q, dict) else None
    if not isinstance(points, list):
        return 422, dumps({"status": 422, "detail": "points"})
    results = []
    for p in points:
        if not isinstance(p, dict) or not _finite(p.get("x")) or not _finite(p.get("y")):
            return 422, dumps({"status": 422, "detail": "points"})
        layer, action, _, _ = route(p["x"], p["y"], False)
        results.append({"layer": layer, "action": action, "actionLayer": layer})
    return 200, dumps({"scene": "ring-demo", "version": 1, "results": results})

// hitroute.js — a small ES module for talking to a hitroute service from a
// browser or a game frontend. Served by the service itself at /hitroute.js;
// it is what the playground (GET /) uses. No dependencies.
//
//   import { HitRoute } from "/hitroute.js";
//   const hr = new HitRoute();                     // same origin; or new HitRoute({ base: "http://127.0.0.1:8080" })
//   await hr.putScene("ring-demo", scene);         // create or replace
//   const r = await hr.hit("ring-demo", 210, 120); // → { layer: "ring", action: "ring.select", path, trace, … }
//   const many = await hr.hits("ring-demo", [{ x: 10, y: 10 }, { x: 120, y: 120 }]);
//   const finger = hr.pointer("ring-demo", "finger-1", { pointerType: "touch" });
//   await finger.down(120, 120); await finger.move(130, 125); await finger.up(130, 125);
//   const mouse = hr.pointer("ring-demo", "mouse");
//   (await mouse.hover(210, 120)).boundary;       // → { out: null, leave: [], over: "ring", enter: ["ring"], removed: [] }
//
// Every method returns the parsed JSON answer. A problem answer (4xx/5xx,
// RFC 9457) rejects with a HitRouteError carrying `status` and `problem`
// (whose `errors[].pointer` are JSON Pointers into what was sent).
// Coordinates are scene coordinates, y down.

/** A problem answer of the service. */
export class HitRouteError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.name = "HitRouteError";
    this.status = status;
    this.problem = problem;
  }
}

export class HitRoute {
  /**
   * @param {object} [options]
   * @param {string} [options.base] the service's origin ("" = this page's origin)
   * @param {string} [options.key] an API key, sent as `Authorization: Bearer <key>`
   * @param {(request: {method: string, url: string, body?: string, key?: boolean}) => void} [options.onRequest]
   *   called before every request (the playground shows each one as curl)
   */
  constructor({ base = "", key = "", onRequest = null } = {}) {
    this.base = base.replace(/\/$/, "");
    this.key = key;
    this.onRequest = onRequest;
  }

  /** The absolute URL of a path on the service. */
  url(path) {
    return new URL(this.base + path, globalThis.location ? globalThis.location.href : undefined).href;
  }

  /** Sends one request; resolves with the parsed JSON (or text), rejects with HitRouteError. */
  async request(method, path, body) {
    const headers = {};
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    if (text !== undefined) headers["Content-Type"] = "application/json";
    if (this.key) headers["Authorization"] = `Bearer ${this.key}`;
    if (this.onRequest) this.onRequest({ method, url: this.url(path), body: text, key: !!this.key });
    const response = await fetch(this.base + path, { method, headers, body: text });
    const type = response.headers.get("Content-Type") || "";
    const payload = response.status === 204 ? null : type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) throw new HitRouteError(response.status, typeof payload === "object" ? payload : { detail: payload });
    return payload;
  }

  /** `GET /scenes`: `{scenes: [summary…]}`. */
  listScenes() { return this.request("GET", "/scenes"); }
  /** `GET /scenes/{id}`: the scene as submitted, with `id` and `version`. */
  getScene(id) { return this.request("GET", `/scenes/${encodeURIComponent(id)}`); }
  /** `POST /scenes`: creates a scene (409 when its id exists); resolves with its summary. */
  createScene(scene) { return this.request("POST", "/scenes", scene); }
  /** `PUT /scenes/{id}`: creates or replaces; resolves with the summary. */
  putScene(id, scene) { return this.request("PUT", `/scenes/${encodeURIComponent(id)}`, scene); }
  /** `DELETE /scenes/{id}`. */
  deleteScene(id) { return this.request("DELETE", `/scenes/${encodeURIComponent(id)}`); }
  /** `PATCH /scenes/{id}/layers/{layer}` with a JSON merge patch. */
  patchLayer(id, layer, patch) {
    return this.request("PATCH", `/scenes/${encodeURIComponent(id)}/layers/${encodeURIComponent(layer)}`, patch);
  }

  /**
   * `POST /scenes/{id}/hit`: routes one point.
   * @param {object} [options] `{trace = true, all = false, pointer, phase}`
   */
  hit(id, x, y, options = {}) {
    return this.request("POST", `/scenes/${encodeURIComponent(id)}/hit`, { x, y, ...options });
  }

  /** `POST /scenes/{id}/hits`: routes many points `[{x, y, pointer?, phase?}]` in order. */
  hits(id, points, options = {}) {
    return this.request("POST", `/scenes/${encodeURIComponent(id)}/hits`, { points, ...options });
  }

  /**
   * Pointer helpers: `down` captures the target, `move` and `up` go to it
   * (and drag it when it is draggable), `cancel` drops the capture;
   * `hover` moves with no button pressed, `leave` says the pointer left.
   * Each answer carries `boundary` when what the pointer is over changed.
   * `options` may hold `pointerType` ("mouse", "pen", "touch") and `trace`.
   */
  pointer(id, pointer = "mouse", options = {}) {
    return pointerHelpers((phase, x, y) => this.hit(id, x, y, { ...options, pointer, phase }));
  }

  /**
   * `GET /scenes/{id}/audit`: every target's size, reach point, cover and
   * verdict, and the blockers. `params`: `standard`, `minSize`, `spacing`,
   * `resolution`, `x`, `y`, `width`, `height`.
   */
  audit(id, params = {}) {
    return this.request("GET", `/scenes/${encodeURIComponent(id)}/audit${query(params)}`);
  }

  /** `GET /scenes/{id}/layers/{layer}/reach`: where a layer is reached, who takes the rest and why. */
  reach(id, layer, params = {}) {
    return this.request("GET", `/scenes/${encodeURIComponent(id)}/layers/${encodeURIComponent(layer)}/reach${query(params)}`);
  }

  /** `GET /scenes/{id}/diff?against=`: where routing differs between two stored scenes. */
  diff(id, against, params = {}) {
    return this.request("GET", `/scenes/${encodeURIComponent(id)}/diff${query({ against, ...params })}`);
  }

  /**
   * The URL of the scene's SVG: `{x, y}` overlays that point's routing,
   * `regions`, `width`, `audit` (the audit's cells), `diff` (another
   * scene's id: the cells whose routing differs).
   */
  renderURL(id, { x, y, regions = false, width, audit = false, diff } = {}) {
    const q = new URLSearchParams();
    if (x !== undefined && y !== undefined) { q.set("x", String(x)); q.set("y", String(y)); }
    if (regions) q.set("regions", "1");
    if (width) q.set("width", String(width));
    if (audit) q.set("audit", "1");
    if (diff) q.set("diff", diff);
    const s = q.toString();
    return `${this.base}/scenes/${encodeURIComponent(id)}/render.svg${s ? "?" + s : ""}`;
  }

  /** `GET` the SVG text (through `request`, so it is shown and sends the key). */
  render(id, options = {}) {
    return this.request("GET", this.renderURL(id, options).slice(this.base.length));
  }
}

/** `?a=1&b=2` of the defined entries of `params`, or "". */
function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? "?" + s : "";
}

/** `{down, move, up, cancel, hover, leave}`, each `(x, y) => send(phase, x, y)`. */
function pointerHelpers(send) {
  const helpers = {};
  for (const phase of ["down", "move", "up", "cancel", "hover", "leave"]) helpers[phase] = (x, y) => send(phase, x, y);
  return helpers;
}

/** The `curl` command equivalent to a request seen by `onRequest`. */
export function curlCommand({ method, url, body, key }) {
  const quote = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'";
  const parts = ["curl", "-sS"];
  if (method !== "GET") parts.push("-X", method);
  // Double quotes, so the shell puts the key in (it never appears in the page).
  if (key) parts.push("-H", '"Authorization: Bearer $HITROUTE_KEY"');
  if (body !== undefined) parts.push("-H", quote("Content-Type: application/json"), "--data-binary", quote(body));
  parts.push(quote(url));
  return parts.join(" ");
}

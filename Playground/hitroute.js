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
//   const s = hr.stream("ring-demo");              // a pointer stream (WebSocket), see HitRouteStream
//   s.on("boundary", (push) => …); s.on("scene", (push) => …);
//   const a = await s.send({ x: 210, y: 120, pointer: "mouse", phase: "hover", trace: false });
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

  /**
   * Opens `GET /scenes/{id}/stream`, a pointer stream over WebSocket, with
   * this client's key (read again at every reconnect). See HitRouteStream.
   * @param {object} [options] `{reconnect = true, minDelay = 250, maxDelay = 15000, window = 8}`
   */
  stream(id, options = {}) {
    return new HitRouteStream(this, id, options);
  }
}

/** The phases the client may replace by a later one of the same pointer while unsent. */
const COALESCIBLE = new Set(["move", "hover"]);

/**
 * A pointer stream: hit queries over one WebSocket, answered in order, and
 * the service's pushes (SPEC §11.2). Messages are the bodies of
 * `POST /scenes/{id}/hit`.
 *
 *   const s = hr.stream("ring-demo");
 *   s.on("open", ({ reconnected }) => …);      // also after each reconnect
 *   s.on("scene", (m) => …);                   // {type: "scene", version} or {type: "scene", deleted: true}
 *   s.on("boundary", (m) => …);                // {type: "boundary", pointer, version, layer, boundary}
 *   s.on("close", ({ code, reason, opened, reconnecting }) => …);   // opened: this socket had opened
 *   s.on("error", (e) => …);                   // the socket failed, or an error message without a waiting send
 *   const answer = await s.send({ x, y, pointer: "mouse", phase: "hover", trace: false });
 *   const mouse = s.pointer("mouse", { pointerType: "pen" });   // down / move / up / cancel / hover / leave (x, y)
 *   s.close();
 *
 * - `send(message)` gives the message a `seq` (1, 2, 3, … over the
 *   stream's life; any `seq` of its own is replaced) and resolves with the
 *   answer carrying that `seq`; an error message (`type: "error"`) rejects
 *   with a HitRouteError of its `status` and problem. Sends made before
 *   the socket opens wait for it.
 * - Coalescing: at most `window` messages are unanswered at a time; the
 *   rest wait in order in the client. A waiting `move` or `hover` of a
 *   pointer is replaced by a later `move` or `hover` of the same pointer
 *   when nothing of that pointer waits between them (the service's own
 *   rule); `down`, `up`, `cancel`, `leave` and plain hits are never dropped
 *   or reordered. A replaced message's promise resolves with the answer of
 *   the message that replaced it, and so does one the service coalesced
 *   (its answer says `coalesced`). `coalesced` counts the client's
 *   replacements.
 * - Reconnect: when the socket closes (not by `close()`, and not with 4404,
 *   the scene deleted), every unanswered and waiting send is rejected
 *   (`status` 0) and a new socket is opened after `minDelay` ms, doubling
 *   up to `maxDelay` with each failed attempt (reset once one opens). The
 *   new stream is a new pointer namespace: the service cancelled the old
 *   stream's pointers (captures released, hovered sets forgotten), so a
 *   client resends where its pointers are, as after `open` with
 *   `reconnected: true`.
 * - The key travels as the subprotocol `bearer.<key in base64url,
 *   unpadded>` beside `hitroute.v1`, never in the URL.
 */
export class HitRouteStream {
  constructor(client, id, { reconnect = true, minDelay = 250, maxDelay = 15000, window = 8 } = {}) {
    this.client = client;
    this.id = id;
    this.options = { reconnect, minDelay, maxDelay, window: Math.max(1, window) };
    this.url = client.url(`/scenes/${encodeURIComponent(id)}/stream`).replace(/^http/, "ws");
    this.handlers = new Map();
    this.seq = 0;
    this.waiting = [];            // {message, resolve, reject, replaced: [{resolve, reject}]}, in order, unsent
    this.unanswered = new Map();  // seq → {resolve, reject, replaced}, in sending order
    this.coalesced = 0;
    this.opened = 0;              // sockets that opened
    this.attempt = 0;
    this.closed = false;
    this.socket = null;
    this.timer = null;
    this.connect();
  }

  /** Whether the socket is open (sends go out now, not after a reconnect). */
  get isOpen() { return !!this.socket && this.socket.readyState === 1; }

  /** Calls `handler(detail)` on each event of `type`; returns a function that stops it. */
  on(type, handler) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(handler);
    return () => this.handlers.get(type).delete(handler);
  }

  emit(type, detail) {
    for (const handler of this.handlers.get(type) || []) handler(detail);
  }

  connect() {
    this.timer = null;
    const protocols = ["hitroute.v1"];
    if (this.client.key) protocols.push("bearer." + base64url(this.client.key));
    const socket = new WebSocket(this.url, protocols);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.emit("open", { reconnected: this.opened++ > 0 });
      this.flush();
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onerror = () => this.emit("error", new HitRouteError(0, { detail: opened ? "the stream failed" : "the stream could not open" }));
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const reconnecting = this.options.reconnect && !this.closed && event.code !== 4404;
      this.failAll(`the stream closed (${event.code}${event.reason ? " " + event.reason : ""})`);
      this.emit("close", { code: event.code, reason: event.reason, opened, reconnecting });
      if (reconnecting) {
        const delay = Math.min(this.options.maxDelay, this.options.minDelay * 2 ** this.attempt++);
        this.timer = setTimeout(() => this.connect(), delay);
      }
    };
  }

  /** Sends one hit query; resolves with its answer (see the class). */
  send(message) {
    return new Promise((resolve, reject) => {
      if (this.closed) { reject(new HitRouteError(0, { detail: "the stream is closed" })); return; }
      const entry = { message: { ...message }, resolve, reject, replaced: [] };
      const last = COALESCIBLE.has(message.phase) && message.pointer !== undefined
        ? this.waiting.findLast((w) => w.message.pointer === message.pointer) : undefined;
      if (last && COALESCIBLE.has(last.message.phase)) {
        this.waiting.splice(this.waiting.indexOf(last), 1);
        entry.replaced.push(...last.replaced, { resolve: last.resolve, reject: last.reject });
        this.coalesced += 1;
      }
      this.waiting.push(entry);
      this.flush();
    });
  }

  /** `{down, move, up, cancel, hover, leave}` of one pointer, each `(x, y, extra)` → `send`. */
  pointer(pointer = "mouse", options = {}) {
    const helpers = {};
    for (const phase of ["down", "move", "up", "cancel", "hover", "leave"]) {
      helpers[phase] = (x, y, extra = {}) => this.send({ x, y, ...options, ...extra, pointer, phase });
    }
    return helpers;
  }

  /** Sends waiting messages while fewer than `window` are unanswered. */
  flush() {
    while (this.isOpen && this.waiting.length && this.unanswered.size < this.options.window) {
      const entry = this.waiting.shift();
      entry.message.seq = ++this.seq;
      this.unanswered.set(entry.message.seq, entry);
      this.socket.send(JSON.stringify(entry.message));
    }
  }

  receive(text) {
    let m;
    try { m = JSON.parse(text); } catch { this.emit("error", new HitRouteError(0, { detail: "a message that is not JSON" })); return; }
    if (m.type === "scene" || m.type === "boundary") { this.emit(m.type, m); return; }
    const entry = this.unanswered.get(m.seq);
    if (!entry) { if (m.type === "error") this.emit("error", new HitRouteError(m.status, m)); return; }
    // Answers come in order: an unanswered message sent before this one
    // was coalesced by the service into it.
    for (const [seq, earlier] of this.unanswered) {
      if (seq === m.seq) break;
      this.unanswered.delete(seq);
      settle(earlier, m);
    }
    this.unanswered.delete(m.seq);
    settle(entry, m);
    this.flush();
  }

  /** Rejects every unanswered and waiting send. */
  failAll(detail) {
    const error = new HitRouteError(0, { detail });
    const all = [...this.unanswered.values(), ...this.waiting];
    this.unanswered.clear();
    this.waiting = [];
    for (const entry of all) for (const p of [entry, ...entry.replaced]) p.reject(error);
  }

  /** Closes the stream for good (code 1000); pending sends are rejected. */
  close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const socket = this.socket;
    const opened = this.isOpen;
    this.socket = null;
    this.failAll("the stream was closed");
    if (socket) socket.close(1000);
    this.emit("close", { code: 1000, reason: "", opened, reconnecting: false });
  }
}

/** Resolves (an answer) or rejects (an error message) a send and those it replaced. */
function settle(entry, m) {
  for (const p of [entry, ...entry.replaced]) {
    if (m.type === "error") p.reject(new HitRouteError(m.status, m));
    else p.resolve(m);
  }
}

/** Unpadded base64url of a string's UTF-8 bytes. */
function base64url(text) {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
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

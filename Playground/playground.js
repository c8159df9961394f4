// The playground (GET /): lists, edits and uploads scenes, draws them with
// render.svg, routes clicks, plays pointer down/move/up and outlines what the
// pointer hovers. Everything it asks of the service goes through hitroute.js,
// and every HTTP request is shown as curl. Hovers and drags go over the
// scene's pointer stream while it is open, else over HTTP. Text from scenes
// is only ever set as textContent, never as HTML.
import { HitRoute, HitRouteError, curlCommand } from "/hitroute.js";

const $ = (id) => document.getElementById(id);
/** One button per file in examples/ (a test checks the list against the directory). */
const EXAMPLES = ["ring-over-button", "overlapping-squares", "sprite-with-pass-through"];
/** Above this many layers the picture is drawn only on request (its SVG runs to megabytes). */
const DRAW_LIMIT = 20000;

// `point`: the routed point whose overlay render.svg draws (route mode).
// `answer`: the last pointer answer, marked on the picture by the page
// itself (pointer mode): render.svg would route the point afresh, without
// the capture that decided the answer, and could name another layer.
// `hovered`: the layers the pointer `mouse` is over, kept from the
// `boundary` of each answer and push (leave, then enter), outlined on the
// picture.
// `stream`: the open scene's pointer stream (HitRouteStream), `answered`
// the highest `seq` of its answers applied (a message the stream client
// coalesced resolves with the answer that replaced it, applied once).
const state = {
  id: "", version: 0, layers: 0, point: null, answer: null, svg: null, drawAnyway: false,
  pointerDown: false, busy: null, pending: null,
  /** The audit's or a diff's cells over the picture: `{audit: true}` or `{diff: otherId}`. */
  overlay: {},
  hovered: new Set(), hoverBusy: null, hoverPending: null,
  stream: null, answered: 0, pointerType: "mouse",
};
/** The browser's PointerEvent.pointerType values the service knows (another is sent as "mouse"). */
const POINTER_TYPES = new Set(["mouse", "pen", "touch"]);

const client = new HitRoute({ key: sessionStorage.getItem("hitroute.key") || "", onRequest: showCurl });

function showCurl(request) {
  const li = document.createElement("li");
  const code = document.createElement("code");
  code.textContent = curlCommand(request);
  li.append(code);
  const list = $("curl");
  list.prepend(li);
  while (list.children.length > 50) list.lastChild.remove();
}

function setText(id, text) { $(id).textContent = text; }

/** A number for reading: at most three decimals (the JSON and curl keep every digit). */
function readable(v) {
  return typeof v === "number" && Number.isFinite(v) ? String(Math.round(v * 1000) / 1000) : String(v);
}

function showProblem(error) {
  const box = $("problems");
  box.replaceChildren();
  if (!error) return;
  const p = document.createElement("p");
  const problem = error instanceof HitRouteError ? error.problem : null;
  p.textContent = problem ? `${error.status} ${problem.title || ""}: ${problem.detail || ""}` : String(error.message || error);
  box.append(p);
  if (problem && Array.isArray(problem.errors)) {
    const ul = document.createElement("ul");
    for (const e of problem.errors) {
      const li = document.createElement("li");
      const code = document.createElement("code");
      code.textContent = e.pointer === "" ? "(root)" : e.pointer;
      li.append(code, document.createTextNode(" — " + e.message));
      ul.append(li);
    }
    box.append(ul);
  }
}

const sceneLabel = (s) => `${s.id} (${s.layers} layers, v${s.version})`;

async function refreshList(select = state.id) {
  const { scenes } = await client.listScenes();
  const others = $("diff-select");
  others.replaceChildren(new Option("(choose a scene)", ""));
  for (const s of scenes) others.append(new Option(s.id, s.id));
  const menu = $("scene-select");
  menu.replaceChildren();
  const none = new Option("(choose a scene)", "");
  menu.append(none);
  for (const s of scenes) {
    const option = new Option(sceneLabel(s), s.id);
    option.dataset.layers = s.layers;
    menu.append(option);
  }
  menu.value = scenes.some((s) => s.id === select) ? select : "";
  return scenes;
}

/** Every answer names its scene's version: the title and the menu follow it. */
function noteVersion(id, version) {
  if (id !== state.id || !Number.isInteger(version)) return;
  state.version = version;
  setText("scene-name", `“${id}” v${version}`);
  for (const option of $("scene-select").options) {
    if (option.value === id) option.textContent = sceneLabel({ id, layers: option.dataset.layers, version });
  }
}

/** Which link pointer events take, in the result panel. */
function showLink() {
  setText("result-link", viaStream() ? `stream (${state.stream.url})` : "HTTP (POST …/hit)");
}

function viaStream() { return !!state.stream && state.stream.isOpen; }

/** A send the stream rejected because it closed (the page goes on over HTTP), or another error. */
function quiet(error) {
  if (!(error instanceof HitRouteError && error.status === 0)) showProblem(error);
}

/**
 * Opens the pointer stream of scene `id` (closing any other): hovers and
 * drags go over it while it is open; its pushes move the outline and
 * redraw the picture when another client changes the scene.
 */
function openStream(id) {
  if (state.stream) state.stream.close();
  state.stream = null;
  state.answered = 0;
  if (!id || typeof WebSocket !== "function") { showLink(); return; }
  const stream = client.stream(id);
  state.stream = stream;
  const mine = (f) => (m) => { if (state.stream === stream && id === state.id) f(m); };
  stream.on("open", mine(() => {
    // A new stream is a new pointer namespace: the pointer is over nothing yet.
    state.hovered.clear();
    paintHover();
    showLink();
  }));
  stream.on("close", mine(({ opened, reconnecting }) => {
    // The stream's pointer is gone with it (one that never opened had none).
    if (opened) { state.hovered.clear(); paintHover(); }
    showLink();
    if (!reconnecting) state.stream = null;
  }));
  stream.on("scene", mine((m) => {
    if (m.deleted) { setText("picture-note", `“${id}” was deleted`); return; }
    noteVersion(id, m.version);
    requestDraw();
  }));
  stream.on("boundary", mine((m) => { if (m.pointer === "mouse") applyBoundary(m.boundary); }));
  showLink();
}

/** Loads a scene into the editor and draws it. */
async function openScene(id, { redraw = true } = {}) {
  const scene = await client.getScene(id);
  if (id !== state.id) {
    state.overlay = {};
    $("audit-targets").tBodies[0].replaceChildren();
    $("audit-why").replaceChildren();
    $("diff-groups").replaceChildren();
    state.hovered.clear();
    paintHover();
    openStream(id);
  }
  state.id = id;
  const version = scene.version;
  delete scene.version;
  $("editor").value = JSON.stringify(scene, null, 2);
  state.layers = countLayers(scene.layers || []);
  $("scene-select").value = id;
  noteVersion(id, version);
  if (redraw) await draw();
}

function countLayers(layers) {
  return layers.reduce((n, l) => n + 1 + countLayers(l.children || []), 0);
}

/**
 * Draws the current scene with render.svg, fetched with the key like every
 * other request: with the routed point's overlay in route mode, with the
 * page's own mark of the pointer answer in pointer mode. Renders that come
 * back after a newer one was asked for are dropped.
 */
let drawsAsked = 0;
async function draw() {
  if (!state.id) return;
  const ticket = ++drawsAsked;
  const picture = $("picture");
  if (state.layers > DRAW_LIMIT && !state.drawAnyway) {
    picture.replaceChildren();
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `Draw anyway (${state.layers} layers: the SVG runs to megabytes)`;
    b.addEventListener("click", () => { state.drawAnyway = true; draw(); });
    picture.append(b);
    setText("picture-note", "Large scene: routing works without the picture.");
    return;
  }
  const options = { regions: $("regions").checked, ...state.overlay };
  if (state.point && !state.answer) Object.assign(options, state.point);
  const text = await client.render(state.id, options);
  if (ticket !== drawsAsked) return;
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName !== "svg") throw new Error("render.svg did not parse as SVG");
  const svg = document.importNode(root, true);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `scene ${state.id}`);
  if (state.answer) markAnswer(svg, state.answer);
  paintHover(svg);
  picture.replaceChildren(svg);
  state.svg = svg;
  setText("picture-note", "");
}

/** At most one redraw per animation frame; the latest state wins (see `draw`). */
let frameAsked = 0;
function requestDraw() {
  if (frameAsked) return;
  frameAsked = requestAnimationFrame(() => {
    frameAsked = 0;
    draw().catch(showProblem);
  });
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** The elements of layer `id` in a drawn scene (its group; ids compared as text, never as a selector). */
function layerElements(svg, id) {
  return [...svg.querySelectorAll("[data-layer]")].filter((e) => e.getAttribute("data-layer") === id);
}

/**
 * Marks a pointer answer on the picture: the answering layer outlined
 * (class `pointer-target`), the point, and a label naming the same layer
 * and action as the result panel.
 */
function markAnswer(svg, r) {
  if (r.layer) for (const g of layerElements(svg, r.layer)) g.classList.add("pointer-target");
  const box = svg.viewBox.baseVal;
  const size = Math.max(box.width, box.height) / 30;
  const mark = document.createElementNS(SVG_NS, "g");
  mark.setAttribute("class", "pointer-mark");
  mark.setAttribute("pointer-events", "none");
  mark.dataset.layer = r.layer ?? "";
  const ring = document.createElementNS(SVG_NS, "circle");
  ring.setAttribute("cx", r.x); ring.setAttribute("cy", r.y); ring.setAttribute("r", size * 0.45);
  const label = document.createElementNS(SVG_NS, "text");
  const right = r.x < box.x + box.width * 0.55;
  label.setAttribute("x", r.x + (right ? 1 : -1) * size * 0.7);
  label.setAttribute("y", r.y - size * 0.7);
  label.setAttribute("font-size", size);
  if (!right) label.setAttribute("text-anchor", "end");
  label.textContent = answerLabel(r);
  mark.append(ring, label);
  svg.append(mark);
}

function answerLabel(r) {
  const name = r.layer ?? "nothing here";
  return `${name}${r.action ? " → " + r.action : ""}${r.captured ? " (captured)" : ""}`;
}

/** The scene point under a pointer event (the SVG's own coordinate system). */
function scenePoint(event) {
  const m = state.svg.getScreenCTM();
  if (!m) return null;
  const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(m.inverse());
  const round = (v) => Math.round(v * 100) / 100;
  return { x: round(p.x), y: round(p.y) };
}

function showResult(r) {
  noteVersion(r.scene, r.version);
  setText("result-point", `(${readable(r.x)}, ${readable(r.y)})`);
  setText("result-target", r.layer ?? "nothing");
  setText("result-action", r.action ? `${r.action} (on ${r.actionLayer})` : "–");
  setText("result-path", r.path ? r.path.join(" › ") : "–");
  setText("result-local", r.local ? `(${readable(r.local.x)}, ${readable(r.local.y)})` : "–");
  setText("result-captured", r.captured === undefined ? "–" : String(r.captured));
  const body = $("trace").tBodies[0];
  body.replaceChildren();
  for (const t of r.trace || []) {
    const tr = document.createElement("tr");
    tr.className = t.decision;
    for (const [cls, value] of [["", t.layer], ["decision", t.decision], ["", t.reason], ["", t.detail || ""]]) {
      const td = document.createElement("td");
      if (cls) td.className = cls;
      td.textContent = value;
      tr.append(td);
    }
    body.append(tr);
  }
  $("px").value = r.x;
  $("py").value = r.y;
  const link = `/?scene=${encodeURIComponent(state.id)}&x=${r.x}&y=${r.y}`;
  $("deep-link").href = link;
  history.replaceState(null, "", link);
}

/** Routes a point (with its trace) and redraws with its overlay. */
async function route(x, y) {
  showProblem(null);
  const r = await client.hit(state.id, x, y, { trace: true });
  state.point = { x, y };
  state.answer = null;
  showResult(r);
  await draw();
  return r;
}

/** Outlines the hovered layers on a drawn picture (class `hovered`). */
function paintHover(svg = state.svg) {
  if (!svg) return;
  for (const g of svg.querySelectorAll(".hovered")) g.classList.remove("hovered");
  for (const id of state.hovered) for (const g of layerElements(svg, id)) g.classList.add("hovered");
  setText("result-hovered", state.hovered.size ? [...state.hovered].join(", ") : "–");
}

/** Applies a `boundary` (of an answer or a push) to the hovered set. */
function applyBoundary(b) {
  if (!b) return;
  for (const id of b.leave) state.hovered.delete(id);
  for (const id of b.enter) state.hovered.add(id);
  const list = (l) => `[${l.join(", ")}]`;
  setText("result-boundary", `out ${b.out ?? "–"} · leave ${list(b.leave)} · over ${b.over ?? "–"} · enter ${list(b.enter)}` +
    (b.removed.length ? ` · removed ${list(b.removed)}` : ""));
  paintHover();
}

/**
 * Sends one event of the pointer `mouse` (with the browser's
 * `pointerType`) over the stream when it is open, else as `POST …/hit`,
 * keeping the hovered set. Resolves with the answer, or null for an answer
 * already applied.
 */
async function sendPointer(phase, p, trace) {
  const body = { trace, pointer: "mouse", phase, pointerType: state.pointerType };
  const r = viaStream() ? await state.stream.send({ x: p.x, y: p.y, ...body }) : await client.hit(state.id, p.x, p.y, body);
  if (r.seq !== undefined) {
    if (r.seq <= state.answered) return null;
    state.answered = r.seq;
  }
  if (r.scene === state.id) { noteVersion(r.scene, r.version); applyBoundary(r.boundary); }
  return r;
}

// Hovering (both modes, when "hover" is ticked): a `hover` per move with
// no button pressed and a `leave` when the pointer leaves the picture.
// Over the stream each goes out at once (the stream client replaces an
// unsent hover by the latest, and keeps the order). Over HTTP one is in
// flight at a time (the latest position wins); `hoverBusy` is the hover in
// flight: a press waits for it, since a hover the service saw after the
// `down` would let go of the capture (no button is pressed).
function queueHover(p) {
  if (viaStream()) { sendPointer("hover", p, false).catch(quiet); return; }
  if (state.hoverBusy) { state.hoverPending = p; return; }
  state.hoverBusy = sendPointer("hover", p, false).catch(showProblem).finally(() => {
    state.hoverBusy = null;
    const q = state.hoverPending;
    state.hoverPending = null;
    if (q && !state.pointerDown) queueHover(q);
  });
}

// Pointer mode: down on press, move while dragging (over HTTP one request
// in flight at a time, the latest position winning; over the stream each
// at once, coalesced by the stream client), up on release. Each answer
// redraws the picture (at most once a frame), so a drag is seen as it goes.
async function pointerPhase(phase, p) {
  const r = await sendPointer(phase, p, true);
  if (!r) return null;
  state.point = p;
  state.answer = r;
  showResult(r);
  requestDraw();
  return r;
}

function queueMove(p) {
  if (viaStream()) { pointerPhase("move", p).catch(quiet); return; }
  if (state.busy) { state.pending = p; return; }
  state.busy = pointerPhase("move", p).catch(showProblem).finally(() => {
    state.busy = null;
    if (state.pending && state.pointerDown) { const q = state.pending; state.pending = null; queueMove(q); }
  });
}

function mode() { return document.querySelector("input[name=mode]:checked").value; }

function wirePicture() {
  const picture = $("picture");
  picture.addEventListener("pointerdown", async (event) => {
    if (!state.svg || event.button !== 0) return;
    const p = scenePoint(event);
    if (!p) return;
    event.preventDefault();
    if (mode() === "route") { route(p.x, p.y).catch(showProblem); return; }
    picture.setPointerCapture(event.pointerId);
    state.pointerDown = true;
    state.pointerType = POINTER_TYPES.has(event.pointerType) ? event.pointerType : "mouse";
    state.hoverPending = null;
    const hovering = viaStream() ? null : state.hoverBusy;
    state.busy = (async () => {
      if (hovering) await hovering;
      return pointerPhase("down", p);
    })().catch(showProblem).finally(() => { state.busy = null; });
  });
  picture.addEventListener("pointermove", (event) => {
    if (!state.svg) return;
    state.pointerType = POINTER_TYPES.has(event.pointerType) ? event.pointerType : "mouse";
    if (!state.pointerDown) {
      if (!$("hover").checked || event.pointerType === "touch") return;
      const p = scenePoint(event);
      if (p) queueHover(p);
      return;
    }
    if (mode() !== "pointer") return;
    const p = scenePoint(event);
    if (p) queueMove(p);
  });
  picture.addEventListener("pointerleave", (event) => {
    if (!state.svg || state.pointerDown || !$("hover").checked || !state.hovered.size) return;
    state.hoverPending = null;
    const p = scenePoint(event);
    if (p) sendPointer("leave", p, false).catch(quiet);
  });
  const release = async (event) => {
    if (!state.pointerDown) return;
    state.pointerDown = false;
    state.pending = null;
    const p = scenePoint(event) || state.point;
    try {
      if (state.busy) await state.busy;
      await pointerPhase(event.type === "pointercancel" ? "cancel" : "up", p);
      await openScene(state.id, { redraw: false });
    } catch (e) { showProblem(e); }
  };
  picture.addEventListener("pointerup", release);
  picture.addEventListener("pointercancel", release);
}

async function upload() {
  showProblem(null);
  let scene;
  try {
    scene = JSON.parse($("editor").value);
  } catch (e) {
    showProblem(new Error(`not JSON: ${e.message}`));
    return;
  }
  const id = (scene && typeof scene.id === "string" && scene.id) || state.id || "scene";
  await client.putScene(id, scene);
  state.point = null;
  state.answer = null;
  await refreshList(id);
  await openScene(id);
}

/** A text cell (never HTML). */
function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.append(td);
  return td;
}

function listItem(list, text) {
  const li = document.createElement("li");
  li.textContent = text;
  list.append(li);
}

const round = (v) => (v === null || v === undefined ? "–" : String(Math.round(v * 100) / 100));

/** The audit: its targets in a table, its cells over the picture. */
async function audit() {
  if (!state.id) return;
  const answer = await client.audit(state.id, { standard: $("standard").value });
  const body = $("audit-targets").tBodies[0];
  body.replaceChildren();
  $("audit-why").replaceChildren();
  for (const t of answer.targets) {
    const row = document.createElement("tr");
    row.tabIndex = 0;
    row.dataset.layer = t.layer;
    cell(row, t.layer);
    cell(row, t.verdict + (t.spacing ? ` (spacing ${t.spacing})` : ""));
    cell(row, t.largestSquare ? round(t.largestSquare.side) : "–");
    cell(row, round(t.clearance));
    cell(row, t.coveredBy.map((c) => `${c.layer ?? "nothing"} ${round(c.area)}`).join(", ") || "–");
    const choose = () => why(t).catch(showProblem);
    row.addEventListener("click", choose);
    row.addEventListener("keydown", (e) => { if (e.key === "Enter") choose(); });
    body.append(row);
  }
  for (const b of answer.blockers) listItem($("audit-why"), `blocker ${b.layer}: swallows ${round(b.area)} over ${b.covers.join(", ")}`);
  state.overlay = { audit: true };
  await draw();
}

/** One target: its covered part and why-not answer listed, its reach point routed. */
async function why(target) {
  const answer = await client.reach(state.id, target.layer);
  const list = $("audit-why");
  list.replaceChildren();
  listItem(list, `${target.layer}: ${target.verdict}, area ${round(target.area)}, reach point ` +
    (target.reachPoint ? `(${round(target.reachPoint.x)}, ${round(target.reachPoint.y)})` : "none"));
  for (const c of target.coveredBy) listItem(list, `covered by ${c.layer ?? "nothing"}: ${round(c.area)}`);
  for (const l of answer.lost) {
    listItem(list, `lost to ${l.layer ?? "nothing"} (${l.reason}): ${round(l.area)}, e.g. at (${round(l.point.x)}, ${round(l.point.y)})`);
  }
  if (answer.reason) listItem(list, `never reached: ${answer.reason}`);
  if (target.reachPoint) await route(target.reachPoint.x, target.reachPoint.y);
}

/** The diff against another stored scene: its groups listed, its cells over the picture. */
async function diff() {
  const other = $("diff-select").value;
  if (!state.id || !other) return;
  const answer = await client.diff(state.id, other);
  const list = $("diff-groups");
  list.replaceChildren();
  const side = (s) => `${s.layer ?? "nothing"}${s.action ? " (" + s.action + ")" : ""}`;
  for (const g of answer.groups) listItem(list, `${side(g.from)} → ${side(g.to)}: ${round(g.area)}, e.g. at (${round(g.point.x)}, ${round(g.point.y)})`);
  if (!answer.groups.length) listItem(list, "no routing differs");
  state.overlay = { diff: other };
  await draw();
}

async function loadExample(name) {
  const response = await fetch(`/examples/${name}.json`);
  showCurl({ method: "GET", url: new URL(`/examples/${name}.json`, location.href).href });
  $("editor").value = await response.text();
  await upload();
}

async function start() {
  $("key").value = client.key;
  $("key").addEventListener("change", () => {
    client.key = $("key").value.trim();
    sessionStorage.setItem("hitroute.key", client.key);
    if (state.id) openStream(state.id);
  });
  for (const name of EXAMPLES) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `Example: ${name}`;
    b.dataset.example = name;
    b.addEventListener("click", () => loadExample(name).catch(showProblem));
    $("examples").append(b);
  }
  $("refresh").addEventListener("click", () => refreshList().catch(showProblem));
  $("scene-select").addEventListener("change", (e) => {
    if (e.target.value) { state.point = null; state.answer = null; openScene(e.target.value).catch(showProblem); }
  });
  $("upload").addEventListener("click", () => upload().catch(showProblem));
  $("reload").addEventListener("click", () => state.id && openScene(state.id).catch(showProblem));
  $("regions").addEventListener("change", () => draw().catch(showProblem));
  $("audit").addEventListener("click", () => audit().catch(showProblem));
  $("diff").addEventListener("click", () => diff().catch(showProblem));
  $("point-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const x = Number($("px").value), y = Number($("py").value);
    if (!state.id || !Number.isFinite(x) || !Number.isFinite(y)) { showProblem(new Error("choose a scene and give x and y")); return; }
    route(x, y).catch(showProblem);
  });
  wirePicture();
  const params = new URLSearchParams(location.search);
  await refreshList(params.get("scene") || "");
  const id = params.get("scene");
  if (id) {
    await openScene(id, { redraw: false });
    const x = Number(params.get("x")), y = Number(params.get("y"));
    if (params.has("x") && params.has("y") && Number.isFinite(x) && Number.isFinite(y)) await route(x, y);
    else await draw();
  }
  document.body.dataset.ready = "true";
}

start().catch((e) => { showProblem(e); document.body.dataset.ready = "true"; });

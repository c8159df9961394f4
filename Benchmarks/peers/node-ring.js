// Peer for the hitroute benchmarks: the ring-over-button scene's exact hit
// logic in plain Node (`http` + `cluster`), with hitroute's JSON shapes.
//
//   node Benchmarks/peers/node-ring.js PORT [WORKERS]
//
// Routes (any scene id answers as "ring-demo", version 1):
//   POST /scenes/{id}/hit   {"x","y","trace"}      -> hitroute's single answer
//   GET  /scenes/{id}/hit?x=&y=&trace=0            -> the same
//   POST /scenes/{id}/hits  {"points":[{x,y}...]}  -> {"scene","version","results":[...]}
//   GET  /healthz
//
// The ring scene (examples/ring-over-button.json), front to back:
//   frame  pointerEvents none          -> always skipped
//   ring   even-odd of two circles at (120,120), r 120 and 48
//   button rect 0 <= x < 240, 0 <= y < 240 (half-open, like CGRect.contains)
'use strict';
const http = require('http');
const cluster = require('cluster');

const port = Number(process.argv[2] || 18081);
const workers = Number(process.argv[3] || 1);

function route(x, y, trace) {
  const dx = x - 120, dy = y - 120;
  const d2 = dx * dx + dy * dy;
  const inOuter = d2 <= 120 * 120, inInner = d2 <= 48 * 48;
  const local = { x, y };
  const entries = trace ? [{ layer: 'frame', decision: 'skip', reason: 'pointer-events-none' }] : null;
  if (inOuter !== inInner) {
    if (trace) entries.push({ layer: 'ring', decision: 'hit', reason: 'inside', local });
    return { layer: 'ring', action: 'ring.select', local, trace: entries };
  }
  if (trace) {
    const n = (inOuter ? 1 : 0) + (inInner ? 1 : 0);
    entries.push(n > 0
      ? { layer: 'ring', decision: 'miss', reason: 'in-hole', detail: `even-odd: inside ${n} contours`, local }
      : { layer: 'ring', decision: 'miss', reason: 'outside', local });
  }
  if (x >= 0 && x < 240 && y >= 0 && y < 240) {
    if (trace) entries.push({ layer: 'button', decision: 'hit', reason: 'inside', local });
    return { layer: 'button', action: 'below.press', local, trace: entries };
  }
  if (trace) entries.push({ layer: 'button', decision: 'miss', reason: 'outside', local });
  return { layer: null, action: null, local: null, trace: entries };
}

function single(x, y, trace) {
  const r = route(x, y, trace);
  const out = {
    scene: 'ring-demo', version: 1, x, y,
    layer: r.layer, path: r.layer ? [r.layer] : null,
    action: r.action, actionLayer: r.layer, local: r.local,
  };
  if (trace) out.trace = r.trace;
  return out;
}

function send(res, status, obj) {
  const body = JSON.stringify(obj);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

function problem(res, status, detail) {
  send(res, status, { type: 'about:blank', title: 'Error', status, detail });
}

function finite(v) { return typeof v === 'number' && Number.isFinite(v); }

function handle(req, res) {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  if (path === '/healthz') return send(res, 200, { status: 'ok' });
  const m = /^\/scenes\/[A-Za-z0-9._-]+\/(hit|hits)$/.exec(path);
  if (!m) return problem(res, 404, 'no route');
  if (req.method === 'GET' && m[1] === 'hit') {
    const params = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
    const x = Number(params.get('x')), y = Number(params.get('y'));
    if (!params.has('x') || !params.has('y') || !Number.isFinite(x) || !Number.isFinite(y)) return problem(res, 422, 'x, y');
    const t = params.get('trace');
    return send(res, 200, single(x, y, !(t === '0' || t === 'false')));
  }
  if (req.method !== 'POST') return problem(res, 405, 'method');
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch (e) { return problem(res, 400, 'bad JSON'); }
    if (m[1] === 'hit') {
      if (!body || !finite(body.x) || !finite(body.y)) return problem(res, 422, 'x, y');
      return send(res, 200, single(body.x, body.y, body.trace !== false));
    }
    if (!body || !Array.isArray(body.points)) return problem(res, 422, 'points');
    const results = new Array(body.points.length);
    for (let i = 0; i < body.points.length; i++) {
      const p = body.points[i];
      if (!p || !finite(p.x) || !finite(p.y)) return problem(res, 422, `points/${i}`);
      const r = route(p.x, p.y, false);
      results[i] = { layer: r.layer, action: r.action, actionLayer: r.layer };
    }
    send(res, 200, { scene: 'ring-demo', version: 1, results });
  });
}

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork();
  const stop = () => { for (const id in cluster.workers) cluster.workers[id].kill(); process.exit(0); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  const server = http.createServer(handle);
  server.keepAliveTimeout = 15000;
  server.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}

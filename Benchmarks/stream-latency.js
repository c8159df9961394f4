// One load process of stream-latency.py: STREAMS pointer streams on one
// scene, each carrying POINTERS pointers that hover at HZ, every pointer's
// message a frame; a stream's frame is its POINTERS messages written
// together, the streams' frames spread evenly over the frame period. Each
// answer's latency is the time from the write of its message to the read of
// its answer (both in this process, monotonic clock).
//
//   NODE_PATH=/usr/share/nodejs node Benchmarks/stream-latency.js PORT SCENE STREAMS POINTERS HZ SECONDS WARMUP TAG [PHASE]
//
// PHASE is `hover` (the default: each message names its pointer) or
// `none` (plain hits, no pointer state: the transport alone).
//
// Prints one JSON line: messages sent and answered after the warm-up,
// the answers' `coalesced` total, the latencies in µs, how late the
// sending ran behind its schedule (the client keeping up or not), and the
// process's own CPU time over the measured seconds (µs).
"use strict";
const WebSocket = require("ws");

const [port, scene, streams, pointers, hz, seconds, warmup, tag, phase = "hover"] = process.argv.slice(2);
const STREAMS = +streams, POINTERS = +pointers, HZ = +hz, SECONDS = +seconds, WARMUP = +warmup;
const period = 1000 / HZ;
const url = `ws://127.0.0.1:${port}/scenes/${scene}/stream`;

const now = () => performance.now();
const sockets = [];
let opened = 0;
let t0 = 0, measureFrom = 0, stopAt = 0;
let sent = 0, answered = 0, coalesced = 0, errors = 0, lagMax = 0, pushes = 0;
// This process's own CPU over the measured window (µs), sampled at its ends.
let cpuFrom = null, cpuTo = null;
const latencies = [];

function start() {
  for (let i = 0; i < STREAMS; i++) {
    // A fixed mask: the client's own randomness is not what is measured.
    const ws = new WebSocket(url, ["hitroute.v1"], { perMessageDeflate: false, generateMask: (mask) => mask.fill(0x5a) });
    const s = { ws, i, seq: 0, sentAt: new Float64Array(1 << 16), next: 0 };
    ws.on("open", () => { if (++opened === STREAMS) run(); });
    ws.on("message", (data) => receive(s, data));
    ws.on("error", (e) => { console.error(`stream ${i}: ${e.message}`); process.exit(1); });
    sockets.push(s);
  }
}

/** The unsigned integer written at `i` in `bytes`. */
function integerAt(bytes, i) {
  let n = 0;
  for (let c = bytes[i]; c >= 48 && c <= 57; c = bytes[++i]) n = n * 10 + (c - 48);
  return n;
}

// An answer ends with `"seq":N}` or `"seq":N,"coalesced":n}`: read from the
// bytes, without decoding or parsing the JSON.
function receive(s, bytes) {
  const at = now();
  const k = bytes.lastIndexOf('"seq":');
  if (k < 0) { pushes++; return; }
  if (bytes.indexOf('{"type":"error"') === 0) { if (errors++ === 0) console.error(bytes.toString()); }
  const seq = integerAt(bytes, k + 6);
  const c = bytes.indexOf('"coalesced":', k);
  const sentAt = s.sentAt[seq & 0xffff];
  if (sentAt >= measureFrom && at < stopAt) {
    answered++;
    latencies.push(Math.round((at - sentAt) * 1000));
    if (c > 0) coalesced += integerAt(bytes, c + 12);
  }
}

function frame(s, at) {
  const t = (at - t0) / 1000;
  const socket = s.ws._socket;
  socket.cork();   // the frame's messages leave in one write
  for (let p = 0; p < POINTERS; p++) {
    // Back and forth across the ring's band and hole (y = 120), a cycle in ~1.3–2.3 s.
    const x = 120 + 115 * Math.sin(2 * Math.PI * (0.45 + 0.03 * p) * t + s.i + p);
    const seq = ++s.seq;
    s.sentAt[seq & 0xffff] = now();
    s.ws.send(phase === "none"
      ? `{"x":${x.toFixed(2)},"y":120,"trace":false,"seq":${seq}}`
      : `{"x":${x.toFixed(2)},"y":120,"pointer":"p${p}","phase":"hover","trace":false,"seq":${seq}}`);
    if (at >= measureFrom && at < stopAt) sent++;
  }
  socket.uncork();
}

function run() {
  t0 = now();
  measureFrom = t0 + WARMUP * 1000;
  stopAt = measureFrom + SECONDS * 1000;
  sockets.forEach((s, i) => { s.next = t0 + (period * i) / STREAMS; });
  const tick = () => {
    const at = now();
    if (cpuFrom === null && at >= measureFrom) cpuFrom = process.cpuUsage();
    if (cpuTo === null && at >= stopAt) cpuTo = process.cpuUsage(cpuFrom);
    if (at >= stopAt + 1000) return finish();
    // One frame per stream per turn at most: a stream that fell behind its
    // schedule sends its next frame now and skips the frames it missed, as a
    // game loop does, so that reading answers is never starved.
    for (const s of sockets) {
      if (s.next <= at && s.next < stopAt) {
        if (s.next >= measureFrom) lagMax = Math.max(lagMax, at - s.next);
        frame(s, at);
        s.next += period;
        if (s.next < at - period) s.next += Math.floor((at - s.next) / period) * period;
      }
    }
    setTimeout(tick, 1);
  };
  tick();
}

function finish() {
  for (const s of sockets) s.ws.terminate();
  const cpuUs = cpuTo ? cpuTo.user + cpuTo.system : 0;
  process.stdout.write(JSON.stringify({ tag, sent, answered, coalesced, errors, pushes, lagMaxMs: lagMax, cpuUs, latenciesUs: latencies }) + "\n", () => process.exit(0));
}

start();

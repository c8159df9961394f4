// hitroute-bench: in-process benchmarks of the core and the codecs.
//
//     swift run -c release hitroute-bench [ring]
//
// Prints medians over repeated runs; each run times a whole batch of points
// so that clock overhead does not count. Not a test: numbers, not verdicts.
import Glibc
import HitAPI
import HitJSON
import HTTPServer
import HitRouting
import TestSupport

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Median seconds per call of `body` over `runs` runs of `perRun` calls.
func measure(runs: Int = 15, perRun: Int, _ body: (Int) -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<runs {
        let t0 = now()
        for i in 0..<perRun { body(i) }
        samples.append((now() - t0) / Double(perRun))
    }
    return median(samples)
}

/// `x` with one decimal, right-aligned in `width` characters.
func fixed(_ x: Double, width: Int = 8) -> String {
    let tenths = Int((x * 10).rounded())
    let text = "\(tenths / 10).\(abs(tenths % 10))"
    return String(repeating: " ", count: max(0, width - text.count)) + text
}

/// A sink the optimiser cannot see through.
@inline(never) func consume<T>(_ x: T) { withExtendedLifetime(x) {} }

func ringScene() -> Scene {
    let ellipse = { (r: Double) in Shape(.ellipse(cx: 120, cy: 120, rx: r, ry: r)) }
    return Scene(id: "ring-demo", width: 240, height: 240, layers: [
        Layer(id: "button", action: "below.press", shape: Shape(.rect(x: 0, y: 0, width: 240, height: 240, cornerRadius: nil))),
        Layer(id: "ring", action: "ring.select", shape: Shape(.compound([ellipse(120), ellipse(48)]), fillRule: .evenodd)),
        Layer(id: "frame", shape: Shape(.rect(x: 0, y: 0, width: 240, height: 240, cornerRadius: nil), fill: false, stroke: 4),
              pointerEvents: PointerEvents.none),
    ])
}

func benchRing() {
    let scene = CompiledScene(ringScene())
    var rng = SystemRandomNumberGenerator()
    let points = (0..<4096).map { _ in Point(Double.random(in: 0..<240, using: &rng), Double.random(in: 0..<240, using: &rng)) }
    let n = points.count
    let plain = measure(perRun: 200_000) { i in consume(scene.hit(points[i % n]).target) }
    let traced = measure(perRun: 200_000) { i in consume(scene.hit(points[i % n], trace: true).trace.count) }
    print("ring scene, random points in the 240×240 canvas (median of 15 runs × 200,000 points)")
    print("  route, no trace:   \(fixed(plain * 1e9)) ns/point")
    print("  route, with trace: \(fixed(traced * 1e9)) ns/point")
}

/// The side of the square world that holds `count` polygons at the density
/// of 100,000 in 10,000² (so that scenes of every size are equally crowded).
func worldSide(_ count: Int) -> Double { 10_000 * (Double(count) / 100_000).squareRoot() }

/// The big-scene benchmark's scene: `count` star-shaped polygons of 16–64
/// vertices, radius 5–60, centred uniformly in a `world`² square, each its
/// own top-level layer (later ones on top). Coordinates have two decimals.
func polygonSceneJSON(count: Int, world: Double? = nil, seed: UInt64 = 1) -> [UInt8] {
    let world = world ?? worldSide(count)
    var rng = SplitMix64(seed: seed)
    var w = JSONWriter(capacity: count * 720)
    w.beginObject()
    w.key("id"); w.string("polygons-\(count)")
    w.key("width"); w.number(world)
    w.key("height"); w.number(world)
    w.key("layers")
    w.beginArray()
    for i in 0..<count {
        let cx = Double.random(in: 0..<world, using: &rng), cy = Double.random(in: 0..<world, using: &rng)
        let n = Int.random(in: 16...64, using: &rng)
        let radius = Double.random(in: 5...60, using: &rng)
        w.beginObject()
        w.key("id"); w.string("p\(i)")
        w.key("action"); w.string("select")
        w.key("shape")
        w.beginObject()
        w.key("type"); w.string("polygon")
        w.key("points")
        w.beginArray()
        for k in 0..<n {
            let angle = Double(k) / Double(n) * 2 * .pi
            let r = radius * Double.random(in: 0.5...1, using: &rng)
            w.beginArray()
            w.number(((cx + r * cos(angle)) * 100).rounded() / 100)
            w.number(((cy + r * sin(angle)) * 100).rounded() / 100)
            w.endArray()
        }
        w.endArray()
        w.endObject()
        w.endObject()
    }
    w.endArray()
    w.endObject()
    return w.bytes
}

/// Peak resident memory of this process so far, in bytes.
func peakRSS() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

func benchIngest(count: Int) {
    let body = polygonSceneJSON(count: count)
    let mb = Double(body.count) / 1e6
    var decodeTimes: [Double] = [], compileTimes: [Double] = []
    let rssBefore = peakRSS()
    for _ in 0..<3 {
        let t0 = now()
        let scene = try! body.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: SceneLimits()) }
        let t1 = now()
        let compiled = LiveScene(scene)
        let t2 = now()
        consume(compiled)
        decodeTimes.append(t1 - t0)
        compileTimes.append(t2 - t1)
    }
    let decode = median(decodeTimes), compile = median(compileTimes)
    print("ingest: \(count) polygons, \(fixed(mb, width: 1)) MB of JSON (median of 3)")
    print("  decode + validate: \(fixed(decode * 1000)) ms  \(fixed(mb / decode)) MB/s")
    print("  compile + index:   \(fixed(compile * 1000)) ms")
    print("  end to end:        \(fixed(mb / (decode + compile))) MB/s")
    print("  peak RSS growth:   \(fixed(Double(peakRSS() - rssBefore) / 1e6)) MB (\(fixed(Double(peakRSS() - rssBefore) / Double(body.count), width: 1))× the body)")
}

/// Routes every point; how many hit. Kept out of line so that profilers
/// (`valgrind --tool=callgrind --toggle-collect=*routeAll*`) can single it out.
@inline(never)
func routeAll(_ points: [Point], _ scene: CompiledScene) -> Int {
    var hits = 0
    for p in points where scene.hit(p).target != nil { hits += 1 }
    return hits
}

/// Big scenes in process: per-point routing time and one-layer updates.
func benchBigScene(count: Int) {
    let body = polygonSceneJSON(count: count)
    let scene = try! body.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: SceneLimits()) }
    var live = LiveScene(scene)
    var rng = SplitMix64(seed: 42)
    let side = worldSide(count)
    let points = (0..<100_000).map { _ in Point(Double.random(in: 0..<side, using: &rng), Double.random(in: 0..<side, using: &rng)) }
    var perPoint: [Double] = []
    var hits = 0
    for _ in 0..<(CommandLine.arguments.contains("--once") ? 1 : 5) {
        let t0 = now()
        hits += routeAll(points, live.compiled)
        perPoint.append((now() - t0) / Double(points.count))
    }
    if CommandLine.arguments.contains("--once") { return }
    // Per-point latency distribution (each point timed alone).
    var single: [Double] = []
    single.reserveCapacity(points.count)
    for p in points {
        let t0 = now()
        consume(live.compiled.hit(p).target)
        single.append(now() - t0)
    }
    single.sort()
    var updates: [Double] = []
    for k in 0..<21 {
        let n = (k * 7919) % count
        var layer = live.model.layers[n]
        layer.transform = .parts(TransformParts(translate: Point(Double(k), 0)))
        let t0 = now()
        live.replaceLayer(n, with: layer)
        updates.append(now() - t0)
    }
    print("big scene: \(count) polygons, 100,000 random points (\(hits / 5) hit)")
    print("  route (no trace):  \(fixed(median(perPoint) * 1e9)) ns/point median of 5 passes = \(fixed(1 / median(perPoint) / 1e6, width: 1)) M points/s")
    print("  single-point p50:  \(fixed(single[single.count / 2] * 1e9)) ns, p99 \(fixed(single[single.count * 99 / 100] * 1e9)) ns")
    print("  replace one layer: \(fixed(median(updates) * 1e6)) µs median of 21")
}

/// The API without sockets: one request through routing, decoding, the
/// router and encoding, as the server's handler sees it.
func benchAPI() {
    let app = Application(configuration: Configuration())
    let ring = Array(#"{"id":"ring-demo","layers":[{"id":"button","action":"below.press","shape":{"type":"rect","x":0,"y":0,"width":240,"height":240}},{"id":"ring","action":"ring.select","shape":{"type":"compound","fillRule":"evenodd","shapes":[{"type":"ellipse","cx":120,"cy":120,"rx":120,"ry":120},{"type":"ellipse","cx":120,"cy":120,"rx":48,"ry":48}]}},{"id":"frame","pointerEvents":"none","shape":{"type":"rect","x":2,"y":2,"width":236,"height":236,"fill":false,"stroke":4}}]}"#.utf8)
    _ = app.respond(to: HTTPRequest(method: "PUT", target: "/scenes/ring-demo", body: ring))
    func request(_ body: String) -> HTTPRequest {
        HTTPRequest(method: "POST", target: "/scenes/ring-demo/hit", headers: HTTPHeaders([("Host", "x"), ("Content-Type", "application/json")]), body: Array(body.utf8))
    }
    let plain = request(#"{"x":210,"y":120,"trace":false}"#), traced = request(#"{"x":210,"y":120}"#)
    let batchBody = "{\"points\":[" + (0..<100).map { i in "{\"x\":\(i * 2),\"y\":120}" }.joined(separator: ",") + "]}"
    let batch = HTTPRequest(method: "POST", target: "/scenes/ring-demo/hits", headers: HTTPHeaders([("Host", "x")]), body: Array(batchBody.utf8))
    let once = CommandLine.arguments.contains("--once")  // one short run, for profilers
    let runs = once ? 1 : 15
    let a = measure(runs: runs, perRun: once ? 2_000 : 50_000) { _ in consume(app.respond(to: plain).body.count) }
    let b = measure(runs: runs, perRun: once ? 2_000 : 50_000) { _ in consume(app.respond(to: traced).body.count) }
    let c = measure(runs: runs, perRun: once ? 100 : 2_000) { _ in consume(app.respond(to: batch).body.count) }
    print("API in process (no sockets), ring scene, median of 15 runs")
    print("  POST …/hit, no trace:   \(fixed(a * 1e9)) ns/request")
    print("  POST …/hit, with trace: \(fixed(b * 1e9)) ns/request")
    print("  POST …/hits, 100 points: \(fixed(c * 1e6)) µs/request = \(fixed(100 / c / 1e6, width: 1)) M points/s")
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first ?? "ring" {
case "ring": benchRing()
case "api": benchAPI()
case "big": benchBigScene(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
case "ingest": benchIngest(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
case "generate":
    let bytes = polygonSceneJSON(count: arguments.count > 1 ? Int(arguments[1])! : 100_000)
    bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(1, buffer.baseAddress! + offset, buffer.count - offset)
            guard n > 0 else { exit(1) }
            offset += n
        }
    }
default:
    print("usage: hitroute-bench ring | big [polygons] | ingest [polygons] | generate [polygons] > scene.json")
    exit(2)
}

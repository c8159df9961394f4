// hitroute-inproc: routes many points through a big scene in one process,
// on one thread, the way Benchmarks/peers/shapely_strtree.py does with
// Shapely, and prints one JSON line of figures.
//
//     hitroute-inproc SCENE.json POINTS.f64 [--runs N] [--answers OUT.i32] [--serve]
//                     [--one-by-one | --side-by-side]
//
// POINTS.f64 holds little-endian float64 pairs (x, y), as written by
// Benchmarks/harness.py. `--answers` writes, per point, the topmost layer's
// number (the `<i>` of a layer id `p<i>`) as int32, or -1 for no layer.
//
// The answer is the topmost layer, as Shapely's answer and a `/hits` entry
// give it (no local point or trace). A timed pass routes all points with
// `CompiledScene.targets(at:into:)`, as a `/hits` batch does and as Shapely's
// vectorised query takes them; with --one-by-one, with `target(at:)` point
// after point. --side-by-side alternates the two, 15 passes each, and prints
// both medians (and minimums) per point.
//
// Figures: decode (parse + validate) and compile (regions + index) times;
// the median over `runs` passes of the time per point (throughput); and
// p50 / p99 of single points routed with `target(at:)` and timed one by one
// in one extra pass (each includes one clock read, ~20–30 ns). The first
// timed pass checks its answers against the one-by-one answers.
// With --serve it loads once, prints a ready line, then does one round (an
// untimed pass, a timed pass and a one-by-one pass) per line read from stdin,
// so that run.sh can interleave its rounds with Shapely's. The untimed pass
// brings the scene back into cache and TLB after the other workers' rounds,
// as Shapely's round does by building its tree before it queries.
import Glibc
import HitAPI
import HitRouting

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func nanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func fail(_ message: String) -> Never {
    let line = Array("hitroute-inproc: \(message)\n".utf8)
    _ = line.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

func readFile(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { fail("cannot open \(path)") }
    defer { fclose(f) }
    fseek(f, 0, SEEK_END)
    let size = ftell(f)
    fseek(f, 0, SEEK_SET)
    var bytes = [UInt8](repeating: 0, count: size)
    let n = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, f) }
    guard n == size else { fail("short read of \(path)") }
    return bytes
}

@inline(never) func consume<T>(_ x: T) { withExtendedLifetime(x) {} }

var args = Array(CommandLine.arguments.dropFirst())
var runs = 5
var answersPath: String?
var serve = false
var oneByOne = false
var sideBySide = false
var positional: [String] = []
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--runs": runs = Int(args.removeFirst()) ?? 5
    case "--answers": answersPath = args.removeFirst()
    case "--serve": serve = true
    case "--one-by-one": oneByOne = true
    case "--side-by-side": sideBySide = true
    default: positional.append(a)
    }
}
guard positional.count == 2 else { fail("usage: hitroute-inproc SCENE.json POINTS.f64 [--runs N] [--answers OUT.i32]") }

let body = readFile(positional[0])
let raw = readFile(positional[1])
let points: [Point] = raw.withUnsafeBytes { buf in
    let d = buf.bindMemory(to: Double.self)
    return (0..<d.count / 2).map { Point(d[2 * $0], d[2 * $0 + 1]) }
}

var limits = SceneLimits()
limits.maxLayers = 10_000_000
let t0 = now()
let scene: Scene
do {
    scene = try body.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: limits) }
} catch {
    fail("decode: \(error)")
}
let t1 = now()
let live = LiveScene(scene)
let t2 = now()
let compiled = live.compiled

func countVertices(_ layers: [Layer]) -> Int {
    var n = 0
    for l in layers {
        for s in [l.shape, l.hitShape] {
            if let s, case .polygon(let pts) = s.geometry { n += pts.count }
        }
        n += countVertices(l.children ?? [])
    }
    return n
}
let vertices = countVertices(scene.layers)

/// Routes every point once, back to back: seconds for the pass.
func throughputPass(oneByOne: Bool) -> Double {
    let s = now()
    if oneByOne {
        for p in points { consume(compiled.target(at: p)) }
    } else {
        points.withUnsafeBufferPointer { points in
            batchAnswers.withUnsafeMutableBufferPointer { compiled.targets(at: points, into: $0) }
        }
    }
    return now() - s
}

/// Routes every point once, each timed alone: sorted nanoseconds.
func latencyPass() -> [UInt64] {
    var single = [UInt64](repeating: 0, count: points.count)
    for (i, p) in points.enumerated() {
        let s = nanos()
        consume(compiled.target(at: p))
        single[i] = nanos() - s
    }
    single.sort()
    return single
}

func figures(pass: Double, single: [UInt64]) -> String {
    "\"pass_s\":\(pass),\"points_per_s\":\(Double(points.count) / pass),\"mean_ns\":\(pass / Double(points.count) * 1e9),"
        + "\"p50_ns\":\(single[single.count / 2]),\"p99_ns\":\(single[single.count * 99 / 100]),\"max_ns\":\(single.last ?? 0)"
}

// Warm-up pass, which also gives the answers.
var answers = [Int32](repeating: -1, count: points.count)
for (i, p) in points.enumerated() {
    if let t = compiled.target(at: p) {
        let id = compiled.ids[t]
        answers[i] = id.hasPrefix("p") ? Int32(id.dropFirst()) ?? -2 : -2
    }
}
let hitsCount = answers.filter { $0 >= 0 }.count
if let answersPath {
    guard let f = fopen(answersPath, "wb") else { fail("cannot write \(answersPath)") }
    _ = answers.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
    fclose(f)
}
let info = "\"layers\":\(compiled.layerCount),\"vertices\":\(vertices),\"body_bytes\":\(body.count),"
    + "\"points\":\(points.count),\"hits\":\(hitsCount),\"decode_s\":\(t1 - t0),\"compile_s\":\(t2 - t1)"

// The batch's answers are the one-by-one answers.
nonisolated(unsafe) var batchAnswers = [Int32](repeating: -1, count: points.count)
_ = throughputPass(oneByOne: false)
for (i, p) in points.enumerated() where batchAnswers[i] != Int32(compiled.target(at: p) ?? -1) {
    fail("point \(i): the batch answers \(batchAnswers[i]), target(at:) \(compiled.target(at: p) ?? -1)")
}

if sideBySide {
    var single: [Double] = [], batch: [Double] = []
    for _ in 0..<15 {
        single.append(throughputPass(oneByOne: true) / Double(points.count) * 1e9)
        batch.append(throughputPass(oneByOne: false) / Double(points.count) * 1e9)
    }
    print("{\(info),\"one_by_one_ns\":\(median(single)),\"one_by_one_min_ns\":\(single.min()!),"
        + "\"batch_ns\":\(median(batch)),\"batch_min_ns\":\(batch.min()!)}")
    exit(0)
}
if serve {
    print("{\(info),\"ready\":true}")
    fflush(nil)
    while let line = readLine() {
        if line.isEmpty { continue }
        _ = throughputPass(oneByOne: oneByOne)
        let pass = throughputPass(oneByOne: oneByOne)
        print("{\(figures(pass: pass, single: latencyPass()))}")
        fflush(nil)
    }
} else {
    var passes: [Double] = []
    for _ in 0..<max(1, runs) { passes.append(throughputPass(oneByOne: oneByOne)) }
    print("{\(info),\"runs\":\(passes.count),\(figures(pass: median(passes), single: latencyPass()))}")
}

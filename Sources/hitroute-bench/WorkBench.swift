// `hitroute-bench work [name…]`: CPU nanoseconds per unit of routing work
// (`Walk.work`, what --max-batch-work counts) on the costliest shapes we
// can build, so that the limit's default bounds a batch to about a second.
import Foundation
import Glibc
import HitAPI
import HitRouting
import SceneCodec
import TestSupport

/// One costly scene and the points a batch sends it.
struct WorkCase {
    let name: String
    let json: String
    let points: [Point]
}

/// This thread's CPU time in seconds.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func workCases(only: Set<String>) -> [WorkCase] {
    var rng = SplitMix64(seed: 2026)
    func r(_ a: Double, _ b: Double) -> Double { (Double.random(in: a..<b, using: &rng) * 100).rounded() / 100 }
    func randomPoints(_ n: Int, _ lo: Double, _ hi: Double) -> [Point] { (0..<n).map { _ in Point(r(lo, hi), r(lo, hi)) } }
    func layer(_ id: String, _ shape: String, extra: String = "") -> String {
        #"{"id":"\#(id)"\#(extra),"shape":\#(shape)}"#
    }
    func scene(_ layers: [String]) -> String { #"{"layers":["# + layers.joined(separator: ",") + "]}" }
    var cases: [WorkCase] = []
    func add(_ name: String, _ make: () -> (String, [Point])) {
        guard only.isEmpty || only.contains(name) else { return }
        let (json, points) = make()
        cases.append(WorkCase(name: name, json: json, points: points))
    }
    let subpaths = String(repeating: "M0 0h10v10h-10z", count: 20_000)
    add("subpaths-evenodd") {
        (scene([layer("p", #"{"type":"path","d":"\#(subpaths)","fillRule":"evenodd"}"#)]), Array(repeating: Point(5, 5), count: 200))
    }
    add("subpaths-nonzero") {
        (scene([layer("p", #"{"type":"path","d":"\#(subpaths)"}"#)]), Array(repeating: Point(5, 5), count: 200))
    }
    add("subpaths-stroke") {
        (scene([layer("p", #"{"type":"path","d":"\#(subpaths)","fill":false,"stroke":2}"#)]), Array(repeating: Point(10.5, 5), count: 200))
    }
    add("subpaths-slop") {
        (
            scene([layer("p", #"{"type":"path","d":"\#(subpaths)","fillRule":"evenodd"}"#, extra: #","hitSlop":20"#)]),
            Array(repeating: Point(25, 5), count: 200)
        )
    }
    add("curves") {
        var d = "M 500 500"
        for _ in 0..<99_999 { d += " C \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000))" }
        return (scene([layer("p", #"{"type":"path","d":"\#(d)"}"#)]), randomPoints(200, 0, 1000))
    }
    add("curves-slop") {
        var d = "M 500 500"
        for _ in 0..<99_999 { d += " C \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000)) \(r(0, 1000))" }
        return (
            scene([layer("p", #"{"type":"path","d":"\#(d)","fill":false,"stroke":1}"#, extra: #","hitSlop":30"#)]),
            randomPoints(200, 0, 1000)
        )
    }
    add("polygon") {
        let pts = (0..<100_000).map { _ in "[\(r(0, 1000)),\(r(0, 1000))]" }.joined(separator: ",")
        return (scene([layer("p", #"{"type":"polygon","points":[\#(pts)]}"#)]), randomPoints(200, 0, 1000))
    }
    add("long-edges") {
        // A zigzag whose 100,000 edges each span the whole height: every
        // ray from a point in the middle crosses half of them.
        let pts = (0..<100_000).map { i in "[\(Double(i) * 0.01),\(i % 2 == 0 ? 0 : 1000)]" }.joined(separator: ",")
        return (scene([layer("p", #"{"type":"polygon","points":[\#(pts)]}"#)]), (0..<200).map { _ in Point(r(0, 1000), r(400, 600)) })
    }
    add("stacked-zigzags") {
        var layers: [String] = []
        for i in 0..<8_000 {
            let pts = (0..<66).map { k in "[\(k % 2 == 0 ? 0 : 1000),\(Double(k) * 1000 / 65)]" }.joined(separator: ",")
            layers.append(layer("z\(i)", #"{"type":"polygon","points":[\#(pts)]}"#))
        }
        return (scene(layers), randomPoints(200, 0, 1000))
    }
    add("stacked-frames") {
        // 150,000 frames (a square with a square hole) stacked over the
        // picture: a point in the hole is inside every layer's bounds and
        // reads every layer's region.
        var layers = (0..<150_000).map { i in
            layer("f\(i)", #"{"type":"path","fillRule":"evenodd","d":"M0 0h1000v1000h-1000z M1 1h998v998h-998z"}"#)
        }
        layers.append(layer("far", #"{"type":"rect","x":100000,"y":100000,"width":1,"height":1}"#))
        return (scene(layers), randomPoints(200, 2, 998))
    }
    add("bars") {
        var layers: [String] = []
        for i in 0..<30 {
            var d = ""
            for k in 0..<19_000 { d += "M\(Double(k) * 0.05) 0h0.01v1000h-0.01z" }
            layers.append(layer("b\(i)", #"{"type":"path","d":"\#(d)"}"#))
        }
        return (scene(layers), randomPoints(200, 0, 950))
    }
    add("deep-tree") {
        // 62 levels (the depth limit is 64), each a group of 3,000
        // frames around one child group, the point in every hole, each
        // level rotated a little.
        func level(_ depth: Int) -> String {
            var children = (0..<3_000).map { i in
                layer("d\(depth)-\(i)", #"{"type":"path","fillRule":"evenodd","d":"M0 0h1000v1000h-1000z M1 1h998v998h-998z"}"#)
            }
            if depth < 61 { children.append(level(depth + 1)) }
            return #"{"id":"g\#(depth)","transform":{"rotate":0.001},"children":["# + children.joined(separator: ",") + "]}"
        }
        return (#"{"layers":["# + level(0) + "]}", randomPoints(200, 100, 900))
    }
    add("mask-stroke") {
        // A 2048² checkerboard: every pixel edge is a contour edge.
        let side = 2048
        var alpha = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side { for x in 0..<side where (x + y) % 2 == 0 { alpha[y * side + x] = 255 } }
        let b64 = Data(alpha).base64EncodedString()
        return (
            scene([
                layer(
                    "m",
                    #"{"type":"mask","x":0,"y":0,"width":1000,"height":1000,"columns":\#(side),"rows":\#(side),"alpha":"\#(b64)","fill":false,"stroke":400}"#
                )
            ]),
            randomPoints(200, 0, 1000)
        )
    }
    add("mask-slop") {
        let side = 4096
        var alpha = [UInt8](repeating: 0, count: side * side)
        for y in stride(from: 0, to: side, by: 7) { for x in stride(from: 0, to: side, by: 7) { alpha[y * side + x] = 255 } }
        let b64 = Data(alpha).base64EncodedString()
        return (
            scene([
                layer(
                    "m", #"{"type":"mask","x":0,"y":0,"width":1000,"height":1000,"columns":\#(side),"rows":\#(side),"alpha":"\#(b64)"}"#,
                    extra: #","hitSlop":400"#)
            ]),
            randomPoints(200, 0, 1000)
        )
    }
    return cases
}

/// Per case: work per point, CPU ns per point and per unit of work.
func benchWork(names: [String]) {
    var limits = SceneLimits()
    limits.maxMaskPixels = 1 << 24
    limits.maxSceneMaskPixels = 1 << 25
    print("case                 points  work/point   ns/point   ns/unit   compile s")
    var worst = 0.0
    for c in workCases(only: Set(names)) {
        let t0 = threadCPUSeconds()
        let decoded: Scene
        do {
            decoded = try Array(c.json.utf8).withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: limits) }
        } catch {
            print("\(c.name): \(error)")
            continue
        }
        let live = LiveScene(decoded)
        let compile = threadCPUSeconds() - t0
        if let problem = live.compiled.numericProblem {
            print("\(c.name): \(problem)")
            continue
        }
        var targets = [Int32](repeating: -1, count: c.points.count)
        var best = Double.infinity
        var work = 0
        for _ in 0..<3 {
            let start = threadCPUSeconds()
            work = targets.withUnsafeMutableBufferPointer { t in
                c.points.withUnsafeBufferPointer { live.compiled.targets(at: $0, into: t, workLimit: .max) }
            }
            best = min(best, threadCPUSeconds() - start)
        }
        let perPoint = Double(work) / Double(c.points.count)
        let nsPerUnit = work > 0 ? best * 1e9 / Double(work) : 0
        worst = max(worst, nsPerUnit)
        func col(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        print(
            c.name.padding(toLength: 20, withPad: " ", startingAt: 0)
                + col("\(c.points.count)", 7) + col(String(format: "%.0f", perPoint), 12)
                + col(String(format: "%.0f", best * 1e9 / Double(c.points.count)), 11) + col(String(format: "%.2f", nsPerUnit), 10)
                + col(String(format: "%.2f", compile), 12))
    }
    print(String(format: "worst: %.2f ns per unit: 1 s of CPU is %.0f units", worst, worst > 0 ? 1e9 / worst : 0))
}

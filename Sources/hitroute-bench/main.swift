// hitroute-bench: in-process benchmarks of the core and the codecs.
//
//     swift run -c release hitroute-bench [ring]
//
// Prints medians over repeated runs; each run times a whole batch of points
// so that clock overhead does not count. Not a test: numbers, not verdicts.
import Glibc
import HitAPI
import HitJSON
import HitRouting

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

let mode = CommandLine.arguments.dropFirst().first ?? "ring"
switch mode {
case "ring": benchRing()
default:
    print("usage: hitroute-bench [ring]")
    exit(2)
}

// `hitroute-bench ring`: the SPEC's reference scene, point by point.
import HitRouting

func ringScene() -> Scene {
    let ellipse = { (r: Double) in Shape(.ellipse(cx: 120, cy: 120, rx: r, ry: r)) }
    return Scene(
        id: "ring-demo", width: 240, height: 240,
        layers: [
            Layer(id: "button", action: "below.press", shape: Shape(.rect(x: 0, y: 0, width: 240, height: 240, cornerRadius: nil))),
            Layer(id: "ring", action: "ring.select", shape: Shape(.compound([ellipse(120), ellipse(48)]), fillRule: .evenodd)),
            Layer(
                id: "frame", shape: Shape(.rect(x: 0, y: 0, width: 240, height: 240, cornerRadius: nil), fill: false, stroke: 4),
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

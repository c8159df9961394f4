// `hitroute-bench big N`: routing and one-layer updates in a big scene.
import HitAPI
import HitRouting
import SceneCodec
import TestSupport

/// Routes every point; how many hit. Kept out of line so that profilers
/// (`valgrind --tool=callgrind --toggle-collect=*routeAll*`) can single it out.
@inline(never)
func routeAll(_ points: [Point], _ scene: CompiledScene) -> Int {
    var hits = 0
    for p in points where scene.target(at: p) != nil { hits += 1 }
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
        consume(live.compiled.target(at: p))
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
    print(
        "  route (no trace):  \(fixed(median(perPoint) * 1e9)) ns/point median of 5 passes = \(fixed(1 / median(perPoint) / 1e6, width: 1)) M points/s"
    )
    print("  single-point p50:  \(fixed(single[single.count / 2] * 1e9)) ns, p99 \(fixed(single[single.count * 99 / 100] * 1e9)) ns")
    print("  replace one layer: \(fixed(median(updates) * 1e6)) µs median of 21")
}

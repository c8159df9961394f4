// `hitroute-bench render N`: writing the SVG of a big scene (SPEC §7).
import HitAPI
import HitRender
import HitRouting

/// Renders the `count`-polygon scene five times; prints its size, the
/// median time and MB/s (10⁶ bytes per second), plain and with a routed
/// point's overlay and `regions=1`.
func benchRender(count: Int) {
    let body = polygonSceneJSON(count: count)
    let scene = try! body.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: SceneLimits()) }
    let live = LiveScene(scene)
    let side = worldSide(count)
    let centre = Point(side / 2, side / 2)
    let cases: [(String, RenderOptions)] = [
        ("plain", RenderOptions()),
        ("x,y + regions=1", RenderOptions(routed: (centre, live.compiled.hit(centre, trace: true)), regions: true)),
    ]
    print("render.svg of \(count) polygons (\(body.count / 1_000_000) MB of scene JSON)")
    for (name, options) in cases {
        var seconds: [Double] = []
        var size = 0
        for _ in 0..<5 {
            let t0 = now()
            let svg = SceneRenderer.render(live, id: "polygons", version: 1, options: options)
            seconds.append(now() - t0)
            size = svg.count
            consume(svg)
        }
        let t = median(seconds)
        print("  \(name): \(size) bytes in \(fixed(t * 1000)) ms (median of 5) = \(fixed(Double(size) / t / 1e6)) MB/s")
    }
}

import Glibc
// `hitroute-bench render N`: writing the SVG of a big scene (SPEC §7).
import HitAPI
import HitRender
import HitRouting
import SceneCodec

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
        var cpu: [Double] = []
        var size = 0
        for _ in 0..<5 {
            let t0 = now()
            let c0 = threadCPUTime()
            let svg = SceneRenderer.render(live, id: "polygons", version: 1, options: options)
            seconds.append(now() - t0)
            cpu.append(threadCPUTime() - c0)
            size = svg.count
            consume(svg)
        }
        let t = median(seconds)
        let c = median(cpu)
        print(
            "  \(name): \(size) bytes in \(fixed(t * 1000)) ms wall = \(fixed(Double(size) / t / 1e6)) MB/s; "
                + "\(fixed(c * 1000)) ms of CPU = \(fixed(Double(size) / c / 1e6)) MB/s (medians of 5)")
    }
}

/// Seconds of CPU this thread has used (unaffected by waiting for a core on a shared machine).
func threadCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

// `hitroute-bench memory N`: where the memory of an ingested scene goes.
import CEpoll
import Glibc
import HitAPI
import HitRouting
import SceneCodec

/// Bytes malloc has handed out and not taken back (arenas and mmapped blocks).
func heapInUse() -> Int {
    let m = mallinfo2()
    return Int(m.uordblks) + Int(m.hblkhd)
}

func benchMemory(count: Int) {
    var body: [UInt8]? = polygonSceneJSON(count: count)
    let size = body!.count
    malloc_trim(0)
    let heap0 = heapInUse()
    let rss0 = residentMemory().current
    func report(_ stage: String) {
        let heap = heapInUse()
        let rss = residentMemory().current
        print(
            "  \(stage.padding(toLength: 34, withPad: " ", startingAt: 0)) heap \(fixed(Double(heap - heap0) / 1_048_576)) MiB   RSS \(fixed(Double(rss - rss0) / 1_048_576)) MiB"
        )
    }
    print("memory: \(count) polygons, \(size) bytes of JSON (growth over the body)")
    let scene = try! body!.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: SceneLimits()) }
    report("decoded model")
    var vertices = 0
    var heapPoints = 0
    for layer in scene.layers {
        if case .polygon(let points)? = layer.shape?.geometry {
            vertices += points.count
            heapPoints += points.capacity * 16 + 32
        }
    }
    print(
        "  vertices \(vertices), points arrays' capacity \(fixed(Double(heapPoints) / 1_048_576)) MiB, layers capacity \(scene.layers.capacity)"
    )
    body = nil
    report("body released")
    let live = LiveScene(scene)
    report("compiled (model + compiled)")
    var t = now()
    malloc_trim(0)
    report("after malloc_trim(0), \(fixed((now() - t) * 1000, width: 1)) ms")
    t = now()
    malloc_trim(0)
    print("  malloc_trim(0) again: \(fixed((now() - t) * 1000, width: 1)) ms")
    consume(live)
    consume(scene)
}

// The big-scene benchmarks' seeded scene.
import Glibc
import HitJSON
import TestSupport

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
    w.key("id")
    w.string("polygons-\(count)")
    w.key("width")
    w.number(world)
    w.key("height")
    w.number(world)
    w.key("layers")
    w.beginArray()
    for i in 0..<count {
        let cx = Double.random(in: 0..<world, using: &rng)
        let cy = Double.random(in: 0..<world, using: &rng)
        let n = Int.random(in: 16...64, using: &rng)
        let radius = Double.random(in: 5...60, using: &rng)
        w.beginObject()
        w.key("id")
        w.string("p\(i)")
        w.key("action")
        w.string("select")
        w.key("shape")
        w.beginObject()
        w.key("type")
        w.string("polygon")
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
    return w.finish()
}

// `hitroute-bench mask`: routing on masked layers against rectangles of the
// same size, and the memory a mask pixel takes.
import Glibc
import HitRouting

/// A `side × side` mask over a 240 × 240 square at the origin: a disk of
/// opaque pixels (alpha 255) in transparent ones, about 79% opaque.
func diskMask(side: Int, threshold: Double? = nil) -> Shape {
    var alpha = [UInt8](repeating: 0, count: side * side)
    let c = Double(side) / 2
    for j in 0..<side {
        for i in 0..<side {
            let dx = Double(i) + 0.5 - c
            let dy = Double(j) + 0.5 - c
            if dx * dx + dy * dy < c * c { alpha[j * side + i] = 255 }
        }
    }
    let plane = AlphaPlane(columns: side, rows: side, alpha: alpha)!
    return Shape(.mask(Mask(x: 0, y: 0, width: 240, height: 240, threshold: threshold, source: .alpha, image: plane)))
}

func benchMask() {
    var rng = SystemRandomNumberGenerator()
    let points = (0..<4096).map { _ in Point(Double.random(in: -10..<250, using: &rng), Double.random(in: -10..<250, using: &rng)) }
    let n = points.count
    func one(_ shape: Shape, slop: HitSlop? = nil) -> CompiledScene {
        CompiledScene(
            Scene(layers: [
                Layer(id: "below", shape: Shape(.rect(x: -1e4, y: -1e4, width: 2e4, height: 2e4, cornerRadius: nil))),
                Layer(id: "top", shape: shape, hitSlop: slop),
            ]))
    }
    var stroked = diskMask(side: 256)
    stroked.stroke = 4
    let cases: [(String, CompiledScene)] = [
        ("rect 240×240", one(Shape(.rect(x: 0, y: 0, width: 240, height: 240, cornerRadius: nil)))),
        ("ellipse r 120", one(Shape(.ellipse(cx: 120, cy: 120, rx: 120, ry: 120)))),
        ("mask 256×256", one(diskMask(side: 256))),
        ("mask 256×256, hitSlop 4", one(diskMask(side: 256), slop: .uniform(4))),
        ("mask 256×256, stroke 4", one(stroked)),
        ("mask 4096×4096", one(diskMask(side: 4096))),
    ]
    print("one layer over a covering rect, random points in 260×260 (median of 15 runs × 200,000 points)")
    print("  \("layer".padding(toLength: 26, withPad: " ", startingAt: 0))  target(at:)   hit(trace:)  ns/point")
    for (name, scene) in cases {
        let plain = measure(perRun: 200_000) { i in consume(scene.target(at: points[i % n])) }
        let traced = measure(perRun: 200_000) { i in consume(scene.hit(points[i % n], trace: true).trace.count) }
        print(
            "  \(name.padding(toLength: 26, withPad: " ", startingAt: 0))  \(fixed(plain * 1e9, width: 10))  \(fixed(traced * 1e9, width: 12))"
        )
    }
    // The stroke's worst case: a 2048 × 2048 opaque field with a transparent
    // hole of radius 1000 pixels, a stroke reaching 998 of them, points near
    // the centre (every row within reach must be asked, and none answers).
    var holeAlpha = [UInt8](repeating: 255, count: 2048 * 2048)
    for j in 0..<2048 {
        for i in 0..<2048 {
            let dx = Double(i) + 0.5 - 1024
            let dy = Double(j) + 0.5 - 1024
            if dx * dx + dy * dy < 1000 * 1000 { holeAlpha[j * 2048 + i] = 0 }
        }
    }
    let holed = Shape(
        .mask(
            Mask(
                x: 0, y: 0, width: 2048, height: 2048, source: .alpha,
                image: AlphaPlane(columns: 2048, rows: 2048, alpha: holeAlpha)!)), stroke: 2 * 998)
    let worst = one(holed)
    let near = (0..<64).map { k in Point(1024 + Double(k) * 0.1, 1024 - Double(k) * 0.1) }
    let worstTime = measure(runs: 7, perRun: 2_000) { i in consume(worst.target(at: near[i % near.count])) }
    print("  \("stroke, worst case".padding(toLength: 26, withPad: " ", startingAt: 0))  \(fixed(worstTime * 1e9, width: 10)) ns/point")
    // Many siblings: 40 × 40 tiles of 24 × 24, each a rect or a 32 × 32 mask.
    func tiles(_ shape: (Double, Double) -> Shape) -> CompiledScene {
        CompiledScene(
            Scene(
                layers: (0..<1600).map { k in
                    let x = Double(k % 40) * 24
                    let y = Double(k / 40) * 24
                    return Layer(id: "t\(k)", shape: shape(x, y))
                }))
    }
    let tile = diskMask(side: 32)
    guard case .mask(let m) = tile.geometry else { return }
    let rects = tiles { x, y in Shape(.rect(x: x, y: y, width: 24, height: 24, cornerRadius: nil)) }
    let masks = tiles { x, y in Shape(.mask(Mask(x: x, y: y, width: 24, height: 24, source: .alpha, image: m.image))) }
    let field = (0..<4096).map { _ in Point(Double.random(in: 0..<960, using: &rng), Double.random(in: 0..<960, using: &rng)) }
    print("1,600 sibling tiles (a sibling grid), random points over them")
    for (name, scene) in [("rect tiles", rects), ("32×32 mask tiles", masks)] {
        let plain = measure(perRun: 200_000) { i in consume(scene.target(at: field[i % n])) }
        print("  \(name.padding(toLength: 26, withPad: " ", startingAt: 0))  \(fixed(plain * 1e9, width: 10)) ns/point")
    }
    // Memory per mask pixel: heap growth of compiling a 4096 × 4096 mask.
    for slop in [nil, HitSlop.uniform(1)] {
        var shape: Shape? = diskMask(side: 4096)
        let before = heapInUse()
        let scene = Scene(layers: [Layer(id: "m", shape: shape!, hitSlop: slop)])
        shape = nil
        let compiled = CompiledScene(scene)
        let after = heapInUse()
        let pixels = Double(4096 * 4096)
        print(
            "4096×4096 mask\(slop == nil ? "" : " with hitSlop"): model + compiled \(fixed(Double(after - before + 4096 * 4096) / pixels, width: 1)) bytes/pixel (alpha plane shared)"
        )
        consume(compiled)
        consume(scene)
    }
}

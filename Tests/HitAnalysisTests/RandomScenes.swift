import HitRouting
import TestSupport

/// Small random scenes with every participation rule: nested groups under
/// transforms, clips, pass-through, hidden and transparent layers,
/// `children-only` and `self-only`, strokes and slop, actions on some
/// layers and not others, equal and unequal zIndex.
struct RandomScenes {
    var rng: SplitMix64
    var next = 0

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    mutating func shape() -> Shape? {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return nil
        case 1: return Shape(.rect(x: r(0, 80), y: r(0, 80), width: r(0, 50), height: r(0, 50), cornerRadius: chance(0.2) ? r(0, 10) : nil))
        case 2: return Shape(.ellipse(cx: r(10, 90), cy: r(10, 90), rx: r(2, 40), ry: r(2, 40)), stroke: chance(0.3) ? r(0, 6) : nil)
        case 3:
            let points = (0..<Int.random(in: 3...6, using: &rng)).map { _ in Point(r(0, 100), r(0, 100)) }
            return Shape(.polygon(points), fillRule: chance(0.5) ? .evenodd : nil)
        case 4:
            return Shape(
                .compound([
                    Shape(.ellipse(cx: 50, cy: 50, rx: r(20, 50), ry: r(20, 50))),
                    Shape(.ellipse(cx: 50, cy: 50, rx: r(5, 18), ry: r(5, 18))),
                ]), fillRule: .evenodd)
        default:
            return Shape(
                .rect(x: r(0, 60), y: r(0, 60), width: r(5, 60), height: r(5, 60), cornerRadius: nil),
                fill: chance(0.8), stroke: chance(0.4) ? r(0, 8) : nil)
        }
    }

    mutating func layer(depth: Int) -> Layer {
        next += 1
        var l = Layer(id: "L\(next)", action: chance(0.55) ? "a\(Int.random(in: 0..<4, using: &rng))" : nil, shape: shape())
        if chance(0.15) { l.hitSlop = .uniform(r(0, 6)) }
        if chance(0.4) {
            l.transform = .parts(
                TransformParts(
                    translate: Point(r(-20, 20), r(-20, 20)), rotate: chance(0.5) ? r(-45, 45) : nil,
                    scale: chance(0.4) ? .xy(r(0.5, 1.5), r(0.5, 1.5)) : nil, origin: chance(0.3) ? Point(50, 50) : nil))
        }
        if chance(0.04) { l.transform = .matrix(Affine(a: 1, b: 2, c: 0.5, d: 1, e: 0, f: 0)) }  // singular
        if chance(0.3) { l.zIndex = Double(Int.random(in: -1...1, using: &rng)) }
        if chance(0.2) { l.pointerEvents = [PointerEvents.none, .childrenOnly, .selfOnly, .auto].randomElement(using: &rng)! }
        if chance(0.07) { l.hidden = true }
        if chance(0.05) { l.opacity = 0.005 }
        if chance(0.15) { l.clipChildren = true }
        if chance(0.15) { l.passThrough = true }
        if depth < 3, chance(0.35) {
            l.children = (0..<Int.random(in: 1...4, using: &rng)).map { _ in layer(depth: depth + 1) }
        }
        return l
    }

    mutating func scene() -> Scene {
        Scene(layers: (0..<Int.random(in: 1...12, using: &rng)).map { _ in layer(depth: 0) })
    }

    /// A region around the scene's square and a resolution giving at most
    /// about 40 × 40 samples.
    mutating func grid() -> GridChoice {
        GridChoice(x: r(-20, 40), y: r(-20, 40), width: r(0, 120), height: r(0, 120), resolution: r(3, 9))
    }
}

struct GridChoice {
    var x: Double, y: Double, width: Double, height: Double, resolution: Double
}

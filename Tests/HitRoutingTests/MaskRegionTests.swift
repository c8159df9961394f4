import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// A mask shape over `x, y, width, height` with the given bytes.
func maskShape(
    _ x: Double, _ y: Double, _ width: Double, _ height: Double, columns: Int, rows: Int, _ alpha: [UInt8],
    threshold: Double? = nil, fill: Bool? = nil, stroke: Double? = nil
) -> Shape {
    let plane = AlphaPlane(columns: columns, rows: rows, alpha: alpha)!
    return Shape(
        .mask(Mask(x: x, y: y, width: width, height: height, threshold: threshold, source: .alpha, image: plane)),
        fill: fill, stroke: stroke)
}

/// Whether `alpha ≥ t × 255` holds exactly (t's double value, no rounding):
/// an oracle independent of `Mask.minimumOpaqueAlpha`, in 128-bit integers.
func exactlyReaches(_ alpha: Int, _ t: Double) -> Bool {
    if t == 0 { return true }
    if t < 1e-20 { return alpha > 0 }  // 255·t < 1: every alpha but 0 reaches it
    // t = significand · 2^exponent with an integral significand.
    let bits = t.significandWidth
    let m = UInt128(t.significandBitPattern | (1 << 52)) >> UInt128(52 - max(bits, 0))
    let e = Int(t.exponent) - max(bits, 0)  // t = m · 2^e, e < 0 here
    precondition(e < 100 && -e < 100)
    return e >= 0 ? UInt128(alpha) >= 255 * m << UInt128(e) : UInt128(alpha) << UInt128(-e) >= 255 * m
}

final class MaskRegionTests: XCTestCase {
    /// 16 × 16 pixels, alpha = column + 16 · row: every value 0…255 once.
    let ramp = (0..<256).map { UInt8($0) }

    func testTheOracleAgreesOnPlainCases() {
        XCTAssertTrue(exactlyReaches(128, 0.5))
        XCTAssertFalse(exactlyReaches(127, 0.5))
        XCTAssertTrue(exactlyReaches(255, 1))
        XCTAssertFalse(exactlyReaches(254, 1))
        XCTAssertTrue(exactlyReaches(0, 0))
    }

    func testMinimumAlphaIsTheExactCeiling() {
        var thresholds: [Double] = [0, 1, 0.5, 0.25, 0.75, 1e-300, 5e-324, 1.0.nextDown]
        for k in 0...255 {
            let t = Double(k) / 255
            thresholds += [t, t.nextUp, t.nextDown].filter { $0 >= 0 && $0 <= 1 }
        }
        for t in thresholds {
            let minimum = Mask.minimumOpaqueAlpha(threshold: t)
            for a in 0...255 {
                XCTAssertEqual(a >= minimum, exactlyReaches(a, t), "threshold \(t) alpha \(a)")
            }
        }
        XCTAssertEqual(Mask.minimumOpaqueAlpha(threshold: 0.5), 128)
        XCTAssertEqual(Mask.minimumOpaqueAlpha(threshold: 0), 0)
        XCTAssertEqual(Mask.minimumOpaqueAlpha(threshold: 1), 255)
    }

    /// Every pixel centre, by threshold: inside exactly when its alpha reaches threshold × 255.
    func testEachPixelCentreByThreshold() {
        for k in stride(from: 0, through: 255, by: 5) {
            for t in [Double(k) / 255, (Double(k) / 255).nextUp, 0.5] where t <= 1 {
                let r = region(maskShape(10, 20, 32, 48, columns: 16, rows: 16, ramp, threshold: t))
                for j in 0..<16 {
                    for i in 0..<16 {
                        let centre = Point(10 + (Double(i) + 0.5) * 2, 20 + (Double(j) + 0.5) * 3)
                        let alpha = i + 16 * j
                        XCTAssertEqual(r.test(centre).isHit, t == 0 || exactlyReaches(alpha, t), "t \(t) pixel (\(i), \(j))")
                    }
                }
            }
        }
    }

    func testThresholdZeroIsTheWholeRectangleAndHalfOpen() {
        let r = region(maskShape(0, 0, 8, 4, columns: 2, rows: 2, [0, 0, 0, 0], threshold: 0))
        XCTAssertEqual(r.bounds, Box(minX: 0, minY: 0, maxX: 8, maxY: 4))
        XCTAssertTrue(r.test(Point(0, 0)).isHit)
        XCTAssertTrue(r.test(Point(7.999, 3.999)).isHit)
        XCTAssertFalse(r.test(Point(8, 1)).isHit)
        XCTAssertFalse(r.test(Point(1, 4)).isHit)
        XCTAssertFalse(r.test(Point(-0.001, 1)).isHit)
    }

    func testBoundsAreTheOpaquePixelsBoxGrownByStrokeAndSlop() {
        var alpha = [UInt8](repeating: 0, count: 16)
        alpha[1 * 4 + 1] = 255
        alpha[2 * 4 + 2] = 200
        let plain = region(maskShape(0, 0, 40, 40, columns: 4, rows: 4, alpha))
        XCTAssertEqual(plain.bounds, Box(minX: 10, minY: 10, maxX: 30, maxY: 30))
        let grown = region(
            maskShape(0, 0, 40, 40, columns: 4, rows: 4, alpha, stroke: 4), slop: SlopEdges(top: 1, right: 2, bottom: 3, left: 4))
        XCTAssertEqual(grown.bounds, Box(minX: 10 - 2 - 4, minY: 10 - 2 - 1, maxX: 30 + 2 + 2, maxY: 30 + 2 + 3))
        XCTAssertTrue(region(maskShape(0, 0, 40, 40, columns: 4, rows: 4, [UInt8](repeating: 10, count: 16))).isEmpty)
        XCTAssertTrue(region(maskShape(0, 0, 40, 40, columns: 4, rows: 4, alpha, fill: false)).isEmpty)
        XCTAssertTrue(region(maskShape(0, 0, 0, 40, columns: 4, rows: 4, alpha)).isEmpty)
    }

    /// One opaque pixel with slop is exactly that pixel's rectangle with the same slop.
    func testSlopReachesIntoNeighbouringPixelsAsARectsDoes() {
        var alpha = [UInt8](repeating: 0, count: 16)
        alpha[1 * 4 + 1] = 255
        let slop = SlopEdges(top: 2.5, right: 5, bottom: 7.5, left: 10)
        let mask = region(maskShape(0, 0, 40, 40, columns: 4, rows: 4, alpha), slop: slop)
        let rect = region(rect(10, 10, 10, 10), slop: slop)
        for yq in -4...200 {
            for xq in -4...200 {
                let p = Point(Double(xq) / 4, Double(yq) / 4)
                XCTAssertEqual(mask.test(p), rect.test(p), "\(p)")
            }
        }
        XCTAssertEqual(mask.test(Point(24.9, 15)), .insideSlop)  // into the pixel to the right
        XCTAssertEqual(mask.test(Point(25, 15)), .outside)
    }

    // MARK: - Against brute force

    struct RandomMask {
        var x, y: Double
        var columns, rows: Int
        var pixel: Double  // a power of two: pixel edges are exact
        var alpha: [UInt8]
        var threshold: Double
        var minimum: Int { Mask.minimumOpaqueAlpha(threshold: threshold) }
        func box(_ i: Int, _ j: Int) -> Box {
            Box(minX: x + Double(i) * pixel, minY: y + Double(j) * pixel, maxX: x + Double(i + 1) * pixel, maxY: y + Double(j + 1) * pixel)
        }
        func opaque(_ i: Int, _ j: Int) -> Bool { Int(alpha[j * columns + i]) >= minimum }
        var rect: Box { Box(minX: x, minY: y, maxX: x + Double(columns) * pixel, maxY: y + Double(rows) * pixel) }
        func shape(fill: Bool, stroke: Double) -> Shape {
            maskShape(
                x, y, Double(columns) * pixel, Double(rows) * pixel, columns: columns, rows: rows, alpha,
                threshold: threshold, fill: fill, stroke: stroke)
        }
    }

    func randomMask(_ rng: inout SplitMix64) -> RandomMask {
        let columns = Int.random(in: 1...12, using: &rng)
        let rows = Int.random(in: 1...12, using: &rng)
        let density = Double.random(in: 0...1, using: &rng)
        let alpha = (0..<columns * rows).map { _ in
            Double.random(in: 0...1, using: &rng) < density
                ? UInt8.random(in: 128...255, using: &rng) : UInt8.random(in: 0...127, using: &rng)
        }
        return RandomMask(
            x: Double(Int.random(in: -8...8, using: &rng)), y: Double(Int.random(in: -8...8, using: &rng)),
            columns: columns, rows: rows, pixel: [0.5, 1, 2, 4].randomElement(using: &rng)!, alpha: alpha,
            threshold: [0.5, 0.3, 0.8].randomElement(using: &rng)!)
    }

    /// Closed box-to-box distance.
    func distance(_ a: Box, _ b: Box) -> Double {
        let dx = max(a.minX - b.maxX, b.minX - a.maxX, 0)
        let dy = max(a.minY - b.maxY, b.minY - a.maxY, 0)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Whether the closed box q meets the half-open pixel box b.
    func meets(_ q: Box, _ b: Box) -> Bool { q.minX < b.maxX && q.maxX >= b.minX && q.minY < b.maxY && q.maxY >= b.minY }

    /// The brute-force answer: does the closed box q (a point when degenerate) meet the region?
    func reference(_ m: RandomMask, _ q: Box, fill: Bool, half: Double) -> Bool {
        var touchesOpaque = false
        var touchesClear = false
        var toOpaque = Double.infinity
        var toClear = Double.infinity
        for j in 0..<m.rows {
            for i in 0..<m.columns {
                let b = m.box(i, j)
                if m.opaque(i, j) {
                    if meets(q, b) { touchesOpaque = true }
                    toOpaque = min(toOpaque, distance(q, b))
                } else {
                    if meets(q, b) { touchesClear = true }
                    toClear = min(toClear, distance(q, b))
                }
            }
        }
        let r = m.rect
        let within = q.minX >= r.minX && q.maxX < r.maxX && q.minY >= r.minY && q.maxY < r.maxY
        if !within { touchesClear = true }
        toClear = min(toClear, within ? min(q.minX - r.minX, q.minY - r.minY, r.maxX - q.maxX, r.maxY - q.maxY) : 0)
        if fill && touchesOpaque { return true }
        guard half > 0 else { return false }
        if fill { return toOpaque <= half }
        if touchesOpaque && touchesClear { return true }
        return touchesOpaque ? toClear <= half : toOpaque <= half
    }

    func testStrokeAndSlopMatchBruteForce() {
        for seed in UInt64(0)..<150 {
            var rng = SplitMix64(seed: seed)
            let m = randomMask(&rng)
            let fill = Bool.random(using: &rng)
            let stroke = Bool.random(using: &rng) ? Double.random(in: 0.1...6, using: &rng) : 0
            let slop =
                Bool.random(using: &rng)
                ? SlopEdges(
                    top: Double.random(in: 0...3, using: &rng), right: Double.random(in: 0...3, using: &rng),
                    bottom: Double.random(in: 0...3, using: &rng), left: Double.random(in: 0...3, using: &rng))
                : .zero
            let r = region(m.shape(fill: fill, stroke: stroke), slop: slop)
            for _ in 0..<300 {
                // Points on a quarter-unit grid (exactly on pixel edges) and anywhere.
                let p =
                    Bool.random(using: &rng)
                    ? Point(Double(Int.random(in: -80...240, using: &rng)) / 4, Double(Int.random(in: -80...240, using: &rng)) / 4)
                    : Point(Double.random(in: -20...60, using: &rng), Double.random(in: -20...60, using: &rng))
                let atPoint = reference(m, Box(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y), fill: fill, half: stroke / 2)
                let q = Box(minX: p.x - slop.right, minY: p.y - slop.bottom, maxX: p.x + slop.left, maxY: p.y + slop.top)
                let expected = atPoint || (!slop.isZero && reference(m, q, fill: fill, half: stroke / 2))
                let got = r.isEmpty ? false : r.test(p).isHit
                XCTAssertEqual(got, expected, "seed \(seed) fill \(fill) stroke \(stroke) slop \(slop) at \(p)")
                if got != expected { return }
            }
        }
    }

    // MARK: - In scenes

    func testUnderRotateAndScale() throws {
        let parts = TransformParts(translate: Point(300, -40), rotate: 30, scale: .xy(2, 0.5), origin: Point(5, 5))
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "below", shape: rect(-10_000, -10_000, 20_000, 20_000)),
                Layer(id: "sprite", shape: maskShape(10, 20, 32, 48, columns: 16, rows: 16, ramp), transform: .parts(parts)),
            ]))
        let toScene = parts.affine
        for j in 0..<16 {
            for i in 0..<16 {
                let centre = toScene.apply(Point(10 + (Double(i) + 0.5) * 2, 20 + (Double(j) + 0.5) * 3))
                XCTAssertEqual(scene.targetID(centre.x, centre.y), i + 16 * j >= 128 ? "sprite" : "below", "pixel (\(i), \(j))")
            }
        }
    }

    func testTraceNamesThePixelAndItsAlpha() {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "sprite", shape: maskShape(0, 0, 16, 16, columns: 16, rows: 16, ramp))
            ]))
        let miss = scene.hit(Point(12.5, 0.5), trace: true).trace
        XCTAssertEqual(miss.map(\.reason), [.outside])
        XCTAssertEqual(miss.first?.detail?.description, "pixel (12, 0) alpha 12 < 128")
        let hit = scene.hit(Point(3.5, 9.5), trace: true)
        XCTAssertEqual(hit.target, 0)
        XCTAssertEqual(hit.trace.first?.detail?.description, "pixel (3, 9) alpha 147 >= 128")
        XCTAssertEqual(scene.hit(Point(15.5, 7.5), trace: true).trace.first?.detail?.description, "pixel (15, 7) alpha 127 < 128")
        XCTAssertEqual(scene.hit(Point(3.5, 16), trace: true).trace.first?.detail?.description, "outside the mask's 16 x 16 pixels")
    }

    func testClipChildrenClipsToTheOpaquePixels() {
        var alpha = [UInt8](repeating: 0, count: 4)
        alpha[0] = 255
        let scene = CompiledScene(
            Scene(layers: [
                Layer(
                    id: "clip", shape: maskShape(0, 0, 20, 20, columns: 2, rows: 2, alpha), clipChildren: true,
                    children: [
                        Layer(id: "child", shape: rect(0, 0, 20, 20))
                    ])
            ]))
        XCTAssertEqual(scene.targetID(5, 5), "child")
        XCTAssertEqual(scene.traceSummary(15, 5), ["clip miss clipped"])
        XCTAssertEqual(scene.bounds, Box(minX: 0, minY: 0, maxX: 20, maxY: 20))
    }

    /// Many masked siblings (sibling grid and tree) route as a linear scan of their regions.
    func testManyMaskedSiblingsRouteAsALinearScan() {
        for (seed, count) in [(UInt64(1), 40), (2, 300), (3, 1000)] {
            var rng = SplitMix64(seed: seed)
            var layers: [Layer] = []
            var reference: [(Affine, Region)] = []
            for k in 0..<count {
                let m = randomMask(&rng)
                let stroke = Int.random(in: 0..<4, using: &rng) == 0 ? 1.5 : 0
                let slop: HitSlop? = Int.random(in: 0..<4, using: &rng) == 0 ? .uniform(1) : nil
                let parts = TransformParts(
                    translate: Point(Double.random(in: 0...400, using: &rng), Double.random(in: 0...400, using: &rng)),
                    rotate: Bool.random(using: &rng) ? Double.random(in: 0...360, using: &rng) : nil)
                let shape = m.shape(fill: true, stroke: stroke)
                layers.append(Layer(id: "m\(k)", shape: shape, hitSlop: slop, transform: .parts(parts)))
                reference.append((parts.affine.inverse!, region(shape, slop: slop?.edges ?? .zero)))
            }
            let scene = CompiledScene(Scene(layers: layers))
            var points: [Point] = []
            for _ in 0..<3000 { points.append(Point(Double.random(in: -30...450, using: &rng), Double.random(in: -30...450, using: &rng))) }
            var batch = [Int32](repeating: -2, count: points.count)
            points.withUnsafeBufferPointer { p in
                batch.withUnsafeMutableBufferPointer { scene.targets(at: p, into: $0, interleavedFrom: 0, gridOrderFrom: 0) }
            }
            for (i, p) in points.enumerated() {
                let linear = reference.indices.reversed().first { k in
                    !reference[k].1.isEmpty && reference[k].1.test(reference[k].0.apply(p)).isHit
                }
                XCTAssertEqual(scene.target(at: p), linear, "seed \(seed) \(count) siblings at \(p)")
                XCTAssertEqual(scene.hit(p, trace: true).target, linear, "traced, seed \(seed) at \(p)")
                XCTAssertEqual(batch[i] >= 0 ? Int(batch[i]) : nil, linear, "batch, seed \(seed) at \(p)")
            }
            #if DEBUG
                XCTAssertNil(scene.checkIndexes())
            #endif
        }
    }
}

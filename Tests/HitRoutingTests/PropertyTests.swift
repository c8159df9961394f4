import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// Seeded property tests: each prints its seed on failure and is repeatable.
final class PropertyTests: XCTestCase {
    /// A random simple (non-self-intersecting, single-contour) shape within ±100.
    func randomSimpleShape(_ rng: inout SplitMix64) -> Shape {
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return rect(r(-100, 0), r(-100, 0), r(1, 100), r(1, 100))
        case 1: return rect(r(-100, 0), r(-100, 0), r(1, 100), r(1, 100), radius: r(0, 30))
        case 2: return ellipse(r(-50, 50), r(-50, 50), r(1, 50), r(1, 50))
        case 3:
            // A star-shaped polygon: vertices sorted by angle around the origin.
            let n = Int.random(in: 3...12, using: &rng)
            let angles = (0..<n).map { _ in r(0, 2 * .pi) }.sorted()
            return Shape(
                .polygon(
                    angles.map { a in
                        let d = r(5, 100)
                        return Point(d * cos(a), d * sin(a))
                    }))
        default:
            // A path with a cubic and an arc bulging out of a triangle-like outline.
            let d =
                "M\(r(-90, -60)) \(r(-10, 10)) C\(r(-60, -30)) \(r(-90, -60)) \(r(30, 60)) \(r(-90, -60)) \(r(60, 90)) \(r(-10, 10)) A\(r(60, 100)) \(r(60, 100)) \(r(0, 90)) 0 1 \(r(-90, -60)) \(r(-10, 10)) Z"
            return Shape(.path(d: d, elements: try! SVGPathParser.parse(d)))
        }
    }

    /// The band within `eps` of the shape's outline, where rounding may decide.
    func outlineBand(_ shape: Shape, eps: Double = 1e-3) -> Region {
        var s = shape
        s.fill = false
        s.stroke = 2 * eps
        return RegionBuilder.region(of: s, slop: .zero, tolerance: eps / 10)
    }

    func testTransformedLayerAtTpMatchesUntransformedAtP() {
        for seed in UInt64(0)..<300 {
            var rng = SplitMix64(seed: seed)
            let shape = randomSimpleShape(&rng)
            let parts = TransformParts(
                translate: Point(Double.random(in: -500...500, using: &rng), Double.random(in: -500...500, using: &rng)),
                rotate: Double.random(in: -360...360, using: &rng),
                scale: .xy(
                    Double.random(in: 0.2...5, using: &rng) * (Bool.random(using: &rng) ? 1 : -1),
                    Double.random(in: 0.2...5, using: &rng)),
                origin: Point(Double.random(in: -50...50, using: &rng), Double.random(in: -50...50, using: &rng)))
            let plain = CompiledScene(Scene(layers: [Layer(id: "l", shape: shape)]))
            let moved = CompiledScene(Scene(layers: [Layer(id: "l", shape: shape, transform: .parts(parts))]))
            let t = parts.affine
            let band = outlineBand(shape)
            for _ in 0..<200 {
                let p = Point(Double.random(in: -120...120, using: &rng), Double.random(in: -120...120, using: &rng))
                let a = plain.hit(p).target
                let b = moved.hit(t.apply(p)).target
                if a != b && !band.test(p).isHit {
                    XCTFail("seed \(seed), p \(p): \(String(describing: a)) vs \(String(describing: b))")
                    return
                }
            }
        }
    }

    func testEvenOddAndNonzeroAgreeOnSimpleShapes() {
        for seed in UInt64(0)..<300 {
            var rng = SplitMix64(seed: seed)
            var shape = randomSimpleShape(&rng)
            shape.fillRule = .nonzero
            let nonzero = region(shape)
            shape.fillRule = .evenodd
            let evenodd = region(shape)
            for _ in 0..<200 {
                let p = Point(Double.random(in: -120...120, using: &rng), Double.random(in: -120...120, using: &rng))
                XCTAssertEqual(nonzero.test(p).isHit, evenodd.test(p).isHit, "seed \(seed), p \(p)")
            }
        }
    }

    func testCurvedOutlinesAgreeWithAFineFlattening() {
        // Exact curve crossings vs. a polygon flattened to 1e-5: equal away from the outline.
        for seed in UInt64(0)..<100 {
            var rng = SplitMix64(seed: seed)
            var shape = randomSimpleShape(&rng)
            guard case .path(_, let elements) = shape.geometry else { continue }
            let contours = PathContours.build(elements, needsOutline: true, tolerance: 1e-5)
            let polygon = contours[0].outline
            shape.fillRule = .nonzero
            let exact = region(shape)
            let band = outlineBand(shape)
            for _ in 0..<300 {
                let p = Point(Double.random(in: -120...120, using: &rng), Double.random(in: -120...120, using: &rng))
                if exact.test(p).isHit != (Polyline.winding(polygon, p) != 0) && !band.test(p).isHit {
                    XCTFail("seed \(seed), p \(p)")
                }
            }
        }
    }

    func testRandomPathDataNeverCrashesTheParser() {
        let alphabet = Array("MmLlHhVvCcSsQqTtAaZz0123456789.,-+eE \t\n#".utf8)
        var rng = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let n = Int.random(in: 0..<40, using: &rng)
            let bytes = (0..<n).map { _ in alphabet.randomElement(using: &rng)! }
            let d = String(decoding: bytes, as: UTF8.self)
            if let elements = try? SVGPathParser.parse(d) {
                // Whatever parses must also build without trapping.
                _ = region(Shape(.path(d: d, elements: elements), stroke: 1), slop: SlopEdges(top: 1, right: 1, bottom: 1, left: 1))
                    .test(Point(0, 0))
            } else {
                XCTAssertThrowsError(try SVGPathParser.parse(d)) { error in
                    let offset = (error as! PathSyntaxError).offset
                    XCTAssertTrue((0...n).contains(offset), "offset \(offset) for \(d)")
                }
            }
        }
    }
}

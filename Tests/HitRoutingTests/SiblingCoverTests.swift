import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// A cover may only say "outside" where the region test misses and
/// "filled" where it hits; everything else goes to the full test.
final class SiblingCoverTests: XCTestCase {
    /// Random polygons (stars, self-intersecting ones under both rules),
    /// under random transforms, against points all over and around their box.
    func testCoversAgreeWithTheRegionTest() {
        var rng = SplitMix64(seed: 5)
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        var decided = 0
        var total = 0
        for round in 0..<300 {
            let n = Int.random(in: 3...40, using: &rng)
            let radius = r(0.5, 200)
            let star = round % 3 != 0
            let points = (0..<n).map { k -> Point in
                let a = star ? Double(k) / Double(n) * 2 * .pi : r(0, 2 * .pi)
                let d = radius * (star ? r(0.3, 1) : r(0, 1))
                return Point(d * cos(a), d * sin(a))
            }
            var layer = Layer(id: "p", shape: Shape(.polygon(points), fillRule: round % 2 == 0 ? .evenodd : .nonzero))
            layer.transform = .parts(
                TransformParts(
                    translate: Point(r(-1e4, 1e4), r(-1e4, 1e4)), rotate: round % 4 == 0 ? r(-180, 180) : nil,
                    scale: round % 5 == 0 ? .xy(r(0.2, 3), r(0.2, 3)) : nil))
            let scene = CompiledScene(Scene(layers: [layer]))
            let cover = scene.nodes[0].cover
            let node = scene.nodes[0]
            XCTAssertNotEqual(cover.kx, 0, "round \(round): a plain polygon leaf gets a cover")
            let box = node.toParent.apply(scene.regions[0].bounds)
            for _ in 0..<400 {
                let p = Point(
                    r(box.minX - box.width * 0.1, box.maxX + box.width * 0.1),
                    r(box.minY - box.height * 0.1, box.maxY + box.height * 0.1))
                let hit = scene.regions[0].test(node.toLocal.apply(p)).isHit
                let bit = cover.bit(p)
                total += 1
                if cover.maybe & bit == 0 {
                    XCTAssertFalse(hit, "round \(round), \(p): the cover says outside")
                    decided += 1
                } else if cover.filled & bit != 0 {
                    XCTAssertTrue(hit, "round \(round), \(p): the cover says inside")
                    decided += 1
                }
            }
        }
        // The cover is worth having: it settles a good share of points on its own.
        XCTAssertGreaterThan(decided, total / 4)
    }

    /// A polygon that winds twice round its middle: filled there under
    /// nonzero, a hole under even-odd. The cover must probe, not assume.
    func testEnclosedPartsFollowTheFillRule() {
        let outline = [
            Point(0, 0), Point(100, 0), Point(100, 100), Point(0, 100), Point(0, 0),
            Point(30, 30), Point(70, 30), Point(70, 70), Point(30, 70), Point(30, 30),
        ]
        let middle = Point(50, 50)
        for (rule, filled) in [(FillRule.nonzero, true), (.evenodd, false)] {
            let scene = CompiledScene(Scene(layers: [Layer(id: "p", shape: Shape(.polygon(outline), fillRule: rule))]))
            let cover = scene.nodes[0].cover
            let bit = cover.bit(middle)
            XCTAssertEqual(cover.filled & bit != 0, filled, "\(rule)")
            XCTAssertEqual(cover.maybe & bit != 0, filled, "\(rule): a hole the outline does not enter is outside")
            XCTAssertEqual(scene.hit(middle).target != nil, filled, "\(rule)")
        }
    }

    /// A cover may call a part filled only where every point's local image
    /// is finite: a point whose image overflows is inside nothing (SPEC §1).
    /// Under this shear the probe's image is finite and the far corner's is not.
    func testAPolygonWhoseInverseCanOverflowInItsBoxGetsNoCover() throws {
        let points = [Point(3.6e307, 4.5e307), Point(1.44e308, 4.5e307), Point(1.17e308, 5.85e307), Point(9e306, 5.85e307)]
        var sheared = Layer(id: "big", shape: Shape(.polygon(points)))
        sheared.transform = .matrix(Affine(a: 0.5, b: 0, c: 1, d: 1, e: 0, f: 0))
        let scene = CompiledScene(Scene(layers: [sheared]))
        XCTAssertEqual(scene.nodes[0].cover.filled, 0)
        XCTAssertEqual(scene.nodes[0].cover.kx, 0, "no cover")
        let overflowing = Point(1.05e308, 5.2e307)
        XCTAssertFalse(scene.nodes[0].toLocal.apply(overflowing).x.isFinite)
        XCTAssertNil(scene.hit(overflowing).target)
        XCTAssertEqual(scene.hit(Point(7.5e307, 4.8e307)).target, 0)
        // Beside ordinary siblings (an index, so the cover would be asked), with and without a trace.
        let rects = (0..<8).map { Layer(id: "r\($0)", shape: rect(0, 0, 1, 1)) }
        let indexed = CompiledScene(Scene(layers: rects + [sheared]))
        for tracing in [false, true] {
            XCTAssertNil(indexed.hit(overflowing, trace: tracing).target)
            XCTAssertEqual(indexed.hit(Point(7.5e307, 4.8e307), trace: tracing).target, 8)
        }
    }

    /// Layers that are not plain leaves get no cover, and routing stays exact.
    func testOnlyPlainLeavesGetACover() {
        let square = [Point(0, 0), Point(10, 0), Point(10, 10), Point(5, 12), Point(0, 10)]  // not a rect: a plain polygon
        var stroked = Layer(id: "stroked", shape: Shape(.polygon(square), stroke: 2))
        stroked.zIndex = 1
        var parent = Layer(id: "parent", shape: Shape(.polygon(square)))
        parent.children = [Layer(id: "child", shape: rect(0, 0, 1, 1))]
        var hidden = Layer(id: "hidden", shape: Shape(.polygon(square)))
        hidden.hidden = true
        let scene = CompiledScene(Scene(layers: [Layer(id: "plain", shape: Shape(.polygon(square))), stroked, parent, hidden]))
        let covered = scene.ids.indices.filter { scene.nodes[$0].cover.kx != 0 }.map { scene.ids[$0] }
        XCTAssertEqual(covered, ["plain"])
    }
}

import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// The shortcuts of an untraced hit (sibling indexes, covers, batches)
/// decide only what the exact, traced visit decides, however the two maps
/// of a layer round: each case below is a point where a shortcut that
/// ignored rounding would differ (the API fuzzer also asks every hit both
/// ways).
final class ShortcutRoundingTests: XCTestCase {
    /// Seven rects far away, so that `layer` is one of eight indexed siblings.
    func indexed(_ layer: Layer) -> CompiledScene {
        let far = (0..<7).map { Layer(id: "f\($0)", shape: rect(10_000, 0, 10, 10)) }
        let scene = CompiledScene(Scene(layers: far + [layer]))
        XCTAssertGreaterThanOrEqual(scene.rootIndex, 0, "the root siblings are indexed")
        return scene
    }

    /// The traced target, asserting that the untraced hit, the batch and
    /// `target(at:)` name the same one.
    func agreed(_ scene: CompiledScene, _ p: Point, file: StaticString = #filePath, line: UInt = #line) -> Int? {
        let traced = scene.hit(p, trace: true).target
        XCTAssertEqual(scene.hit(p).target, traced, "untraced at \(p)", file: file, line: line)
        XCTAssertEqual(scene.target(at: p), traced, "target(at:) at \(p)", file: file, line: line)
        XCTAssertEqual(scene.targets(at: [p]), [traced], "batch at \(p)", file: file, line: line)
        return traced
    }

    /// Scale 3: the point one ulp left of the box's image, −3.0000000000000004,
    /// maps to exactly −1 (fl(1/3) rounds it in), the rect's first column.
    /// The unwidened box skipped it.
    func testAPointAnUlpOutsideTheMappedBoxThatRoundsOntoTheRectIsTheRects() {
        var s = Layer(id: "S", shape: rect(-1, -1, 2, 2))
        s.transform = .matrix(Affine(a: 3, b: 0, c: 0, d: 3, e: 0, f: 0))
        let scene = indexed(s)
        let p = Point(-3.0000000000000004, 0)
        XCTAssertEqual(scene.nodes[7].toLocal.apply(p).x, -1)
        XCTAssertEqual(agreed(scene, p), 7)
    }

    /// Coordinates around 2⁵², where doubles are 1 apart: the L's cover was
    /// filled where the visit, rounding y + 2⁵² onto the bottom edge, missed;
    /// and its box skipped y = −0.2, which rounds onto the top edge.
    func testAnLAt2To52RoutesAlikeEitherWay() {
        let t = 4503599627370496.0
        var l = Layer(
            id: "L",
            shape: Shape(
                .polygon([
                    Point(0, t), Point(512, t), Point(512, t + 194), Point(256, t + 194), Point(256, t + 517), Point(0, t + 517),
                ])))
        l.transform = .matrix(Affine(a: 1, b: 0, c: 0, d: 1, e: 0, f: -t))
        let scene = indexed(l)
        XCTAssertNil(agreed(scene, Point(384, 193.75)))
        XCTAssertEqual(agreed(scene, Point(100, -0.2)), 7)
        XCTAssertEqual(agreed(scene, Point(100, 300)), 7)
        XCTAssertNil(agreed(scene, Point(400, 300)))
    }

    /// A map whose entries differ by 2¹¹⁰⁰ (det 3·2¹⁰⁰): dividing by the
    /// largest entry would underflow; the bound still pads it.
    func testAScaleOf3Times2To600By2ToMinus500IsPaddedToo() {
        var s = Layer(id: "S", shape: rect(-1, -1, 2, 2))
        s.transform = .matrix(Affine(a: 3 * 0x1p600, b: 0, c: 0, d: 0x1p-500, e: 0, f: 0))
        XCTAssertEqual(agreed(indexed(s), Point((-3 * 0x1p600).nextDown, 0)), 7)
    }

    /// Subnormal geometry under a scale of 3: the visit rounds by absolute
    /// steps, which a bound of relative terms alone would miss.
    func testASubnormalRectUnderScale3IsPaddedByAbsoluteSteps() {
        let t = Double.leastNonzeroMagnitude
        var s = Layer(id: "S", shape: rect(2025 * t, 2025 * t, 2025 * t, 2025 * t))
        s.transform = .parts(TransformParts(scale: .uniform(3)))
        XCTAssertEqual(agreed(indexed(s), Point(6074 * t, 9112 * t)), 7)
    }

    /// A polygon 4e-308 wide: 8 / width is infinite, so it gets no cover
    /// (one would call every point outside).
    func testAPolygonTooSmallForItsPartsScaleGetsNoCover() {
        let tiny = Layer(
            id: "T",
            shape: Shape(
                .polygon([
                    Point(0, 0), Point(4e-308, 0), Point(4e-308, 4e-308), Point(0, 4e-308), Point(0, 2e-308),
                ])))
        let scene = indexed(tiny)
        XCTAssertEqual(scene.nodes[7].cover.kx, 0, "no cover")
        XCTAssertEqual(agreed(scene, Point(2e-308, 1e-308)), 7)
    }

    /// A shear a few orders of magnitude from singular (det 1.5e-11 with
    /// entries about 1) has no rounding bound (`roundingReach` is nil). The
    /// stored inverse maps this point, 0.018 outside the rect's mapped box,
    /// onto the rect's corner (1000, 1000), so the index must not skip the
    /// layer.
    func testANearSingularShearIsNeverSkippedByTheIndex() {
        let scene = indexed(nearSingularShear())
        let p = Point(2399.982, 799.99400000999990)
        XCTAssertFalse(scene.nodes[7].toParent.apply(scene.nodes[7].reach).contains(p), "outside the mapped box")
        XCTAssertEqual(agreed(scene, p), 7)
        XCTAssertNil(agreed(scene, Point(2399.9, 799.9)))
    }

    /// The same shear inside a translated group: the group's box in its
    /// parent bounds nothing either, since its child accepts points beyond
    /// its own box; and so for the group's own siblings' index.
    func testAGroupHoldingANearSingularShearIsNeverSkippedEither() {
        let far = (0..<7).map { Layer(id: "g\($0)", shape: rect(-10_000, 0, 10, 10)) }
        let group = Layer(
            id: "G", transform: .parts(TransformParts(translate: Point(5, 0))),
            children: far + [nearSingularShear()])
        let scene = indexed(group)
        XCTAssertGreaterThanOrEqual(scene.nodes[7].childIndex, 0, "the group's children are indexed")
        XCTAssertEqual(scene.ids[agreed(scene, Point(2404.982, 799.99400000999990)) ?? 0], "S")
    }

    /// A patch that makes an indexed sibling's transform near-singular
    /// takes its index box (and its parent's) to the whole plane too.
    func testAPatchToANearSingularShearIsNeverSkipped() {
        var scene = indexed(Layer(id: "S", shape: rect(1000, 1000, 1000, 1000)))
        scene.update(7, to: nearSingularShear())
        XCTAssertEqual(agreed(scene, Point(2399.982, 799.99400000999990)), 7)
    }

    /// Random indexed rects under shears 1e-9 to 1e-11 (relative) from
    /// singular, asked near their corners' images along the line they are
    /// squeezed onto, where the stored inverse's error (about
    /// |inverse| |p| u, some 1e-3 here) carries points in from outside the box.
    func testNearSingularShearsRouteAlikeEitherWay() {
        var rng = SplitMix64(seed: 1211)
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        var checked = 0
        for _ in 0..<20 {
            let layers = (0..<10).map { k -> Layer in
                let (a, b, c) = (r(0.5, 2), r(-1, 1), r(-1, 1))
                var layer = Layer(id: "s\(k)", shape: rect(r(-2000, 2000), r(-2000, 2000), r(10, 1000), r(10, 1000)))
                let d = b * c / a * (1 + (Bool.random(using: &rng) ? 1 : -1) * pow(10, -r(9, 11)))
                layer.transform = .matrix(Affine(a: a, b: b, c: c, d: d, e: r(-100, 100), f: r(-100, 100)))
                return layer
            }
            let scene = CompiledScene(Scene(layers: layers))
            guard scene.numericProblem == nil, scene.rootIndex >= 0 else { continue }
            for node in scene.nodes where node.region >= 0 && node.skip == nil {
                for corner in node.reach.corners {
                    let image = node.toParent.apply(corner)
                    let origin = node.toParent.apply(Point(0, 0))
                    for _ in 0..<100 {
                        let k = r(-2e-5, 2e-5)
                        _ = agreed(scene, Point(image.x + (image.x - origin.x) * k, image.y + (image.y - origin.y) * k))
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }

    /// A patch that rescales a group flattens its descendants' curves
    /// again, finer: the slop of a curve's extreme reaches a little further
    /// out, and the boxes above it must follow (they kept the old
    /// flattening's, so the index skipped a point the visit hits).
    /// Depth 1 is the curve straight under the group, 2 in the group's
    /// indexed children, 3 one group further down, among indexed siblings
    /// of its own.
    func testARescaleThatFlattensACurveAgainGrowsTheBoxesAboveIt() throws {
        var curve = Layer(id: "C", shape: try path("M 0 0 C 0 100 100 30 100 0 Z"))
        curve.hitSlop = .uniform(5)
        let far = (0..<7).map { Layer(id: "f\($0)", shape: rect(-10_000, 0, 10, 10)) }
        for depth in 1...3 {
            let inner = depth == 3 ? [Layer(id: "H", children: far + [curve])] : [curve]
            func group(_ scale: Double) -> Layer {
                Layer(id: "G", transform: .parts(TransformParts(scale: .uniform(scale))), children: depth == 1 ? inner : far + inner)
            }
            var scene = indexed(group(1))
            let c = try XCTUnwrap(scene.indexByID["C"])
            let before = scene.regions[Int(scene.nodes[Int(c)].region)].bounds
            scene.update(7, to: group(1000))
            let region = scene.regions[Int(scene.nodes[Int(c)].region)]
            let lowest = try XCTUnwrap(region.contours[0].outline.max { $0.y < $1.y })
            let local = Point(lowest.x, lowest.y + 5 - 1e-9)
            XCTAssertGreaterThan(local.y, before.maxY, "beyond the old flattening's slop")
            XCTAssertEqual(agreed(scene, scene.nodes[7].toParent.apply(local)), Int(c), "depth \(depth)")
        }
    }

    func nearSingularShear() -> Layer {
        var s = Layer(id: "S", shape: rect(1000, 1000, 1000, 1000))
        s.transform = .matrix(Affine(a: 1.5, b: 0.5, c: 0.9, d: 0.30000000001, e: 0, f: 0))
        return s
    }

    /// Random indexed siblings under scales, rotations and shears, at
    /// every magnitude, asked at their vertices' images and a few ulps
    /// around them, where the two maps' roundings meet the outline.
    func testUntracedHitsAgreeWithTracedOnesAtTheOutlines() {
        var rng = SplitMix64(seed: 77)
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        var checked = 0
        for round in 0..<60 {
            let magnitude = [1.0, 1e-3, 1e6, 1e15, 1e100, 1e-100][round % 6]
            var layers: [Layer] = []
            for k in 0..<12 {
                let n = Int.random(in: 3...8, using: &rng)
                var points = (0..<n).map { _ in Point(r(-1, 1) * magnitude, r(-1, 1) * magnitude) }
                if k % 3 == 0 {
                    points = [
                        points[0], Point(points[0].x + magnitude, points[0].y), Point(points[0].x + magnitude, points[0].y + magnitude),
                        Point(points[0].x, points[0].y + magnitude),
                    ]
                }
                var layer = Layer(
                    id: "l\(k)", shape: k % 4 == 1 ? rect(points[0].x, points[0].y, magnitude / 3, magnitude / 7) : Shape(.polygon(points)))
                switch k % 4 {
                case 0:
                    layer.transform = .matrix(
                        Affine(a: r(0.1, 5), b: r(-1, 1), c: r(-1, 1), d: r(0.1, 5), e: r(-1, 1) * magnitude, f: r(-1, 1) * magnitude))
                case 1: layer.transform = .parts(TransformParts(translate: Point(r(-1, 1) * magnitude, 0), scale: .xy(3, 1.0 / 3)))
                case 2: layer.transform = .parts(TransformParts(rotate: r(-180, 180)))
                default: break
                }
                layers.append(layer)
            }
            let scene = CompiledScene(Scene(layers: layers))
            guard scene.numericProblem == nil, scene.rootIndex >= 0 else { continue }
            for node in scene.nodes where node.region >= 0 {
                guard let polygon = node.plainPolygon else { continue }
                for v in polygon.prefix(4) {
                    let image = node.toParent.apply(v)
                    for (dx, dy) in [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (-2, -2), (2, 2)] {
                        var p = image
                        for _ in 0..<abs(dx) { p.x = dx < 0 ? p.x.nextDown : p.x.nextUp }
                        for _ in 0..<abs(dy) { p.y = dy < 0 ? p.y.nextDown : p.y.nextUp }
                        _ = agreed(scene, p)
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
    }
}

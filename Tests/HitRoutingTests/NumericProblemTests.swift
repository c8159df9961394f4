import XCTest

@testable import HitRouting

/// SPEC §1 in the core: every number a compiled scene holds or answers
/// with is finite, or the scene names its first `NumericProblem`. Each test
/// is named after the input that found a trap or a wrong answer.
final class NumericProblemTests: XCTestCase {
    func testRotate1e300DegreesIsAWholeNumberOfQuarterTurnsWithoutATrap() {
        // `Int(turns)` trapped: 1e300 / 90 is integral and far beyond Int.max.
        for degrees in [1e300, -1e300, 9e20, 360 * 0x1p60 + 90] {
            let m = Affine.rotation(degrees: degrees)
            XCTAssertTrue(m.isFinite, "\(degrees)")
            XCTAssertEqual(abs(m.a) + abs(m.b), 1, "\(degrees)")  // an exact quarter turn
        }
        XCTAssertEqual(Affine.rotation(degrees: -90).apply(Point(1, 0)), Point(0, -1))
        XCTAssertEqual(Affine.rotation(degrees: 450).apply(Point(1, 0)), Point(0, 1))
    }

    func testScale1e200InvertsInsteadOfCountingAsSingular() throws {
        // Its determinant (1e400) overflows; the inverse (1e-200) does not.
        let inverse = try XCTUnwrap(Affine.scale(1e200, 1e200).inverse)
        XCTAssertEqual(inverse.a, 1e-200, accuracy: 1e-214)
        XCTAssertEqual(inverse.apply(Point(3e200, -1e200)).x, 3, accuracy: 1e-12)
        XCTAssertNil(Affine.scale(1e-7, 1e-7).inverse)  // |det| 1e-14 < 1e-12 stays singular
        let skew = Affine(a: 1e300, b: 0, c: 1e300, d: 1e-300, e: 1e300, f: 0)
        XCTAssertTrue(skew.inverse?.isFinite ?? true)
    }

    func testMaxScaleOfAScale1e200Is1e200NotInfinity() {
        // Its squares overflowed, and the flattening tolerance fell back to 1e6 local units.
        XCTAssertEqual(Affine.scale(1e200, 3e199).maxScale, 1e200, accuracy: 1e186)
        XCTAssertEqual(Affine.rotation(degrees: 30).maxScale, 1, accuracy: 1e-15)
    }

    func testArcWithRadii1e300GivesAFiniteArcOrALine() throws {
        let arc = EllipticArc.fromEndpoints(
            from: Point(0, 0), to: Point(10, 0), radii: Point(1e300, 1e300), rotationDegrees: 30, largeArc: false, sweep: true)
        XCTAssertNil(arc)  // the short way round is its chord
        let long = try XCTUnwrap(
            EllipticArc.fromEndpoints(
                from: Point(0, 0), to: Point(10, 0), radii: Point(1e300, 1e300), rotationDegrees: 30, largeArc: true, sweep: true))
        XCTAssertTrue(long.center.isFinite)
        XCTAssertTrue(long.point(at: 0.5).isFinite)
        let r = region(try path("M0 0 A1e300 1e300 0 0 1 10 0 Z", stroke: 1))
        XCTAssertTrue(r.bounds.hasFiniteSize, "\(r.bounds)")
        XCTAssertEqual(r.test(Point(5, 0.25)), .insideStroke)
        // Radii that reach: the usual circle, unchanged by the scaled form.
        let half = try XCTUnwrap(
            EllipticArc.fromEndpoints(
                from: Point(0, 0), to: Point(10, 0), radii: Point(5, 5), rotationDegrees: 0, largeArc: false, sweep: true))
        XCTAssertEqual(half.center.x, 5, accuracy: 1e-12)
        XCTAssertEqual(half.center.y, 0, accuracy: 1e-12)
    }

    func testStrokeOfALineFromMinus1e200To1e200IsABand() {
        // Its squared length overflowed, so every point measured to an end: no stroke anywhere.
        let r = region(Shape(.polyline([Point(-1e200, 0), Point(1e200, 0)]), fill: false, stroke: 10))
        XCTAssertEqual(r.test(Point(0, 4)), .insideStroke)
        XCTAssertEqual(r.test(Point(3e199, -4.9)), .insideStroke)
        XCTAssertEqual(r.test(Point(0, 6)), .outside)
    }

    func testStrokeOfACircleOfRadius10SeenFrom1e307IsMeasuredRight() {
        // The point's squared length overflowed to infinity: a miss inside a 1e308 stroke.
        let r = region(Shape(.circle(cx: 0, cy: 0, r: 10), stroke: 1e308))
        XCTAssertEqual(r.test(Point(1e307, -1e307)), .insideStroke)
        let e = region(Shape(.ellipse(cx: 0, cy: 0, rx: 10, ry: 20), stroke: 1e308))
        XCTAssertEqual(e.test(Point(1e307, -1e307)), .insideStroke)
        XCTAssertEqual(e.test(Point(4e307, 4e307)), .outside)
    }

    func testCompoundOf5000CirclesOfRadius1e6WithAStrokeKeepsToTheFlatteningBudget() {
        // Each circle alone would flatten to 65,536 points: 5,000 of them to 5 GB.
        let circles = (0..<5_000).map { k in Shape(.circle(cx: Double(k) * 3e6, cy: 0, r: 1e6)) }
        let r = RegionBuilder.region(of: Shape(.compound(circles), stroke: 1), slop: .zero, tolerance: 1e-9)
        let points = r.contours.reduce(0) { $0 + $1.outline.count }
        XCTAssertLessThanOrEqual(points, RegionBuilder.maxFlattenedPointsPerRegion + 17 * circles.count)
        XCTAssertEqual(r.test(Point(1e6, 0)), .insideStroke)
    }

    func testTwoHundredLayersOfStrokedCirclesOfRadius1e6KeepToTheScenesFlatteningBudget() {
        // Each region alone keeps to 65,536 points; 150,000 such layers (16 MB of JSON) took 10^10.
        let layers = (0..<200).map { k in Layer(id: "c\(k)", shape: Shape(.circle(cx: Double(k) * 3e6, cy: 0, r: 1e6), stroke: 1)) }
        let scene = CompiledScene(Scene(layers: layers))
        let points = scene.regions.reduce(0) { $0 + $1.contours.reduce(0) { $0 + $1.outline.count } }
        XCTAssertLessThanOrEqual(points, RegionBuilder.maxFlattenedPointsPerScene + 17 * layers.count)
        XCTAssertEqual(scene.targetID(199 * 3e6 + 1e6, 0), "c199")
    }

    /// A patch compiles the layer's region, and on a change of scale every
    /// descendant's: each draws from the scene's flattening budget (not a
    /// fresh one of its own) and gives back what it held when it is
    /// replaced, so rescaling a group of stroked circles stays within the
    /// scene's bound.
    func testRescalingAGroupKeepsToTheScenesFlatteningBudget() {
        let circles = (0..<200).map { k in Layer(id: "c\(k)", shape: Shape(.circle(cx: Double(k) * 3e6, cy: 0, r: 1e6), stroke: 1)) }
        var live = LiveScene(Scene(layers: [Layer(id: "g", children: circles)]))
        func points() -> Int { live.compiled.regions.reduce(0) { $0 + $1.contours.reduce(0) { $0 + $1.outline.count } } }
        let bound = RegionBuilder.maxFlattenedPointsPerScene + 17 * circles.count
        XCTAssertLessThanOrEqual(points(), bound)
        for scale in [2.0, 0.5, 3.0] {
            live.replaceLayer(0, with: Layer(id: "g", transform: .parts(TransformParts(scale: .uniform(scale)))))
            XCTAssertLessThanOrEqual(points(), bound, "after scaling the group by \(scale)")
            XCTAssertEqual(live.compiled.targetID(scale * (199 * 3e6 + 1e6), 0), "c199")
        }
    }

    /// A patch that takes a layer's shape away frees its region slot, and
    /// giving it back uses that slot again: alternating patches do not
    /// grow the scene.
    func testTakingAShapeAwayAndBackReusesItsRegionSlot() {
        let shape = Shape(.rect(x: 0, y: 0, width: 10, height: 10, cornerRadius: nil))
        var live = LiveScene(Scene(layers: [Layer(id: "a", shape: shape), Layer(id: "b", shape: shape)]))
        let slots = live.compiled.regions.count
        for _ in 0..<50 {
            live.replaceLayer(1, with: Layer(id: "b"))
            XCTAssertEqual(live.compiled.targetID(5, 5), "a", "b has no shape: the one under it")
            live.replaceLayer(1, with: Layer(id: "b", shape: shape))
            XCTAssertEqual(live.compiled.targetID(5, 5), "b")
        }
        XCTAssertEqual(live.compiled.regions.count, slots)
    }

    func testFirstProblemInDocumentOrderIsNamed() {
        let bad = Layer(id: "b", shape: Shape(.rect(x: 1e308, y: 0, width: 1e308, height: 1, cornerRadius: nil)))
        let worse = Layer(
            id: "c", transform: .parts(TransformParts(scale: .uniform(1e300))),
            children: [Layer(id: "d", transform: .parts(TransformParts(scale: .uniform(1e300))))])
        let scene = CompiledScene(Scene(layers: [Layer(id: "a"), Layer(id: "p", children: [Layer(id: "q"), bad]), worse]))
        XCTAssertEqual(scene.numericProblem?.layerPath, [1, 1])
        XCTAssertEqual(scene.numericProblem?.field, [.key("shape"), .key("width")])
        let only = CompiledScene(Scene(layers: [worse]))
        XCTAssertEqual(only.numericProblem?.layerPath, [0, 0])
        XCTAssertEqual(only.numericProblem?.field, [.key("transform"), .key("scale")])
        XCTAssertNil(CompiledScene(ringOverButton()).numericProblem)
    }

    func testHitAt1e308ThroughAMatrixStretching1e300IsAMissWithFiniteTrace() {
        let thin = Layer(
            id: "thin", shape: Shape(.rect(x: 0, y: 0, width: 1, height: 1, cornerRadius: nil)),
            transform: .matrix(Affine(a: 1e-300, b: 0, c: 0, d: 1e300, e: 0, f: 0)))
        let scene = CompiledScene(Scene(layers: [thin]))
        XCTAssertNil(scene.numericProblem)
        let result = scene.hit(Point(1e308, 1e308), trace: true, all: true)
        XCTAssertNil(result.target)
        XCTAssertEqual(result.stack, [])
        XCTAssertEqual(result.trace.map(\.reason), [.outside])
        XCTAssertNil(result.trace.first?.local)
    }

    func testDragBy1e308TwiceIsRefusedTheSecondTimeAndChangesNothing() throws {
        let layer = Layer(id: "d", shape: Shape(.rect(x: 0, y: 0, width: 10, height: 10, cornerRadius: nil)), draggable: true)
        var live = LiveScene(Scene(layers: [layer]))
        var sessions = PointerSessions()
        _ = try sessions.apply(pointer: "f", phase: .down, at: Point(5, 5), to: &live, trace: false, all: false, now: 0)
        let first = try sessions.apply(pointer: "f", phase: .move, at: Point(1e308, 5), to: &live, trace: false, all: false, now: 0)
        XCTAssertTrue(first.moved)
        let before = live.compiled.bounds
        XCTAssertThrowsError(
            try sessions.apply(pointer: "f", phase: .move, at: Point(-1e308, 5), to: &live, trace: false, all: false, now: 0)
        ) { error in
            guard case PointerSessions.Refusal.moveOverflows(let id, _)? = error as? PointerSessions.Refusal else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(id, "d")
        }
        XCTAssertEqual(live.compiled.bounds, before)
        XCTAssertEqual(sessions.pointers["f"]?.last, Point(1e308, 5))
        XCTAssertNil(live.numericProblem(translatingLayer: 0, by: Point(-1e308, 0)))
        XCTAssertNotNil(live.numericProblem(translatingLayer: 0, by: Point(1e308, 0)))
    }
}

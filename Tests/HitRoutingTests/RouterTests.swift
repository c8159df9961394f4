import XCTest

@testable import HitRouting

final class RouterTests: XCTestCase {
    // MARK: - SPEC's reference scene

    func testRingOverButtonRoutesAsTheSpecTableSays() {
        let scene = CompiledScene(ringOverButton())
        XCTAssertEqual(scene.targetID(120, 120), "button")  // the ring's hole
        XCTAssertEqual(scene.targetID(210, 120), "ring")  // the band
        XCTAssertEqual(scene.targetID(10, 10), "button")  // outside the outer ellipse
    }

    func testRingTraceMatchesTheSpecExample() throws {
        let scene = CompiledScene(ringOverButton())
        let result = scene.hit(Point(120, 120), trace: true)
        XCTAssertEqual(
            scene.traceSummary(120, 120),
            [
                "frame skip pointer-events-none", "ring miss in-hole", "button hit inside",
            ])
        XCTAssertEqual(result.trace[1].detail?.description, "even-odd: inside 2 contours")
        XCTAssertEqual(result.trace[1].local, Point(120, 120))
        XCTAssertEqual(result.local, Point(120, 120))
        let target = try XCTUnwrap(result.target)
        XCTAssertEqual(scene.path(to: target), ["button"])
        XCTAssertEqual(scene.action(for: target)?.action, "below.press")
    }

    func testNonzeroRingFillsItsCentre() {
        XCTAssertEqual(CompiledScene(ringOverButton(ringRule: .nonzero)).targetID(120, 120), "ring")
    }

    // MARK: - Scenes from the field

    func testHollowViewLetsTheCentreThroughToTheList() {
        let screen = rect(0, 0, 400, 800)
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "list", action: "list.tap", shape: rect(0, 0, 400, 800)),
                Layer(
                    id: "hollow", action: "overlay.dismiss", shape: screen,
                    hitShape: Shape(.compound([screen, Shape(.circle(cx: 200, cy: 400, r: 60))]), fillRule: .evenodd)),
            ]))
        XCTAssertEqual(scene.targetID(200, 400), "list")
        XCTAssertEqual(scene.targetID(200 + 59, 400), "list")
        XCTAssertEqual(scene.targetID(200 + 61, 400), "hollow")
        XCTAssertEqual(scene.targetID(10, 10), "hollow")
        XCTAssertEqual(scene.traceSummary(200, 400), ["hollow miss in-hole", "list hit inside"])
    }

    /// Squares of size 100, 200, 300 at (50,50), (75,75), (100,100), zIndex 1–3,
    /// whose hit regions are their centre halves. Square 1 is smallest and on top.
    static func overlappingSquares() -> Scene {
        let specs: [(String, Double, Double, Double)] = [("square1", 100, 50, 3), ("square2", 200, 75, 2), ("square3", 300, 100, 1)]
        return Scene(
            layers: specs.map { id, size, origin, z in
                Layer(
                    id: id, action: "\(id).drag", shape: rect(origin, origin, size, size),
                    hitShape: rect(origin + size / 4, origin + size / 4, size / 2, size / 2), zIndex: z)
            })
    }

    func testOverlappingSquaresReachTheSmallestCentreThroughTheLargerOnes() {
        let scene = CompiledScene(Self.overlappingSquares())
        // square1 spans 50..150, centre half 75..125; square2 centre 125..225; square3 centre 175..325.
        XCTAssertEqual(scene.targetID(100, 100), "square1")
        XCTAssertEqual(scene.targetID(60, 60), nil)  // drawn by square1 but outside every hit region
        XCTAssertEqual(scene.targetID(140, 140), "square2")
        XCTAssertEqual(scene.targetID(200, 200), "square2")  // square2 is above square3
        XCTAssertEqual(scene.targetID(300, 300), "square3")
        XCTAssertEqual(
            scene.traceSummary(300, 300),
            [
                "square1 miss outside", "square2 miss outside", "square3 hit inside",
            ])
    }

    func testZIndexTiesKeepArrayOrder() {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "a", shape: rect(0, 0, 10, 10), zIndex: 5),
                Layer(id: "b", shape: rect(0, 0, 10, 10), zIndex: 5),
                Layer(id: "c", shape: rect(0, 0, 10, 10), zIndex: -1),
            ]))
        XCTAssertEqual(scene.traceSummary(5, 5), ["b hit inside"])
        XCTAssertEqual(scene.hit(Point(5, 5), all: true).stack?.map { scene.ids[$0] }, ["b", "a", "c"])
    }

    func testChildOutsideItsParentIsHittableUnlessTheParentClips() {
        func scene(clip: Bool) -> CompiledScene {
            CompiledScene(
                Scene(layers: [
                    Layer(
                        id: "parent", shape: rect(0, 0, 100, 100), clipChildren: clip,
                        children: [
                            Layer(id: "badge", shape: Shape(.circle(cx: 100, cy: 0, r: 15)))
                        ])
                ]))
        }
        XCTAssertEqual(scene(clip: false).targetID(110, -5), "badge")
        XCTAssertEqual(scene(clip: true).targetID(110, -5), nil)
        XCTAssertEqual(scene(clip: true).targetID(95, 5), "badge")
        XCTAssertEqual(scene(clip: true).traceSummary(110, -5), ["parent miss clipped"])
        XCTAssertEqual(
            scene(clip: true).hit(Point(110, -5), trace: true).trace[0].detail,
            .clippedDescendants(1))
    }

    func testHitSlopOnA44PointButton() {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "button", shape: rect(100, 100, 44, 44), hitSlop: .uniform(20))
            ]))
        XCTAssertEqual(scene.targetID(100 - 15, 122), "button")
        XCTAssertEqual(scene.targetID(144 + 15, 122), "button")
        XCTAssertEqual(scene.targetID(100 - 25, 122), nil)
        XCTAssertEqual(scene.traceSummary(85, 122), ["button hit inside-slop"])
    }

    func testNestedRotateScaleAndMatrixTransforms() throws {
        // parent: rotate 90° about (0,0) then move by (200, 0); child: scale 2 then matrix translate (10, 0).
        let scene = CompiledScene(
            Scene(layers: [
                Layer(
                    id: "parent", transform: .parts(TransformParts(translate: Point(200, 0), rotate: 90)),
                    children: [
                        Layer(
                            id: "child", shape: rect(0, 0, 10, 5),
                            transform: .matrix(Affine(a: 2, b: 0, c: 0, d: 2, e: 10, f: 0)))
                    ])
            ]))
        // child local (5, 2.5) → parent (20, 5) → scene rotate: (-5, 20) → +(200,0) = (195, 20)
        let result = scene.hit(Point(195, 20), trace: true)
        XCTAssertEqual(result.target.map { scene.ids[$0] }, "child")
        let local = try XCTUnwrap(result.local)
        XCTAssertEqual(local.x, 5, accuracy: 1e-12)
        XCTAssertEqual(local.y, 2.5, accuracy: 1e-12)
        XCTAssertEqual(scene.targetID(205, 20), nil)  // the unrotated place
        XCTAssertEqual(scene.traceSummary(195, 20), ["child hit inside"])  // the parent is never reached
        XCTAssertEqual(scene.traceSummary(0, 0), ["child miss outside", "parent miss no-shape"])
    }

    func testSingularTransformMakesTheSubtreeUnhittable() {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "below", shape: rect(0, 0, 100, 100)),
                Layer(
                    id: "flat", shape: rect(0, 0, 100, 100), transform: .parts(TransformParts(scale: .xy(1, 0))),
                    children: [Layer(id: "kid", shape: rect(0, 0, 100, 100))]),
            ]))
        XCTAssertEqual(scene.traceSummary(50, 0), ["flat skip singular-transform", "below hit inside"])
    }

    func testActionBubblesToTheNearestAncestorWithOne() throws {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(
                    id: "card", action: "card.open",
                    children: [
                        Layer(id: "row", children: [Layer(id: "icon", shape: rect(0, 0, 10, 10))]),
                        Layer(id: "like", action: "card.like", shape: rect(20, 0, 10, 10)),
                    ])
            ]))
        let icon = try XCTUnwrap(scene.hit(Point(5, 5)).target)
        XCTAssertEqual(scene.path(to: icon), ["card", "row", "icon"])
        XCTAssertEqual(scene.action(for: icon)?.action, "card.open")
        XCTAssertEqual(scene.action(for: icon).map { scene.ids[$0.layer] }, "card")
        let like = try XCTUnwrap(scene.hit(Point(25, 5)).target)
        XCTAssertEqual(scene.action(for: like)?.action, "card.like")
        XCTAssertNil(CompiledScene(Scene(layers: [Layer(id: "x", shape: rect(0, 0, 1, 1))])).action(for: 0))
    }

    // MARK: - Participation rules, each row of SPEC §2.1 / §3

    func testSkipRulesInOrder() {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "base", shape: rect(0, 0, 10, 10)),
                Layer(id: "faint", shape: rect(0, 0, 10, 10), opacity: 0.009),
                Layer(id: "visibleEnough", shape: rect(0, 0, 10, 10), hidden: true, opacity: 0.01),
                Layer(id: "off", shape: rect(0, 0, 10, 10), pointerEvents: PointerEvents.none, opacity: 0.001),
            ]))
        XCTAssertEqual(
            scene.traceSummary(5, 5),
            [
                "off skip transparent", "visibleEnough skip hidden", "faint skip transparent", "base hit inside",
            ])
        XCTAssertEqual(
            CompiledScene(
                Scene(layers: [
                    Layer(id: "ok", shape: rect(0, 0, 10, 10), opacity: 0.01)
                ])
            ).targetID(5, 5), "ok")
    }

    func testHiddenAndNoneCoverTheWholeSubtree() {
        for layer in [
            Layer(id: "p", hidden: true, children: [Layer(id: "c", shape: rect(0, 0, 10, 10))]),
            Layer(id: "p", pointerEvents: PointerEvents.none, children: [Layer(id: "c", shape: rect(0, 0, 10, 10))]),
            Layer(id: "p", opacity: 0, children: [Layer(id: "c", shape: rect(0, 0, 10, 10))]),
        ] {
            XCTAssertEqual(CompiledScene(Scene(layers: [layer])).targetID(5, 5), nil)
        }
    }

    func testChildrenOnlyAndSelfOnly() {
        let kids = [Layer(id: "kid", shape: rect(0, 0, 10, 10))]
        let boxNone = CompiledScene(
            Scene(layers: [
                Layer(id: "p", shape: rect(0, 0, 100, 100), pointerEvents: .childrenOnly, children: kids)
            ]))
        XCTAssertEqual(boxNone.targetID(5, 5), "kid")
        XCTAssertEqual(boxNone.targetID(50, 50), nil)
        XCTAssertEqual(boxNone.traceSummary(50, 50), ["kid miss outside", "p miss children-only"])
        let boxOnly = CompiledScene(
            Scene(layers: [
                Layer(id: "p", shape: rect(0, 0, 100, 100), pointerEvents: .selfOnly, children: kids)
            ]))
        XCTAssertEqual(boxOnly.targetID(5, 5), "p")
        XCTAssertEqual(boxOnly.traceSummary(5, 5), ["p hit inside"])
    }

    func testHitShapeReplacesTheDrawnShapeForHits() {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "icon", shape: rect(0, 0, 10, 10), hitShape: rect(-10, -10, 30, 30))
            ]))
        XCTAssertEqual(scene.targetID(-5, -5), "icon")
        XCTAssertEqual(scene.targetID(25, 25), nil)
    }

    func testContainerWithoutShapeIsNeverATarget() {
        let scene = CompiledScene(Scene(layers: [Layer(id: "group", children: [])]))
        XCTAssertEqual(scene.traceSummary(0, 0), ["group miss no-shape"])
    }

    func testStackListsEveryAcceptingLayerFrontToBack() {
        let scene = CompiledScene(ringOverButton())
        XCTAssertEqual(scene.hit(Point(210, 120), all: true).stack?.map { scene.ids[$0] }, ["ring", "button"])
        XCTAssertEqual(scene.hit(Point(120, 120), all: true).stack?.map { scene.ids[$0] }, ["button"])
    }

    func testBoundsUnionEveryRegionInSceneCoordinates() throws {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "a", shape: rect(0, 0, 10, 10), hitSlop: .insets(top: 5, right: nil, bottom: nil, left: nil)),
                Layer(
                    id: "b", shape: rect(0, 0, 10, 10), transform: .parts(TransformParts(translate: Point(100, 100), rotate: 45)),
                    hidden: true),
            ]))
        let b = try XCTUnwrap(scene.bounds)
        XCTAssertEqual(b.minY, -5)
        XCTAssertEqual(b.minX, 0)
        XCTAssertEqual(b.maxX, 100 + 10 / 2.0.squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(b.maxY, 100 + 2 * 10 / 2.0.squareRoot(), accuracy: 1e-9)
        XCTAssertNil(CompiledScene(Scene(layers: [Layer(id: "g")])).bounds)
    }
}

extension RouterTests {
    func testColorNeverAffectsHits() {
        var plain = ringOverButton()
        let before = CompiledScene(plain)
        for k in plain.layers.indices { plain.layers[k].color = k % 2 == 0 ? "transparent" : "rgba(0,0,0,0)" }
        let after = CompiledScene(plain)
        for (x, y) in [(120.0, 120.0), (210, 120), (10, 10), (1, 1)] {
            XCTAssertEqual(before.hit(Point(x, y), trace: true).trace, after.hit(Point(x, y), trace: true).trace)
        }
    }
}

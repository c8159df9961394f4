import HitImage
import HitRender
import HitRouting
import XCTest

final class SceneRendererTests: XCTestCase {
    /// The `<path>` elements of layer `id` (its own, not its children's).
    private func paths(_ all: [Element], of id: String) -> [Element] {
        all.filter { $0.name == "path" && $0.layer == id }
    }

    private func group(_ all: [Element], _ id: String) -> Element? {
        all.first { $0.name == "g" && $0.attributes["data-layer"] == id }
    }

    func testTheRingIsDrawnBackToFrontWithItsFillRuleAndStroke() {
        let text = svg(ringOverButton())
        let all = elements(text)
        XCTAssertTrue(
            text.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 240 240\" width=\"240\" height=\"240\""
            ))
        XCTAssertEqual(all.compactMap { $0.attributes["data-layer"] }, ["button", "ring", "frame"])
        let button = paths(all, of: "button")[0].attributes
        XCTAssertEqual(button["d"], "M0,0H240V240H0Z")
        XCTAssertEqual(button["fill"], "#2f6fde")
        XCTAssertEqual(button["pointer-events"], "fill")
        let ring = paths(all, of: "ring")[0].attributes
        XCTAssertEqual(ring["d"], "M240,120A120 120 0 0 1 0,120A120 120 0 0 1 240,120Z M168,120A48 48 0 0 1 72,120A48 48 0 0 1 168,120Z")
        XCTAssertEqual(ring["fill-rule"], "evenodd")
        let frame = paths(all, of: "frame")[0].attributes
        XCTAssertEqual(frame["fill"], "none")
        XCTAssertEqual(frame["stroke"], "#808080")
        XCTAssertEqual(frame["stroke-width"], "4")
        XCTAssertEqual(frame["stroke-linejoin"], "round")
        XCTAssertEqual(frame["stroke-linecap"], "round")
        XCTAssertEqual(frame["pointer-events"], "none", "pointerEvents none")
        XCTAssertEqual(group(all, "frame")?.attributes["pointer-events"], "none")
        XCTAssertTrue(text.contains("Every feature of this scene is expressed"))
    }

    func testEveryShapeTypeBecomesPathData() throws {
        let scene = Scene(
            id: "shapes",
            layers: [
                Layer(id: "rounded", shape: rect(0, 0, 100, 40, radius: 50)),  // clamped to 20
                Layer(id: "circle", shape: Shape(.circle(cx: 10, cy: 10, r: 5))),
                Layer(id: "polygon", shape: Shape(.polygon([Point(0, 0), Point(10, 0), Point(5, 8.5)]))),
                Layer(id: "polyline", shape: Shape(.polyline([Point(0, 0), Point(10, 0), Point(5, 8.5)]), fill: false, stroke: 2)),
                Layer(id: "curves", shape: try path("M0 0 q5 5 10 0 t10 0 c 1 1 2 2 3 3 s4 4 5 5 a5 3 30 1 0 10 10 h5 v5 z")),
                Layer(id: "two", shape: try path("M0 0 L10 0 L10 10 Z M20 20 L30 20 L30 30", fillRule: .evenodd)),
            ])
        let all = elements(svg(scene))
        func d(_ id: String) -> String? { paths(all, of: id).first?.attributes["d"] }
        XCTAssertEqual(d("rounded"), "M20,0H80A20 20 0 0 1 100,20V20A20 20 0 0 1 80,40H20A20 20 0 0 1 0,20V20A20 20 0 0 1 20,0Z")
        XCTAssertEqual(d("circle"), "M15,10A5 5 0 0 1 5,10A5 5 0 0 1 15,10Z")
        XCTAssertEqual(d("polygon"), "M0,0L10,0 5,8.5Z")
        XCTAssertEqual(d("polyline"), "M0,0L10,0 5,8.5", "a polyline stays open")
        XCTAssertEqual(d("curves"), "M0,0Q5,5 10,0Q15,-5 20,0C21,1 22,2 23,3C24,4 27,7 28,8A5 3 30 1 0 38,18L43,18L43,23Z")
        XCTAssertEqual(d("two"), "M0,0L10,0L10,10Z M20,20L30,20L30,30")
        XCTAssertEqual(paths(all, of: "two").first?.attributes["fill-rule"], "evenodd")
        XCTAssertEqual(paths(all, of: "polyline").first?.attributes["pointer-events"], "stroke")
    }

    func testDegenerateShapesDrawNothing() throws {
        let scene = Scene(
            id: "empty",
            layers: [
                Layer(id: "flat", shape: rect(0, 0, 0, 10)),
                Layer(id: "thin", shape: Shape(.ellipse(cx: 0, cy: 0, rx: 5, ry: 0), stroke: 3)),
                Layer(id: "dot", shape: Shape(.polygon([Point(1, 1), Point(1, 1), Point(1, 1)]), stroke: 3)),
                Layer(id: "lone", shape: try path("M5 5 L5 5 Z M1 1 M0 0 L4 0 L4 4", stroke: 2)),
            ])
        let all = elements(svg(scene))
        XCTAssertEqual(paths(all, of: "flat").first?.attributes["d"], "")
        XCTAssertEqual(paths(all, of: "thin").first?.attributes["d"], "")
        XCTAssertEqual(paths(all, of: "dot").first?.attributes["d"], "")
        XCTAssertEqual(paths(all, of: "lone").first?.attributes["d"], "M0,0L4,0L4,4", "single-point subpaths are left out")
    }

    func testTransformsAreTheCompiledMatrices() {
        let parts = TransformParts(translate: Point(10, 20), rotate: 30, scale: .xy(2, 3), origin: Point(5, 5))
        let scene = Scene(
            id: "t",
            layers: [
                Layer(id: "a", shape: rect(0, 0, 10, 10), transform: .parts(parts)),
                Layer(id: "b", shape: rect(0, 0, 10, 10), transform: .matrix(Affine(a: 1, b: 0.5, c: -0.25, d: 1, e: 3, f: 4))),
                Layer(id: "c", shape: rect(0, 0, 10, 10), transform: .matrix(Affine(a: 1, b: 2, c: 2, d: 4, e: 0, f: 0))),
            ])
        let all = elements(svg(scene))
        let m = Transform.parts(parts).affine
        let numbers = group(all, "a")!.attributes["transform"]!.dropFirst("matrix(".count).dropLast()
            .split(separator: " ").map { Double($0)! }
        XCTAssertEqual(numbers, [m.a, m.b, m.c, m.d, m.e, m.f])
        XCTAssertEqual(group(all, "b")?.attributes["transform"], "matrix(1 0.5 -0.25 1 3 4)")
        XCTAssertEqual(group(all, "c")?.attributes["pointer-events"], "none", "a singular transform is unhittable")
        XCTAssertEqual(paths(all, of: "c").first?.attributes["pointer-events"], "none")
    }

    func testPointerEventsFollowTheRoutingRules() {
        let scene = Scene(
            id: "pe",
            layers: [
                Layer(
                    id: "hidden", shape: rect(0, 0, 10, 10), hidden: true, children: [Layer(id: "under-hidden", shape: rect(0, 0, 5, 5))]),
                Layer(
                    id: "faint", shape: rect(0, 0, 10, 10), opacity: 0.005,
                    children: [
                        Layer(id: "under-faint", shape: rect(0, 0, 5, 5), pointerEvents: .auto)
                    ]),
                Layer(
                    id: "box-none", shape: rect(0, 0, 10, 10), pointerEvents: .childrenOnly,
                    children: [
                        Layer(id: "in-box-none", shape: rect(0, 0, 5, 5))
                    ]),
                Layer(
                    id: "box-only", shape: rect(0, 0, 10, 10), pointerEvents: .selfOnly,
                    children: [
                        Layer(id: "in-box-only", shape: rect(0, 0, 5, 5))
                    ]),
                Layer(id: "content", shape: rect(0, 0, 100, 100), hitShape: rect(25, 25, 50, 50)),
                Layer(id: "both", shape: Shape(.circle(cx: 5, cy: 5, r: 5), stroke: 2)),
                Layer(
                    id: "clip", shape: ellipse(50, 50, 40, 20), clipChildren: true,
                    children: [Layer(id: "clipped", shape: rect(0, 0, 100, 100))]),
                Layer(id: "container", children: [Layer(id: "leaf", shape: rect(0, 0, 1, 1))]),
            ])
        let all = elements(svg(scene))
        func events(_ id: String) -> [String?] { paths(all, of: id).map { $0.attributes["pointer-events"] } }
        XCTAssertNil(group(all, "hidden"))
        XCTAssertNil(group(all, "under-hidden"))
        XCTAssertEqual(group(all, "faint")?.attributes["opacity"], "0.005")
        XCTAssertEqual(events("faint"), ["none"])
        XCTAssertEqual(events("under-faint"), ["none"], "the whole subtree of a transparent layer")
        XCTAssertEqual(events("box-none"), ["none"])
        XCTAssertEqual(events("in-box-none"), ["fill"])
        XCTAssertEqual(events("box-only"), ["fill"])
        XCTAssertEqual(events("in-box-only"), ["none"])
        XCTAssertEqual(events("content"), ["none", "fill"], "the drawn shape takes nothing; the hit shape, drawn invisibly, does")
        XCTAssertEqual(paths(all, of: "content")[1].attributes["d"], "M25,25H75V75H25Z")
        XCTAssertEqual(paths(all, of: "content")[1].attributes["fill"], "none")
        XCTAssertEqual(events("both"), ["all"])
        XCTAssertEqual(events("leaf"), ["fill"])
        XCTAssertTrue(paths(all, of: "container").isEmpty)
        let clip = all.first { $0.name == "clipPath" }
        XCTAssertNotNil(clip)
        let clipID = clip?.attributes["id"] ?? "?"
        XCTAssertTrue(all.contains { $0.name == "g" && $0.attributes["clip-path"] == "url(#\(clipID))" })
        XCTAssertEqual(events("clipped"), ["fill"])
    }

    func testAPassThroughLayerLetsTheBrowsersClickThroughToTheLayerBelow() {
        var halo = Layer(id: "halo", shape: rect(0, 0, 100, 100), children: [Layer(id: "in-halo", shape: rect(0, 0, 5, 5))])
        halo.passThrough = true
        let all = elements(svg(Scene(id: "pass", layers: [Layer(id: "button", shape: rect(0, 0, 50, 50)), halo])))
        func events(_ id: String) -> [String?] { paths(all, of: id).map { $0.attributes["pointer-events"] } }
        XCTAssertEqual(events("halo"), ["none"], "the router goes on below a receiver; so must elementFromPoint")
        XCTAssertEqual(events("in-halo"), ["fill"], "its children still take points")
        XCTAssertEqual(events("button"), ["fill"])
    }

    func testWhatARenderCannotExpressIsSaid() {
        var slop = Layer(id: "slop", shape: rect(0, 0, 10, 10))
        slop.hitSlop = .uniform(8)
        let clipByStroke = Layer(
            id: "stroke-clip", shape: Shape(.circle(cx: 5, cy: 5, r: 5), fill: false, stroke: 2),
            clipChildren: true, children: [Layer(id: "kid", shape: rect(0, 0, 9, 9))])
        let text = svg(Scene(id: "x", layers: [slop, clipByStroke]))
        _ = elements(text)
        XCTAssertTrue(text.contains("hitSlop (SVG cannot grow a region) on \"slop\""), text)
        XCTAssertTrue(text.contains("clipChildren by a stroke band or an unfilled region"), text)
        XCTAssertTrue(text.contains("\"stroke-clip\""), text)
    }

    func testHostileTextRunsNothing() {
        let action = #""><script>alert(1)</script>"#
        let scene = Scene(
            id: "xss", width: 100, height: 100,
            layers: [
                Layer(id: "a", action: action, shape: rect(0, 0, 100, 100), color: #"red" onload="alert(1)"#),
                Layer(id: "b--c", action: "--><script>alert(2)</script><!--", shape: rect(0, 0, 10, 10), color: "url(javascript:alert(3))"),
            ])
        for text in [svg(scene, x: 50, y: 50, regions: true), svg(scene, x: 5, y: 5)] {
            let all = elements(text)
            XCTAssertFalse(all.contains { $0.name == "script" || $0.name == "foreignObject" })
            for e in all {
                for name in e.attributes.keys { XCTAssertFalse(name.lowercased().hasPrefix("on"), "\(e.name) has \(name)") }
            }
            XCTAssertEqual(paths(all, of: "a").first?.attributes["fill"], SVGColor.neutral)
            XCTAssertFalse(text.contains("<script"), text)
        }
        let label = elements(svg(scene, x: 50, y: 50)).first { $0.attributes["class"] == "label" }
        XCTAssertEqual(label?.text, "a → " + action)
    }

    func testTheRoutingOverlayOutlinesTheTargetAndTintsTheTrace() {
        let scene = Scene(
            id: "nest", width: 200, height: 200,
            layers: [
                Layer(
                    id: "card", action: "card.open", shape: rect(0, 0, 200, 200),
                    children: [
                        Layer(
                            id: "icon", shape: Shape(.circle(cx: 50, cy: 50, r: 20)),
                            transform: .parts(TransformParts(translate: Point(10, 10)))),
                        Layer(id: "badge", shape: rect(150, 150, 20, 20)),
                    ])
            ])
        let all = elements(svg(scene, x: 60, y: 60))
        let overlays = all.filter { $0.attributes["data-overlay"] != nil }
        let tints = overlays.filter { ["hit", "miss", "skip"].contains($0.attributes["data-overlay"]!) }
        XCTAssertEqual(tints.map { "\($0.attributes["data-of"]!) \($0.attributes["data-overlay"]!)" }, ["badge miss", "icon hit"])
        XCTAssertEqual(overlays.filter { $0.attributes["data-overlay"] == "ancestor" }.map { $0.attributes["data-of"] }, ["card"])
        let target = overlays.first { $0.attributes["data-overlay"] == "target" }
        XCTAssertEqual(target?.attributes["data-of"], "icon")
        XCTAssertEqual(target?.attributes["transform"], "matrix(1 0 0 1 10 10)")
        XCTAssertEqual(all.first { $0.attributes["class"] == "label" }?.text, "icon → card.open")
        let legend = all.filter { $0.name == "text" && $0.attributes["class"] == nil }.map(\.text)
        XCTAssertEqual(legend, ["badge: miss — outside", "icon: hit — inside"])
        let routing = all.first { $0.attributes["class"] == "routing" }
        XCTAssertEqual(routing?.attributes["pointer-events"], "none")
        // Nothing here: the label says so.
        XCTAssertEqual(elements(svg(scene, x: 500, y: 500)).first { $0.attributes["class"] == "label" }?.text, "nothing here")
    }

    /// The legend's box never covers the routed point, wherever it is:
    /// (10, 10) in the ring scene lies under the top-left corner.
    func testTheLegendLeavesThePointUncovered() {
        for (x, y) in [(10.0, 10.0), (120, 120), (5, 235), (235, 5), (235, 235), (60, 20), (20, 200)] {
            let all = elements(svg(ringOverButton(), x: x, y: y))
            let groups = all.filter { $0.attributes["class"] == "legend" }
            XCTAssertEqual(groups.count, 1)
            let box = all.first { $0.name == "rect" && $0.attributes["fill-opacity"] == "0.88" }!.attributes
            let bx = Double(box["x"]!)!
            let by = Double(box["y"]!)!
            let bw = Double(box["width"]!)!
            let bh = Double(box["height"]!)!
            XCTAssertTrue(x < bx || x > bx + bw || y < by || y > by + bh, "(\(x), \(y)) under the legend \(box)")
            XCTAssertTrue(bx >= 0 && by >= 0 && bx + bw <= 240 && by + bh <= 240, "the legend stays in view: \(box)")
        }
    }

    func testTheRegionsOverlayDrawsEveryHitRegion() {
        var slop = Layer(id: "slop", shape: rect(10, 10, 10, 10))
        slop.hitSlop = .insets(top: 1, right: 2, bottom: 3, left: 4)
        let scene = Scene(
            id: "r",
            layers: [
                Layer(id: "content", shape: rect(0, 0, 100, 100), hitShape: rect(25, 25, 50, 50)),
                slop,
                Layer(id: "gone", shape: rect(0, 0, 5, 5), hidden: true),
                Layer(id: "band", shape: Shape(.circle(cx: 50, cy: 50, r: 30), fill: false, stroke: 6)),
            ])
        let all = elements(svg(scene, regions: true))
        let regions = all.filter { $0.attributes["data-region"] != nil }.map { $0.attributes["data-region"]! }
        XCTAssertEqual(regions, ["content", "slop", "band"])
        let slopBox = all.first { $0.name == "rect" && $0.attributes["stroke-dasharray"] != nil }
        XCTAssertEqual(slopBox?.attributes["x"], "6")
        XCTAssertEqual(slopBox?.attributes["y"], "9")
        XCTAssertEqual(slopBox?.attributes["width"], "16")
        XCTAssertEqual(slopBox?.attributes["height"], "14")
        XCTAssertEqual(all.first { $0.attributes["class"] == "regions" }?.attributes["pointer-events"], "none")
    }

    func testTheViewBoxIsTheCanvasElseTheBoundsAndWidthScales() {
        var all = elements(svg(Scene(id: "b", layers: [Layer(id: "a", shape: rect(-10, 5, 30, 15))])))
        XCTAssertEqual(all[0].attributes["viewBox"], "-10 5 30 15")
        all = elements(svg(ringOverButton(), width: 480))
        XCTAssertEqual(all[0].attributes["width"], "480")
        XCTAssertEqual(all[0].attributes["height"], "480")
        all = elements(svg(Scene(id: "none")))
        XCTAssertEqual(all[0].attributes["viewBox"], "0 0 100 100")
        all = elements(svg(Scene(id: "big", width: 10_000, height: 5_000)))
        XCTAssertEqual(all[0].attributes["width"], "2048", "at most 2048 pixels by default")
        XCTAssertEqual(all[0].attributes["height"], "1024")
    }
}

/// SPEC §7: a mask is drawn as its pixels at or above the threshold, an
/// embedded PNG under the layer's transform; the routing overlay and
/// `regions=1` draw masks too.
final class MaskRenderTests: XCTestCase {
    /// A mask whose alpha runs over every value, in a 23 × 11 grid.
    func sprite(threshold: Double?) -> (Layer, Mask) {
        let columns = 23
        let rows = 11
        let alpha = (0..<(columns * rows)).map { UInt8(truncatingIfNeeded: $0 * 37 % 256) }
        let mask = Mask(
            x: 4, y: 6, width: 46, height: 33, threshold: threshold, source: .alpha,
            image: AlphaPlane(columns: columns, rows: rows, alpha: alpha)!)
        let layer = Layer(
            id: "sprite", action: "sprite.pick", shape: Shape(.mask(mask)),
            transform: .parts(TransformParts(translate: Point(10, 20), rotate: 30)), color: "#2f6fde")
        return (layer, mask)
    }

    /// The PNGs embedded in `text`, decoded with the project's decoder.
    func embedded(_ text: String) throws -> [AlphaImage] {
        try elements(text).filter { $0.name == "image" }.map { image in
            let href = try XCTUnwrap(image.attributes["href"])
            XCTAssertTrue(href.hasPrefix("data:image/png;base64,"))
            let bytes = try XCTUnwrap(Data(base64Encoded: String(href.dropFirst("data:image/png;base64,".count))))
            return try [UInt8](bytes).withUnsafeBufferPointer { try PNGDecoder.decodeAlpha($0, maxPixels: 1 << 20) }
        }
    }

    func testTheDrawnPixelsAreTheCountedOnes() throws {
        for threshold in [nil, 0.0, 0.25, 128.0 / 255, 1.0] {
            let (layer, mask) = sprite(threshold: threshold)
            let text = svg(Scene(id: "m", width: 100, height: 100, layers: [layer]))
            let images = try embedded(text)
            XCTAssertEqual(images.count, 1)
            let least = Mask.minimumOpaqueAlpha(threshold: threshold ?? 0.5)
            XCTAssertEqual(images[0].columns, 23)
            XCTAssertEqual(images[0].rows, 11)
            for k in 0..<mask.image.alpha.count {
                XCTAssertEqual(images[0].alpha[k], Int(mask.image.alpha[k]) >= least ? 255 : 0, "pixel \(k), threshold \(threshold ?? 0.5)")
            }
            // Under the layer's transform, over the mask's rectangle, in its colour.
            let all = elements(text)
            let rect = try XCTUnwrap(all.first { $0.name == "rect" && $0.attributes["mask"] != nil })
            XCTAssertEqual(rect.layer, "sprite")
            XCTAssertEqual(rect.attributes["fill"], "#2f6fde")
            XCTAssertEqual(
                [rect.attributes["x"], rect.attributes["y"], rect.attributes["width"], rect.attributes["height"]], ["4", "6", "46", "33"])
            let group = try XCTUnwrap(all.first { $0.attributes["data-layer"] == "sprite" && $0.name == "g" })
            XCTAssertNotNil(group.attributes["transform"])
            let maskID = try XCTUnwrap(all.first { $0.name == "mask" }?.attributes["id"])
            XCTAssertEqual(rect.attributes["mask"], "url(#\(maskID))")
        }
    }

    func testTheOverlayAndRegionsDrawMasks() throws {
        let (layer, mask) = sprite(threshold: nil)
        let live = LiveScene(Scene(id: "m", width: 100, height: 100, layers: [layer]))
        // A point on a counted pixel: the sprite is the target.
        let local = (0..<mask.image.alpha.count).first { mask.image.alpha[$0] >= 128 }!
        let centre = Point(4 + (Double(local % 23) + 0.5) * 2, 6 + (Double(local / 23) + 0.5) * 3)
        let p = layer.transform!.affine.apply(centre)
        XCTAssertEqual(live.compiled.hit(p, trace: true).target.map { live.compiled.ids[$0] }, "sprite")
        let text = svg(Scene(id: "m", width: 100, height: 100, layers: [layer]), x: p.x, y: p.y, regions: true)
        let all = elements(text)
        let target = try XCTUnwrap(all.first { $0.attributes["data-overlay"] == "target" })
        XCTAssertEqual(target.attributes["data-of"], "sprite")
        let outline = try XCTUnwrap(all.first { $0.name == "path" && $0.attributes["stroke-width"] == "4" })
        XCTAssertFalse((outline.attributes["d"] ?? "").isEmpty, "the target's outline follows the pixel edges")
        XCTAssertTrue(text.contains("sprite → sprite.pick"))
        let regions = try XCTUnwrap(all.first { $0.attributes["data-region"] == "sprite" })
        XCTAssertNotNil(regions.attributes["transform"])
        // The drawing, its tint in the overlay and its region: each the same counted pixels.
        let images = try embedded(text)
        XCTAssertGreaterThanOrEqual(images.count, 3)
        XCTAssertEqual(Set(images.map(\.alpha)).count, 1)
    }

    /// The outline's edges: a single counted pixel is a square of four.
    func testOutlineOfOnePixel() {
        let mask = Mask(
            x: 0, y: 0, width: 3, height: 3, threshold: nil, source: .alpha,
            image: AlphaPlane(columns: 3, rows: 3, alpha: [0, 0, 0, 0, 255, 0, 0, 0, 0])!)
        let layer = Layer(id: "dot", shape: Shape(.mask(mask)))
        let text = svg(Scene(id: "d", width: 3, height: 3, layers: [layer]), x: 1.5, y: 1.5)
        XCTAssertTrue(text.contains("d=\"M1,1H2 M1,2H2 M1,1V2 M2,1V2\""), text)
    }
}

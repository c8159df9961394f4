import HitRouting

/// The overlays of a render (SPEC §7), drawn after the scene in scene
/// coordinates with `pointer-events="none"` throughout, so that they never
/// change what a browser's hit test finds.
enum Overlay {
    /// Tints by trace decision; unknown decisions (added later) are violet.
    static func tint(_ decision: String) -> StaticString {
        switch decision {
        case "hit": return "#1a9850"
        case "miss": return "#d73027"
        case "skip": return "#6b6b6b"
        case "pass": return "#2166ac"
        case "captured": return "#1a9850"
        default: return "#7b3294"
        }
    }

    /// `regions=1`: every layer's hit region (fill area, stroke band) in
    /// translucent magenta, and, where it has slop, the dashed box of its
    /// region grown by the slop (exact for rectangles, the region's box otherwise).
    /// - Complexity: O(layers × depth + vertices).
    static func regions(_ model: Scene, _ compiled: CompiledScene, _ w: inout SVGWriter) {
        w.raw("<g class=\"regions\" pointer-events=\"none\">\n")
        forEachLayer(model, compiled) { layer, n in
            guard let shape = layer.effectiveHitShape, let region = compiled.region(of: n) else { return }
            let m = compiled.localToScene(n)
            guard m.inverse != nil else { return }
            w.raw("<g")
            w.attribute("data-region", layer.id)
            matrix(m, &w)
            w.raw(">")
            regionPath(shape, &w)
            if !region.slop.isZero {
                let b = region.bounds
                w.raw("<rect")
                w.attribute("x", b.minX)
                w.attribute("y", b.minY)
                w.attribute("width", b.width)
                w.attribute("height", b.height)
                w.raw(
                    " fill=\"#d01c8b\" fill-opacity=\"0.12\" stroke=\"#d01c8b\" stroke-dasharray=\"4 3\" vector-effect=\"non-scaling-stroke\" pointer-events=\"none\"/>"
                )
            }
            w.raw("</g>\n")
        }
        w.raw("</g>\n")
    }

    private static func regionPath(_ shape: Shape, _ w: inout SVGWriter) {
        MaskDrawing.forEachMask(in: shape.geometry) { m in
            MaskDrawing.write(m, paint: "#d01c8b", opacity: 0.3, events: "none", &w)
        }
        if case .mask = shape.geometry { return }
        w.raw("<path")
        w.beginPathData()
        SVGPathData.append(shape.geometry, to: &w)
        w.endAttribute()
        if shape.fillRule == .evenodd { w.raw(" fill-rule=\"evenodd\"") }
        if shape.fill ?? true { w.raw(" fill=\"#d01c8b\" fill-opacity=\"0.3\"") } else { w.raw(" fill=\"none\"") }
        if let s = shape.stroke, s > 0 {
            w.raw(" stroke=\"#d01c8b\" stroke-opacity=\"0.3\"")
            w.attribute("stroke-width", s)
            w.raw(" stroke-linejoin=\"round\" stroke-linecap=\"round\"")
        }
        w.raw(" pointer-events=\"none\"/>")
    }

    /// `x`, `y`: tints of the visited layers, outlines of the target and its
    /// ancestors, the point, the label and the legend of the trace.
    static func routing(
        _ point: Point, _ result: HitResult, _ model: Scene, _ compiled: CompiledScene, _ view: ViewBox,
        _ w: inout SVGWriter
    ) {
        let size = view.labelSize
        w.raw("<g class=\"routing\" pointer-events=\"none\">\n")
        // Tints, one per visited layer (its hit shape, in its decision's colour).
        for entry in result.trace where entry.layer >= 0 {
            outline(
                entry.layer, model, compiled, colour: tint(entry.decision.rawValue), width: 1.5, fillOpacity: 0.18, &w,
                data: entry.decision.rawValue)
        }
        // Receivers of pass-through layers (decision "pass"), dashed.
        for entry in result.trace where entry.layer >= 0 && entry.decision.rawValue == "pass" {
            outline(entry.layer, model, compiled, colour: tint("pass"), width: 3, fillOpacity: 0, &w, data: "receiver", dashed: true)
        }
        if let target = result.target {
            var path: [Int] = []
            compiled.forEachLayer(onPathTo: target) { path.append($0) }
            for ancestor in path.dropLast() {
                outline(ancestor, model, compiled, colour: "#111111", width: 1.5, fillOpacity: 0, &w, data: "ancestor")
            }
            outline(target, model, compiled, colour: "#111111", width: 4, fillOpacity: 0, &w, data: "target")
        }
        // The point: a ring with a cross.
        let r = size * 0.45
        w.raw("<circle")
        w.attribute("cx", point.x)
        w.attribute("cy", point.y)
        w.attribute("r", tidy(r))
        w.raw(" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"4\" vector-effect=\"non-scaling-stroke\"/>")
        w.raw("<circle")
        w.attribute("cx", point.x)
        w.attribute("cy", point.y)
        w.attribute("r", tidy(r))
        w.raw(" fill=\"none\" stroke=\"#111111\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\"/>")
        w.raw("<path")
        w.beginPathData()
        w.raw("M")
        w.point(point.x - 2 * r, point.y)
        w.raw("H")
        w.number(point.x + 2 * r)
        w.raw("M")
        w.point(point.x, point.y - 2 * r)
        w.raw("V")
        w.number(point.y + 2 * r)
        w.endAttribute()
        w.raw(" stroke=\"#111111\" stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"/>\n")
        // The label beside the point.
        var label = "nothing here"
        if let target = result.target {
            label = compiled.ids[target]
            if let (action, _) = compiled.action(for: target) { label += " → " + action }
        }
        // On the side of the point with more room, so that it stays in view.
        let right = point.x < view.x + view.width * 0.55
        let above = point.y > view.y + size * 2.5
        text(
            label, x: right ? point.x + r * 1.4 : point.x - r * 1.4, y: above ? point.y - r * 1.4 : point.y + r * 1.4 + size,
            size: size, bold: true, class: "label", anchorEnd: !right, &w)
        legend(result, compiled, view, avoiding: point, radius: 2 * r, &w)
        w.raw("</g>\n")
    }

    /// The trace as lines of text in a box (at most `legendLines` entries,
    /// then a count of the rest), in the first of the view's corners
    /// (top-left, bottom-left, top-right, bottom-right) where it leaves the
    /// routed point and its mark (`radius` around it) uncovered; top-left
    /// when none does.
    private static func legend(
        _ result: HitResult, _ compiled: CompiledScene, _ view: ViewBox, avoiding point: Point, radius: Double,
        _ w: inout SVGWriter
    ) {
        let size = view.labelSize * 0.75
        let entries = result.trace.prefix(legendLines)
        var lines: [(String, StaticString)] = entries.map { e in
            let id = e.layer >= 0 ? compiled.ids[e.layer] : "(gone)"
            return ("\(id): \(e.decision.rawValue) — \(e.reason.rawValue)", tint(e.decision.rawValue))
        }
        if result.trace.count > entries.count { lines.append(("… \(result.trace.count - entries.count) more", "#111111")) }
        if lines.isEmpty { lines.append(("no layer visited", "#111111")) }
        let longest = lines.map { $0.0.count }.max() ?? 0
        let width = min(view.width - size, Double(longest) * size * 0.58 + size * 2.2)
        let height = Double(lines.count) * size * 1.3 + size * 0.6
        let left = view.x + size * 0.5
        let top = view.y + size * 0.5
        let right = view.x + view.width - size * 0.5 - width
        let bottom = view.y + view.height - size * 0.5 - height
        let corners = [(left, top), (left, bottom), (right, top), (right, bottom)]
        let (x, y) =
            corners.first { cx, cy in
                point.x < cx - radius || point.x > cx + width + radius || point.y < cy - radius || point.y > cy + height + radius
            } ?? (left, top)
        w.raw("<g class=\"legend\">")
        w.raw("<rect")
        w.attribute("x", tidy(x))
        w.attribute("y", tidy(y))
        w.attribute("width", tidy(width))
        w.attribute("height", tidy(height))
        w.raw(" fill=\"#ffffff\" fill-opacity=\"0.88\" stroke=\"#111111\" stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"/>")
        for (k, (line, colour)) in lines.enumerated() {
            let baseline = y + size * 0.3 + Double(k + 1) * size * 1.3
            w.raw("<rect")
            w.attribute("x", tidy(x + size * 0.4))
            w.attribute("y", tidy(baseline - size * 0.8))
            w.attribute("width", tidy(size * 0.8))
            w.attribute("height", tidy(size * 0.8))
            w.raw(" fill=\"")
            w.raw(colour)
            w.raw("\"/>")
            text(line, x: x + size * 1.5, y: baseline, size: size, bold: false, class: nil, anchorEnd: false, &w)
        }
        w.raw("</g>\n")
    }

    static let legendLines = 24

    /// A decoration's coordinate to two decimals (labels and legends need
    /// no more, and `7.800000000000001` reads badly).
    static func tidy(_ v: Double) -> Double { (v * 100).rounded() / 100 }

    private static func text(
        _ s: String, x: Double, y: Double, size: Double, bold: Bool, class name: StaticString?, anchorEnd: Bool,
        _ w: inout SVGWriter
    ) {
        w.raw("<text")
        if anchorEnd { w.raw(" text-anchor=\"end\"") }
        if let name {
            w.raw(" class=\"")
            w.raw(name)
            w.raw("\"")
        }
        w.attribute("x", tidy(x))
        w.attribute("y", tidy(y))
        w.attribute("font-size", tidy(size))
        if bold { w.raw(" font-weight=\"bold\"") }
        w.raw(" fill=\"#111111\" stroke=\"#ffffff\"")
        w.attribute("stroke-width", tidy(size / 5))
        w.raw(" paint-order=\"stroke\">")
        w.text(s)
        w.raw("</text>")
    }

    /// Layer `n`'s hit shape (its drawn shape when it has none) in scene
    /// coordinates, outlined `width` pixels wide and filled translucently.
    private static func outline(
        _ n: Int, _ model: Scene, _ compiled: CompiledScene, colour: StaticString, width: Double, fillOpacity: Double,
        _ w: inout SVGWriter, data: String, dashed: Bool = false
    ) {
        let layer = model.layer(at: compiled.modelPath(of: n))
        guard let shape = layer.effectiveHitShape ?? layer.shape else { return }
        let m = compiled.localToScene(n)
        guard m.inverse != nil else { return }
        w.raw("<g")
        w.attribute("data-overlay", data)
        w.attribute("data-of", layer.id)
        matrix(m, &w)
        w.raw(">")
        // A mask: its counted pixels tinted, and the edges around them.
        if fillOpacity > 0 {
            MaskDrawing.forEachMask(in: shape.geometry) { mask in
                MaskDrawing.write(mask, paint: String(describing: colour), opacity: fillOpacity, events: "none", &w)
            }
        }
        w.raw("<path")
        w.beginPathData()
        SVGPathData.append(shape.geometry, to: &w)
        MaskDrawing.forEachMask(in: shape.geometry) { mask in
            if w.pathStarted { w.raw(" ") }
            MaskDrawing.appendOutline(mask, &w)
            w.pathStarted = true
        }
        w.endAttribute()
        if shape.fillRule == .evenodd { w.raw(" fill-rule=\"evenodd\"") }
        if fillOpacity > 0 {
            w.raw(" fill=\"")
            w.raw(colour)
            w.raw("\"")
            w.attribute("fill-opacity", fillOpacity)
        } else {
            w.raw(" fill=\"none\"")
        }
        w.raw(" stroke=\"")
        w.raw(colour)
        w.raw("\"")
        w.attribute("stroke-width", width)
        if dashed { w.raw(" stroke-dasharray=\"6 4\"") }
        w.raw(" stroke-linejoin=\"round\" vector-effect=\"non-scaling-stroke\"/></g>\n")
    }

    private static func matrix(_ m: Affine, _ w: inout SVGWriter) {
        guard m != .identity else { return }
        w.raw(" transform=\"matrix(")
        w.number(m.a)
        w.raw(" ")
        w.number(m.b)
        w.raw(" ")
        w.number(m.c)
        w.raw(" ")
        w.number(m.d)
        w.raw(" ")
        w.number(m.e)
        w.raw(" ")
        w.number(m.f)
        w.raw(")\"")
    }

    /// Calls `body` with every layer that is drawn (not hidden, nor under a
    /// hidden one), with its compiled index, in pre-order.
    static func forEachLayer(_ model: Scene, _ compiled: CompiledScene, _ body: (Layer, Int) -> Void) {
        var next = 0
        func visit(_ layers: [Layer]) {
            for layer in layers {
                let n = next
                next += 1
                let hidden = layer.hidden ?? false
                if !hidden { body(layer, n) }
                if let children = layer.children {
                    if hidden { next += subtreeSize(children) } else { visit(children) }
                }
            }
        }
        visit(model.layers)
    }

    private static func subtreeSize(_ layers: [Layer]) -> Int {
        layers.reduce(0) { $0 + 1 + subtreeSize($1.children ?? []) }
    }
}

import HitRouting

/// Writes one layer and its subtree (see `SceneRenderer` for the rules).
struct LayerWriter {
    let compiled: CompiledScene

    /// Writes layer `n` (`layer` is its submitted form). `enabled` is false
    /// inside a subtree that can take no hit at all (then every element
    /// says `pointer-events="none"`).
    /// - Complexity: O(subtree); recursion as deep as the scene (≤ 64).
    mutating func write(_ layer: Layer, _ n: Int, enabled: Bool, _ w: inout SVGWriter) {
        if layer.hidden ?? false { return }
        let toParent = layer.transform?.affine ?? .identity
        let opacity = layer.opacity ?? 1
        let pe = layer.pointerEvents ?? .auto
        let active = enabled && opacity >= 0.01 && pe != .none && toParent.inverse != nil
        w.raw("<g")
        w.attribute("data-layer", layer.id)
        if toParent != .identity {
            w.raw(" transform=\"matrix(")
            w.number(toParent.a)
            w.raw(" ")
            w.number(toParent.b)
            w.raw(" ")
            w.number(toParent.c)
            w.raw(" ")
            w.number(toParent.d)
            w.raw(" ")
            w.number(toParent.e)
            w.raw(" ")
            w.number(toParent.f)
            w.raw(")\"")
        }
        if opacity < 1 { w.attribute("opacity", opacity) }
        if !active { w.raw(" pointer-events=\"none\"") }
        w.raw(">")
        // A pass-through layer receives the point but lets the browser's hit
        // test go on to what lies below, as the router does (SPEC §3).
        let ownTarget = active && pe != .childrenOnly && !(layer.passThrough ?? false)
        let color = SVGColor.fill(for: layer.color)
        if let shape = layer.shape {
            let events = ownTarget && layer.hitShape == nil ? LayerWriter.events(shape) : "none"
            LayerWriter.shapeElement(shape, fill: color, events: events, &w)
        }
        if let hitShape = layer.hitShape, ownTarget {
            LayerWriter.shapeElement(hitShape, fill: nil, events: LayerWriter.events(hitShape), &w)
        }
        if let children = layer.children, !children.isEmpty {
            var childrenEnabled = active && pe != .selfOnly
            var clipped = false
            if layer.clipChildren ?? false {
                if let hitShape = layer.effectiveHitShape, compiled.region(of: n) != nil {
                    w.raw("<clipPath id=\"clip-")
                    w.integer(n, negative: false)
                    w.raw("\" clipPathUnits=\"userSpaceOnUse\"><path")
                    w.beginPathData()
                    SVGPathData.append(hitShape.geometry, to: &w)
                    w.endAttribute()
                    if hitShape.fillRule == .evenodd { w.raw(" clip-rule=\"evenodd\"") }
                    w.raw("/></clipPath><g clip-path=\"url(#clip-")
                    w.integer(n, negative: false)
                    w.raw(")\">")
                    clipped = true
                } else {
                    childrenEnabled = false  // no region: every point is outside it
                }
            }
            w.raw("\n")
            for c in compiled.childrenBackToFront(of: n) {
                let k = Int(c)
                write(children[compiled.submittedPosition(of: k)], k, enabled: childrenEnabled, &w)
            }
            if clipped { w.raw("</g>") }
        }
        w.raw("</g>\n")
    }

    /// The geometric `pointer-events` value of a hit shape: its interior
    /// (`fill`), its stroke band (`stroke`), both (`all`) or neither.
    static func events(_ shape: Shape) -> StaticString {
        let fill = shape.fill ?? true
        let stroke = (shape.stroke ?? 0) > 0
        switch (fill, stroke) {
        case (true, true): return "all"
        case (true, false): return "fill"
        case (false, true): return "stroke"
        case (false, false): return "none"
        }
    }

    /// One `<path>` of `shape`: filled with `fill` (nil: invisible, for a
    /// separate hit shape) where `fill` is on, stroked as wide as its
    /// `stroke` with round joins and caps; each mask in it is drawn after
    /// the path as its counted pixels (``MaskDrawing``), in `fill`.
    static func shapeElement(_ shape: Shape, fill: String?, events: StaticString, _ w: inout SVGWriter) {
        defer {
            MaskDrawing.forEachMask(in: shape.geometry) { m in
                MaskDrawing.write(m, paint: shape.fill ?? true ? fill : nil, events: events, &w)
            }
        }
        if case .mask = shape.geometry { return }
        w.raw("<path")
        w.beginPathData()
        let drawn = SVGPathData.append(shape.geometry, to: &w)
        w.endAttribute()
        _ = drawn
        if shape.fillRule == .evenodd { w.raw(" fill-rule=\"evenodd\"") }
        let stroke = shape.stroke ?? 0
        if let fill, shape.fill ?? true {
            w.attribute("fill", fill)
        } else {
            w.raw(" fill=\"none\"")
        }
        if stroke > 0 {
            if let fill { w.attribute("stroke", fill) }
            w.attribute("stroke-width", stroke)
            w.raw(" stroke-linejoin=\"round\" stroke-linecap=\"round\"")
        }
        w.raw(" pointer-events=\"")
        w.raw(events)
        w.raw("\"/>")
    }
}

import HitRouting

/// Writes a scene as SVG (SPEC §7) from the geometry that routes it.
///
/// The document is in scene coordinates (y-down): each layer is a `<g>`
/// carrying `data-layer` and its transform as `matrix(a b c d e f)`, its
/// children after its own shape (children are on top, as routing visits
/// them first), siblings back to front (document order is z-order).
/// Pointer events are set per element so that a browser's
/// `document.elementFromPoint` names, through the nearest `data-layer`,
/// the layer the service routes to, wherever SVG can express the scene:
///
/// * a layer's own hit element uses the geometric values `fill`, `stroke`
///   or `all` (whatever its paint), matching the region's `fill` and
///   stroke band; `stroke-linejoin` and `stroke-linecap` are `round`, so
///   the band is "within stroke / 2 of the outline";
/// * with a `hitShape` of its own the drawn shape gets
///   `pointer-events="none"` and the hit shape is drawn invisibly after it;
/// * hidden layers are left out; transparent (opacity < 0.01),
///   `pointer-events: none` and singular-transform layers are drawn with
///   `pointer-events="none"` on every element of their subtree (set
///   explicitly, since a descendant's own value would override an
///   inherited one), as are the children of `self-only` layers and the
///   own shape of `children-only` ones;
/// * `clipChildren` wraps the children in a clip path of the hit shape.
///
/// What SVG cannot express (hit slop, clipping by a stroke band) is named
/// in a comment at the top of the document.
public enum SceneRenderer {
    /// The document for `scene`, as bytes (UTF-8 XML).
    /// - Complexity: O(layers × depth + vertices): one pass that writes the
    ///   document once into one growing buffer.
    public static func render(_ scene: LiveScene, id: String, version: Int, options: RenderOptions = RenderOptions())
        -> [UInt8]
    {
        render(scene, id: id, version: version, options: options, maxBytes: .max)!  // `!`: no limit to pass, never nil
    }

    /// `render(_:id:version:options:)`, or nil when the document would be
    /// longer than `maxBytes` (the writer then holds no more than that).
    /// - Complexity: O(the scene's size × the copies the options draw).
    public static func render(_ scene: LiveScene, id: String, version: Int, options: RenderOptions, maxBytes: Int) -> [UInt8]? {
        var w = SVGWriter(capacity: 4096 + scene.compiled.layerCount * 96, limit: maxBytes)
        write(scene, id: id, version: version, options: options, to: &w)
        return w.overflowed ? nil : w.finish()
    }

    /// Writes the document for `scene` into `w`.
    public static func write(
        _ scene: LiveScene, id: String, version: Int, options: RenderOptions, to w: inout SVGWriter
    ) {
        let model = scene.model
        let compiled = scene.compiled
        let view = ViewBox(model, compiled)
        let expressibility = Expressibility(model)
        w.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        w.raw("<svg xmlns=\"http://www.w3.org/2000/svg\"")
        w.raw(" viewBox=\"")
        w.number(view.x)
        w.raw(" ")
        w.number(view.y)
        w.raw(" ")
        w.number(view.width)
        w.raw(" ")
        w.number(view.height)
        w.raw("\"")
        let (pw, ph) = view.pixelSize(options.pixelWidth)
        w.attribute("width", pw)
        w.attribute("height", ph)
        w.attribute("data-scene", id)
        w.attribute("data-version", Double(version))
        w.raw(" font-family=\"sans-serif\">\n")
        writeComment(id: id, version: version, expressibility, options, &w)
        // The canvas: painted, never a target.
        w.raw("<rect")
        w.attribute("x", view.x)
        w.attribute("y", view.y)
        w.attribute("width", view.width)
        w.attribute("height", view.height)
        w.raw(" fill=\"#ffffff\" pointer-events=\"none\"/>\n")
        w.raw("<g class=\"scene\">\n")
        var context = LayerWriter(compiled: compiled)
        for n in compiled.rootsBackToFront {
            let k = Int(n)
            context.write(model.layers[compiled.submittedPosition(of: k)], k, enabled: true, &w)
        }
        w.raw("</g>\n")
        if options.regions { Overlay.regions(model, compiled, &w) }
        options.cells?.write(&w)
        if let routed = options.routed { Overlay.routing(routed.point, routed.result, model, compiled, view, &w) }
        w.raw("</svg>\n")
    }

    private static func writeComment(
        id: String, version: Int, _ e: Expressibility, _ options: RenderOptions, _ w: inout SVGWriter
    ) {
        w.raw("<!-- hitroute render of scene ")
        w.commentText("\"\(id)\" version \(version), \(e.layers) layer\(e.layers == 1 ? "" : "s").")
        if e.isComplete {
            w.raw("\n     Every feature of this scene is expressed: a browser's elementFromPoint over this")
            w.raw("\n     document names (by the nearest data-layer) the layer the service routes to.")
        } else {
            w.raw("\n     Not expressed (elementFromPoint may disagree with the service there):")
            if e.slopCount > 0 {
                w.raw("\n     * hitSlop (SVG cannot grow a region) on ")
                w.commentText(list(e.slop, total: e.slopCount))
            }
            if e.maskCount > 0 {
                w.raw(
                    "\n     * alpha masks (drawn as their pixels at or above the threshold; a browser hit-tests the image's whole box, not its alpha) on "
                )
                w.commentText(list(e.masks, total: e.maskCount))
            }
            if e.strokeClipCount > 0 {
                w.raw("\n     * clipChildren by a stroke band or an unfilled region (an SVG clip path clips by the fill) on ")
                w.commentText(list(e.strokeClips, total: e.strokeClipCount))
            }
        }
        if options.regions {
            w.raw("\n     regions=1: hit regions in magenta; slop as the dashed box of the region grown by it.")
        }
        w.raw(" -->\n")
    }

    private static func list(_ ids: [String], total: Int) -> String {
        let shown = ids.map { "\"\($0)\"" }.joined(separator: ", ")
        return total > ids.count ? "\(shown) and \(total - ids.count) more" : shown
    }
}

/// The view box of a render: the canvas when the scene gives both `width`
/// and `height`, else the scene's bounds, else a unit square.
struct ViewBox {
    var x = 0.0, y = 0.0, width = 100.0, height = 100.0

    init(_ model: Scene, _ compiled: CompiledScene) {
        if let w = model.width, let h = model.height, w > 0, h > 0 {
            width = w
            height = h
        } else if let b = compiled.bounds, b.width > 0, b.height > 0, b.width.isFinite, b.height.isFinite {
            (x, y, width, height) = (b.minX, b.minY, b.width, b.height)
        }
    }

    /// Width and height in pixels.
    func pixelSize(_ requested: Double?) -> (Double, Double) {
        let w: Double
        if let requested {
            w = requested
        } else {
            w = min(width, RenderOptions.defaultMaxPixels * width / max(width, height))
        }
        let h = w * height / width
        return (rounded(w), rounded(h))
    }

    private func rounded(_ v: Double) -> Double {
        let r = (v * 100).rounded() / 100
        return r.isFinite && r > 0 ? r : 1
    }

    /// A length for labels: about a thirtieth of the longer side.
    var labelSize: Double { max(width, height) / 30 }
}

import HitJSON
import HitRouting

/// Writes scenes back as they were submitted: fields that were not given
/// stay absent, numbers keep their values (shortest round-trip form).
package enum SceneEncoder {
    /// The scene document with `id` and `version` set (SPEC §4.1 `GET
    /// /scenes/{id}`); without `version`, what an upload of it would send
    /// (a snapshot's record).
    package static func write(_ scene: Scene, id: String, version: Int?, to w: inout JSONWriter) {
        w.beginObject()
        w.field("id")
        w.string(id)
        if let version {
            w.field("version")
            w.int(version)
        }
        if let width = scene.width {
            w.field("width")
            w.number(width)
        }
        if let height = scene.height {
            w.field("height")
            w.number(height)
        }
        w.field("layers")
        w.beginArray()
        for layer in scene.layers { write(layer, children: true, to: &w) }
        w.endArray()
        w.endObject()
    }

    /// One layer; its `children` only when `children` is true.
    package static func write(_ layer: Layer, children: Bool, to w: inout JSONWriter) {
        w.beginObject()
        w.field("id")
        w.string(layer.id)
        if let action = layer.action {
            w.field("action")
            w.string(action)
        }
        if let shape = layer.shape {
            w.field("shape")
            write(shape, to: &w)
        }
        if let shape = layer.hitShape {
            w.field("hitShape")
            write(shape, to: &w)
        }
        if let slop = layer.hitSlop {
            w.field("hitSlop")
            switch slop {
            case .uniform(let d): w.number(d)
            case .insets(let top, let right, let bottom, let left):
                w.beginObject()
                for (name, value) in [("top", top), ("right", right), ("bottom", bottom), ("left", left)] {
                    if let value {
                        w.key(name)
                        w.number(value)
                    }
                }
                w.endObject()
            }
        }
        if let t = layer.transform {
            w.field("transform")
            write(t, to: &w)
        }
        if let z = layer.zIndex {
            w.field("zIndex")
            w.number(z)
        }
        if let pe = layer.pointerEvents {
            w.field("pointerEvents")
            w.string(pe.rawValue)
        }
        if let hidden = layer.hidden {
            w.field("hidden")
            w.bool(hidden)
        }
        if let opacity = layer.opacity {
            w.field("opacity")
            w.number(opacity)
        }
        if let clip = layer.clipChildren {
            w.field("clipChildren")
            w.bool(clip)
        }
        if let draggable = layer.draggable {
            w.field("draggable")
            w.bool(draggable)
        }
        if let pass = layer.passThrough {
            w.field("passThrough")
            w.bool(pass)
        }
        if let color = layer.color {
            w.field("color")
            w.string(color)
        }
        if children, let kids = layer.children {
            w.field("children")
            w.beginArray()
            for kid in kids { write(kid, children: true, to: &w) }
            w.endArray()
        }
        w.endObject()
    }

    package static func write(_ shape: Shape, to w: inout JSONWriter) {
        w.beginObject()
        w.field("type")
        w.string(shape.geometry.typeName)
        switch shape.geometry {
        case .rect(let x, let y, let width, let height, let cornerRadius):
            w.field("x")
            w.number(x)
            w.field("y")
            w.number(y)
            w.field("width")
            w.number(width)
            w.field("height")
            w.number(height)
            if let r = cornerRadius {
                w.field("cornerRadius")
                w.number(r)
            }
        case .ellipse(let cx, let cy, let rx, let ry):
            w.field("cx")
            w.number(cx)
            w.field("cy")
            w.number(cy)
            w.field("rx")
            w.number(rx)
            w.field("ry")
            w.number(ry)
        case .circle(let cx, let cy, let r):
            w.field("cx")
            w.number(cx)
            w.field("cy")
            w.number(cy)
            w.field("r")
            w.number(r)
        case .polygon(let points), .polyline(let points):
            w.field("points")
            w.beginArray()
            for p in points { writePair(p, to: &w) }
            w.endArray()
        case .path(let d, _):
            w.field("d")
            w.string(d)
        case .compound(let shapes):
            w.field("shapes")
            w.beginArray()
            for s in shapes { write(s, to: &w) }
            w.endArray()
        case .mask(let m):
            w.field("x")
            w.number(m.x)
            w.field("y")
            w.number(m.y)
            w.field("width")
            w.number(m.width)
            w.field("height")
            w.number(m.height)
            switch m.source {
            case .png(let text):
                w.field("png")
                w.string(text)
            case .alpha:
                // Strict base64 has one encoding per byte string: this is the text as given.
                w.field("alpha")
                w.string(Base64.encode(m.image.alpha))
                w.field("columns")
                w.int(m.image.columns)
                w.field("rows")
                w.int(m.image.rows)
            }
            if let t = m.threshold {
                w.field("threshold")
                w.number(t)
            }
        }
        if let rule = shape.fillRule {
            w.field("fillRule")
            w.string(rule.rawValue)
        }
        if let fill = shape.fill {
            w.field("fill")
            w.bool(fill)
        }
        if let stroke = shape.stroke {
            w.field("stroke")
            w.number(stroke)
        }
        w.endObject()
    }

    package static func write(_ transform: Transform, to w: inout JSONWriter) {
        w.beginObject()
        switch transform {
        case .matrix(let m):
            w.field("matrix")
            w.beginArray()
            for v in [m.a, m.b, m.c, m.d, m.e, m.f] { w.number(v) }
            w.endArray()
        case .parts(let p):
            if let t = p.translate {
                w.field("translate")
                writePair(t, to: &w)
            }
            if let r = p.rotate {
                w.field("rotate")
                w.number(r)
            }
            switch p.scale {
            case .uniform(let s)?:
                w.field("scale")
                w.number(s)
            case .xy(let sx, let sy)?:
                w.field("scale")
                writePair(Point(sx, sy), to: &w)
            case nil: break
            }
            if let o = p.origin {
                w.field("origin")
                writePair(o, to: &w)
            }
        }
        w.endObject()
    }

    /// `[x, y]`.
    package static func writePair(_ p: Point, to w: inout JSONWriter) {
        w.beginArray()
        w.number(p.x)
        w.number(p.y)
        w.endArray()
    }

    /// `{"x": …, "y": …}`.
    package static func writeXY(_ p: Point, to w: inout JSONWriter) {
        w.beginObject()
        w.keyText(#""x":"#)
        w.number(p.x)
        w.keyText(#","y":"#)
        w.number(p.y)
        w.endObject()
    }
}

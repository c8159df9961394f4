import HitImage
import HitRouting

/// How a render draws an alpha `mask` (SPEC §7): the pixels at or above the
/// threshold, as an embedded PNG under the layer's transform, so a sprite is
/// seen where it takes hits.
///
/// The PNG (``PNGEncoder/bilevel(columns:rows:opaque:)``: opaque white where
/// a pixel counts, transparent elsewhere) is the luminance of an SVG
/// `<mask>` over a rectangle the size of the mask, filled with the paint:
/// `<mask id="hr-mask-K" maskUnits="userSpaceOnUse" x y width height>
/// <image href="data:image/png;base64,…" preserveAspectRatio="none"
/// image-rendering="pixelated"/></mask><rect … fill="paint"
/// mask="url(#hr-mask-K)"/>`. So any CSS colour the layer names paints it,
/// and pixels stay square at any zoom. A browser's hit test does not read a
/// mask's alpha: the rectangle takes pointer events over its whole box.
///
/// Outlines (the routing overlay) follow the pixel edges: a segment wherever
/// a counted pixel meets one that is not (or the image's edge).
enum MaskDrawing {
    /// Calls `body` with each mask in `geometry` (itself, or the members of
    /// a compound shape).
    static func forEachMask(in geometry: ShapeGeometry, _ body: (Mask) -> Void) {
        switch geometry {
        case .mask(let m): body(m)
        case .compound(let members): for s in members { forEachMask(in: s.geometry, body) }
        default: break
        }
    }

    /// Whether `geometry` is or holds a mask.
    static func hasMask(_ geometry: ShapeGeometry) -> Bool {
        var any = false
        forEachMask(in: geometry) { _ in any = true }
        return any
    }

    /// Which pixels count, one flag per pixel, row-major.
    /// - Complexity: O(pixels).
    static func counted(_ m: Mask) -> [Bool] {
        let least = UInt8(Mask.minimumOpaqueAlpha(threshold: m.effectiveThreshold))
        return m.image.alpha.map { $0 >= least }
    }

    /// The PNG of `m`'s counted pixels.
    static func png(_ m: Mask) -> [UInt8] {
        let flags = counted(m)
        return PNGEncoder.bilevel(columns: m.image.columns, rows: m.image.rows) { flags[$0] }
    }

    /// Writes the mask element and its painted rectangle (see the type's
    /// comment): `paint` and `opacity` fill it (`paint` nil: `fill="none"`,
    /// for a separate hit shape), `events` is its `pointer-events`.
    /// - Complexity: O(pixels).
    static func write(_ m: Mask, paint: String?, opacity: Double? = nil, events: StaticString, _ w: inout SVGWriter) {
        let id = w.nextID()
        w.raw("<mask id=\"hr-mask-")
        w.integer(id, negative: false)
        w.raw("\" maskUnits=\"userSpaceOnUse\"")
        box(m, &w)
        w.raw("><image")
        box(m, &w)
        w.raw(" preserveAspectRatio=\"none\" image-rendering=\"pixelated\" href=\"data:image/png;base64,")
        appendBase64(png(m), &w)
        w.raw("\"/></mask><rect")
        box(m, &w)
        if let paint { w.attribute("fill", paint) } else { w.raw(" fill=\"none\"") }
        if let opacity { w.attribute("fill-opacity", opacity) }
        w.raw(" mask=\"url(#hr-mask-")
        w.integer(id, negative: false)
        w.raw(")\"")
        w.raw(" pointer-events=\"")
        w.raw(events)
        w.raw("\"/>")
    }

    /// Path data of the edges between counted pixels and the rest (image
    /// edges included), in the mask's local units: `M x y H x'` and
    /// `M x y V y'` segments, each run of edges one segment.
    /// - Complexity: O(pixels).
    static func appendOutline(_ m: Mask, _ w: inout SVGWriter) {
        let columns = m.image.columns
        let rows = m.image.rows
        let flags = counted(m)
        func at(_ i: Int, _ j: Int) -> Bool { i >= 0 && j >= 0 && i < columns && j < rows && flags[j * columns + i] }
        func x(_ i: Int) -> Double { m.x + Double(i) * m.width / Double(columns) }
        func y(_ j: Int) -> Double { m.y + Double(j) * m.height / Double(rows) }
        var first = true
        func separate() {
            if !first { w.raw(" ") }
            first = false
        }
        // Horizontal edges: on the line above row j, where rows j-1 and j differ.
        for j in 0...rows {
            var i = 0
            while i < columns {
                guard at(i, j - 1) != at(i, j) else {
                    i += 1
                    continue
                }
                let start = i
                while i < columns && at(i, j - 1) != at(i, j) { i += 1 }
                separate()
                w.raw("M")
                w.point(x(start), y(j))
                w.raw("H")
                w.number(x(i))
            }
        }
        // Vertical edges: on the line left of column i, where columns i-1 and i differ.
        for i in 0...columns {
            var j = 0
            while j < rows {
                guard at(i - 1, j) != at(i, j) else {
                    j += 1
                    continue
                }
                let start = j
                while j < rows && at(i - 1, j) != at(i, j) { j += 1 }
                separate()
                w.raw("M")
                w.point(x(i), y(start))
                w.raw("V")
                w.number(y(j))
            }
        }
    }

    private static func box(_ m: Mask, _ w: inout SVGWriter) {
        w.attribute("x", m.x)
        w.attribute("y", m.y)
        w.attribute("width", m.width)
        w.attribute("height", m.height)
    }

    static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64 (RFC 4648 §4, padded).
    /// - Complexity: O(n).
    static func appendBase64(_ bytes: [UInt8], _ w: inout SVGWriter) {
        let a = base64Alphabet
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            w.byte(a[Int(v >> 18)])
            w.byte(a[Int((v >> 12) & 63)])
            w.byte(a[Int((v >> 6) & 63)])
            w.byte(a[Int(v & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            w.byte(a[Int(v >> 18)])
            w.byte(a[Int((v >> 12) & 63)])
            w.byte(rest == 2 ? a[Int((v >> 6) & 63)] : UInt8(ascii: "="))
            w.byte(UInt8(ascii: "="))
        }
    }
}

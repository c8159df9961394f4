import HitRouting

/// Cells of a sample grid drawn over a render (`render.svg?audit=1`,
/// `?diff=`): each cell tinted by its label, some hatched, points marked
/// and boxes outlined. Scene coordinates; nothing here takes hits.
public struct CellPicture: Sendable {
    /// The grid: top-left corner, cell side, columns and rows.
    public var x: Double, y: Double, resolution: Double, columns: Int, rows: Int
    /// Per cell, row-major: a palette index, or -1 for an untinted cell.
    public var labels: [Int32]
    /// Per cell, one bit: hatched (64 cells a word, row-major); empty for none.
    public var hatched: [UInt64]
    /// Marked points, with whether each is failing (red) or not (green), and a title.
    public var marks: [(point: Point, failing: Bool, title: String)]
    /// Boxes outlined in red (x, y, width, height), with a title.
    public var boxes: [(x: Double, y: Double, width: Double, height: Double, title: String)]
    /// `audit` or `diff`: the overlay's class.
    public var kind: String

    public init(
        x: Double, y: Double, resolution: Double, columns: Int, rows: Int, labels: [Int32], hatched: [UInt64] = [],
        marks: [(point: Point, failing: Bool, title: String)] = [],
        boxes: [(x: Double, y: Double, width: Double, height: Double, title: String)] = [], kind: String
    ) {
        self.x = x
        self.y = y
        self.resolution = resolution
        self.columns = columns
        self.rows = rows
        self.labels = labels
        self.hatched = hatched
        self.marks = marks
        self.boxes = boxes
        self.kind = kind
    }

    /// Twelve distinguishable tints, by label modulo 12.
    static let palette: [StaticString] = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
        "#17becf", "#bcbd22", "#7f7f7f", "#d62728", "#393b79", "#637939",
    ]

    /// Draws the picture: each row's runs of one label as one rectangle,
    /// then each row's runs of hatched cells, the boxes and the marks.
    /// - Complexity: O(cells + marks + boxes); one element per run.
    func write(_ w: inout SVGWriter) {
        let r = resolution
        w.raw("<g class=\"")
        w.text(kind)
        w.raw("\" pointer-events=\"none\">\n")
        w.raw(
            "<defs><pattern id=\"hitroute-hatch\" patternUnits=\"userSpaceOnUse\" width=\"8\" height=\"8\" patternTransform=\"rotate(45)\">"
        )
        w.raw("<rect width=\"3\" height=\"8\" fill=\"#111111\" fill-opacity=\"0.55\"/></pattern></defs>\n")
        func run(_ i0: Int, _ i1: Int, _ j: Int, fill: StaticString, opacity: Double) {
            w.raw("<rect")
            w.attribute("x", x + Double(i0) * r)
            w.attribute("y", y + Double(j) * r)
            w.attribute("width", Double(i1 - i0) * r)
            w.attribute("height", r)
            w.raw(" fill=\"")
            w.raw(fill)
            w.raw("\"")
            w.attribute("fill-opacity", opacity)
            w.raw("/>\n")
        }
        for j in 0..<rows {
            var i = 0
            while i < columns {
                let label = labels[j * columns + i]
                var k = i + 1
                while k < columns && labels[j * columns + k] == label { k += 1 }
                if label >= 0 { run(i, k, j, fill: CellPicture.palette[Int(label) % CellPicture.palette.count], opacity: 0.35) }
                i = k
            }
        }
        if !hatched.isEmpty {
            func isHatched(_ s: Int) -> Bool { hatched[s >> 6] & (1 << UInt64(s & 63)) != 0 }
            for j in 0..<rows {
                var i = 0
                while i < columns {
                    guard isHatched(j * columns + i) else {
                        i += 1
                        continue
                    }
                    var k = i + 1
                    while k < columns && isHatched(j * columns + k) { k += 1 }
                    run(i, k, j, fill: "url(#hitroute-hatch)", opacity: 1)
                    i = k
                }
            }
        }
        for b in boxes {
            w.raw("<rect")
            w.attribute("x", b.x)
            w.attribute("y", b.y)
            w.attribute("width", b.width)
            w.attribute("height", b.height)
            w.raw(" fill=\"none\" stroke=\"#d73027\" stroke-width=\"2\" stroke-dasharray=\"5 3\" vector-effect=\"non-scaling-stroke\">")
            w.raw("<title>")
            w.text(b.title)
            w.raw("</title></rect>\n")
        }
        for m in marks {
            w.raw("<circle")
            w.attribute("cx", m.point.x)
            w.attribute("cy", m.point.y)
            w.attribute("r", max(r * 0.45, 1e-9))
            w.raw(m.failing ? " fill=\"#d73027\"" : " fill=\"#1a9850\"")
            w.raw(" stroke=\"#ffffff\" stroke-width=\"1\" vector-effect=\"non-scaling-stroke\"><title>")
            w.text(m.title)
            w.raw("</title></circle>\n")
        }
        w.raw("</g>\n")
    }
}

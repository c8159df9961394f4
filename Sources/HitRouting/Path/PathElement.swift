/// One element of parsed SVG path data, with every coordinate made absolute
/// (local coordinates of the shape's layer). `S`/`T` are expanded to their
/// full `C`/`Q` forms and `H`/`V` to lines, so consumers see only these cases.
public enum PathElement: Sendable, Equatable {
    /// Starts a new subpath.
    case move(Point)
    case line(Point)
    /// Quadratic Bézier with control point `c`, ending at `to`.
    case quad(c: Point, to: Point)
    /// Cubic Bézier with control points `c1`, `c2`, ending at `to`.
    case cubic(c1: Point, c2: Point, to: Point)
    /// SVG elliptical arc in endpoint form; `radii` are absolute values as
    /// submitted (out-of-range radii are scaled up when the arc is built),
    /// `rotation` in degrees.
    case arc(radii: Point, rotation: Double, largeArc: Bool, sweep: Bool, to: Point)
    /// Closes the current subpath with a line back to its start.
    case close
}

/// Where and why SVG path data failed to parse.
public struct PathSyntaxError: Error, Equatable, Sendable {
    /// 0-based character offset into `d` where parsing stopped.
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}

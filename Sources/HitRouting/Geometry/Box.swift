/// An axis-aligned bounding box `[minX, maxX] × [minY, maxY]`, closed on all
/// sides. The empty box has `minX > maxX`; unions ignore it.
public struct Box: Hashable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    @inlinable
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The box with no points; the identity of `union`.
    public static let empty = Box(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
    /// Every finite point: the box of what no bound is known for.
    static let finitePlane = Box(
        minX: -.greatestFiniteMagnitude, minY: -.greatestFiniteMagnitude,
        maxX: .greatestFiniteMagnitude, maxY: .greatestFiniteMagnitude)

    /// The smallest box holding every point given.
    @inlinable
    public init(covering points: some Sequence<Point>) {
        self = .empty
        for p in points { formUnion(p) }
    }

    @inlinable public var isEmpty: Bool { !(minX <= maxX && minY <= maxY) }
    @inlinable public var width: Double { maxX - minX }
    @inlinable public var height: Double { maxY - minY }

    /// Whether the box is empty, or has finite corners and a finite width
    /// and height (SPEC §1: every computed quantity is finite).
    @inlinable public var hasFiniteSize: Bool {
        isEmpty
            ? !minX.isNaN && !minY.isNaN && !maxX.isNaN && !maxY.isNaN
            : minX.isFinite && minY.isFinite && maxX.isFinite && maxY.isFinite && width.isFinite && height.isFinite
    }

    /// The four corners, clockwise on screen from the top-left.
    @inlinable public var corners: [Point] {
        [Point(minX, minY), Point(maxX, minY), Point(maxX, maxY), Point(minX, maxY)]
    }

    @inlinable
    public mutating func formUnion(_ p: Point) {
        if p.x < minX { minX = p.x }
        if p.x > maxX { maxX = p.x }
        if p.y < minY { minY = p.y }
        if p.y > maxY { maxY = p.y }
    }

    /// Whether this box lies inside `outer` without touching its edges
    /// (false for an empty box).
    @inlinable public func isStrictlyInside(_ outer: Box) -> Bool {
        minX > outer.minX && minY > outer.minY && maxX < outer.maxX && maxY < outer.maxY
    }

    @inlinable
    public mutating func formUnion(_ b: Box) {
        guard !b.isEmpty else { return }
        minX = Swift.min(minX, b.minX)
        minY = Swift.min(minY, b.minY)
        maxX = Swift.max(maxX, b.maxX)
        maxY = Swift.max(maxY, b.maxY)
    }

    /// The box grown by the given insets on each side (negative values shrink it).
    @inlinable
    public func outset(top: Double, right: Double, bottom: Double, left: Double) -> Box {
        isEmpty ? self : Box(minX: minX - left, minY: minY - top, maxX: maxX + right, maxY: maxY + bottom)
    }

    @inlinable
    public func outset(by d: Double) -> Box { outset(top: d, right: d, bottom: d, left: d) }

    /// The box grown by `dx` left and right and `dy` up and down (both
    /// ≥ 0), its corners kept within the finite range.
    public func outset(dx: Double, dy: Double) -> Box {
        guard !isEmpty else { return self }
        let big = Double.greatestFiniteMagnitude
        return Box(
            minX: Swift.max(minX - dx, -big), minY: Swift.max(minY - dy, -big),
            maxX: Swift.min(maxX + dx, big), maxY: Swift.min(maxY + dy, big))
    }

    /// Closed containment: points on the edges are inside.
    @inlinable
    public func contains(_ p: Point) -> Bool {
        p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY
    }

    /// Euclidean distance from `p` to the closed box (0 inside).
    @inlinable
    public func distance(to p: Point) -> Double {
        let dx = Swift.max(minX - p.x, 0, p.x - maxX)
        let dy = Swift.max(minY - p.y, 0, p.y - maxY)
        let d = (dx * dx + dy * dy).squareRoot()
        guard !d.isFinite, dx.isFinite, dy.isFinite else { return d }
        // The squares overflowed: the same length, scaled by the larger side.
        let m = Swift.max(dx, dy)
        let u = dx / m
        let v = dy / m
        return m * (u * u + v * v).squareRoot()
    }
}

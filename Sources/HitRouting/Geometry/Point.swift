/// A point or vector in a 2-D, y-down coordinate space (origin top-left, units
/// are the scene's "points"). Which space a `Point` lives in — scene, parent or
/// a layer's local space — is stated by whoever holds it.
public struct Point: Hashable, Sendable {
    public var x: Double
    public var y: Double

    @inlinable
    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(0, 0)

    /// Whether both coordinates are finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite }

    /// The point itself when finite, else nil.
    @inlinable public var finiteOrNil: Point? { isFinite ? self : nil }

    @inlinable public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    @inlinable public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    @inlinable public static func * (a: Point, s: Double) -> Point { Point(a.x * s, a.y * s) }

    /// Dot product, treating both points as vectors.
    @inlinable public func dot(_ o: Point) -> Double { x * o.x + y * o.y }

    /// Squared Euclidean length, treating the point as a vector.
    @inlinable public var lengthSquared: Double { x * x + y * y }

    /// Euclidean length, treating the point as a vector.
    @inlinable public var length: Double { lengthSquared.squareRoot() }

    /// Linear interpolation: `self` at `t == 0`, `o` at `t == 1`.
    @inlinable public func lerp(_ o: Point, _ t: Double) -> Point {
        Point(x + (o.x - x) * t, y + (o.y - y) * t)
    }
}

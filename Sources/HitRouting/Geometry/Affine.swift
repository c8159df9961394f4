import Glibc

/// A 2-D affine map in SVG / CSS / `CGAffineTransform` layout:
///
///     x' = a·x + c·y + e
///     y' = b·x + d·y + f
///
/// In hitroute a layer's transform maps its local coordinates to its
/// parent's. `M * N` is the map that applies `N` first, then `M`
/// (ordinary matrix product), so a layer's local-to-scene map is
/// `parentToScene * localToParent`.
public struct Affine: Hashable, Sendable {
    public var a, b, c, d, e, f: Double

    @inlinable
    public init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    public static let identity = Affine(a: 1, b: 0, c: 0, d: 1, e: 0, f: 0)

    /// A translation by `(tx, ty)`.
    @inlinable
    public static func translation(_ tx: Double, _ ty: Double) -> Affine {
        Affine(a: 1, b: 0, c: 0, d: 1, e: tx, f: ty)
    }

    /// A scale about the origin.
    @inlinable
    public static func scale(_ sx: Double, _ sy: Double) -> Affine {
        Affine(a: sx, b: 0, c: 0, d: sy, e: 0, f: 0)
    }

    /// A rotation about the origin by `degrees`; positive turns clockwise on
    /// screen (y-down), like CSS `rotate()`. Multiples of 90° are exact.
    public static func rotation(degrees: Double) -> Affine {
        let turns = degrees / 90
        let (s, c): (Double, Double)
        if turns == turns.rounded() {
            // Exact quarter turns, so that 90° maps (1, 0) to exactly (0, 1).
            // The remainder is taken in floating point: `Int(turns)` would
            // trap for angles beyond ±8e20 degrees, which a scene may give.
            let quarter = turns.truncatingRemainder(dividingBy: 4)
            switch Int(quarter < 0 ? quarter + 4 : quarter) {
            case 0: (s, c) = (0, 1)
            case 1: (s, c) = (1, 0)
            case 2: (s, c) = (0, -1)
            default: (s, c) = (-1, 0)
            }
        } else {
            let r = degrees * .pi / 180
            (s, c) = (sin(r), cos(r))
        }
        return Affine(a: c, b: s, c: -s, d: c, e: 0, f: 0)
    }

    /// Applies the map to a point.
    @inlinable
    public func apply(_ p: Point) -> Point {
        Point(a * p.x + c * p.y + e, b * p.x + d * p.y + f)
    }

    /// Applies only the linear part (no translation): maps a displacement.
    @inlinable
    public func applyLinear(_ v: Point) -> Point {
        Point(a * v.x + c * v.y, b * v.x + d * v.y)
    }

    /// The product `lhs * rhs`: apply `rhs` first, then `lhs`.
    @inlinable
    public static func * (lhs: Affine, rhs: Affine) -> Affine {
        Affine(
            a: lhs.a * rhs.a + lhs.c * rhs.b,
            b: lhs.b * rhs.a + lhs.d * rhs.b,
            c: lhs.a * rhs.c + lhs.c * rhs.d,
            d: lhs.b * rhs.c + lhs.d * rhs.d,
            e: lhs.a * rhs.e + lhs.c * rhs.f + lhs.e,
            f: lhs.b * rhs.e + lhs.d * rhs.f + lhs.f)
    }

    @inlinable public var determinant: Double { a * d - b * c }

    /// Below this absolute determinant a transform counts as singular (SPEC §2.3).
    public static let singularDeterminant = 1e-12

    /// The inverse map, or `nil` when `|determinant| < 1e-12` (SPEC §2.3).
    ///
    /// A determinant beyond the finite range (a scale of 1e200: 1e400) is
    /// not singular: the inverse is then computed from the linear part
    /// divided by its largest entry, so that it stays finite wherever the
    /// true inverse is. Ordinary maps take the direct formula.
    @inlinable
    public var inverse: Affine? {
        let det = determinant
        if det.isFinite {
            guard abs(det) >= Affine.singularDeterminant else { return nil }
            let id = 1 / det
            let m = Affine(
                a: d * id, b: -b * id, c: -c * id, d: a * id,
                e: (c * f - d * e) * id, f: (b * e - a * f) * id)
            if m.isFinite { return m }
        }
        return scaledInverse
    }

    /// The inverse computed on the linear part divided by its largest entry `s`:
    /// `det = det' · s²` and every entry of the inverse is `…' / (det' · s)`.
    @usableFromInline
    var scaledInverse: Affine? {
        let s = Swift.max(abs(a), abs(b), abs(c), abs(d))
        guard s > 0, s.isFinite, e.isFinite, f.isFinite else { return nil }
        let na = a / s
        let nb = b / s
        let nc = c / s
        let nd = d / s
        let nDet = na * nd - nb * nc
        guard abs(nDet) * s * s >= Affine.singularDeterminant else { return nil }
        let k = nDet * s
        return Affine(a: nd / k, b: -nb / k, c: -nc / k, d: na / k, e: (nc * f - nd * e) / k, f: (nb * e - na * f) / k)
    }

    /// Whether all six entries are finite.
    @inlinable public var isFinite: Bool {
        a.isFinite && b.isFinite && c.isFinite && d.isFinite && e.isFinite && f.isFinite
    }

    /// Whether the linear part (`a`, `b`, `c`, `d`) is finite.
    @inlinable public var isLinearFinite: Bool { a.isFinite && b.isFinite && c.isFinite && d.isFinite }

    /// The box holding the four mapped corners of `box`, or nil when a
    /// mapped corner is not finite (an overflow, which `apply(_:)` would
    /// hide: a NaN coordinate drops out of a union).
    public func applyChecked(_ box: Box) -> Box? {
        guard !box.isEmpty else { return box }
        var r = Box.empty
        for corner in box.corners {
            let q = apply(corner)
            guard q.x.isFinite, q.y.isFinite else { return nil }
            r.formUnion(q)
        }
        return r.hasFiniteSize ? r : nil
    }

    /// Whether `apply(_:)` gives finite coordinates at every point of
    /// `box` (either space). Each coordinate's terms, summed by magnitude
    /// with a factor of two to spare for rounding, must stay finite; the
    /// corners alone do not tell, since a shear's two terms can overflow
    /// in opposite signs where their exact sum is finite.
    /// - Complexity: O(1).
    public func appliesFinitely(within box: Box) -> Bool {
        let x = Swift.max(abs(box.minX), abs(box.maxX))
        let y = Swift.max(abs(box.minY), abs(box.maxY))
        return (2 * (abs(a) * x + abs(c) * y + abs(e))).isFinite && (2 * (abs(b) * x + abs(d) * y + abs(f))).isFinite
    }

    /// The largest factor by which the map stretches any vector (the largest
    /// singular value of the linear part).
    public var maxScale: Double {
        // Squares overflow beyond about 1e154: measure the part divided by its largest entry.
        let m = Swift.max(abs(a), abs(b), abs(c), abs(d))
        if m > 0x1p500 && m.isFinite {
            return Affine(a: a / m, b: b / m, c: c / m, d: d / m, e: 0, f: 0).maxScale * m
        }
        // Singular values of [[a c] [b d]]: sqrt of the eigenvalues of MᵀM.
        let p = a * a + b * b
        let q = c * c + d * d
        let r = a * c + b * d
        let mean = (p + q) / 2
        let spread = (((p - q) / 2) * ((p - q) / 2) + r * r).squareRoot()
        return (mean + spread).squareRoot()
    }

    /// The axis-aligned box holding the four mapped corners of `box`.
    public func apply(_ box: Box) -> Box {
        guard !box.isEmpty else { return box }
        if b == 0 && c == 0 {  // axis-aligned: two corners suffice
            var r = Box.empty
            r.formUnion(apply(Point(box.minX, box.minY)))
            r.formUnion(apply(Point(box.maxX, box.maxY)))
            return r
        }
        return Box(covering: box.corners.map(apply))
    }
}

import Glibc

/// One piece of an outline in local coordinates, parametrised on `t ∈ [0, 1]`.
public enum Segment: Sendable, Equatable {
    case line(Point, Point)
    case quad(Point, Point, Point)
    case cubic(Point, Point, Point, Point)
    case arc(EllipticArc, from: Point, to: Point)

    @inlinable
    public var start: Point {
        switch self {
        case .line(let a, _), .quad(let a, _, _), .cubic(let a, _, _, _): return a
        case .arc(_, let from, _): return from
        }
    }

    @inlinable
    public var end: Point {
        switch self {
        case .line(_, let b), .quad(_, _, let b), .cubic(_, _, _, let b): return b
        case .arc(_, _, let to): return to
        }
    }

    /// The point at parameter `t`; exact at the ends.
    @inlinable
    public func point(at t: Double) -> Point {
        if t <= 0 { return start }
        if t >= 1 { return end }
        switch self {
        case .line(let a, let b):
            return a.lerp(b, t)
        case .quad(let a, let c, let b):
            let u = 1 - t
            return a * (u * u) + c * (2 * u * t) + b * (t * t)
        case .cubic(let a, let c1, let c2, let b):
            let u = 1 - t
            return a * (u * u * u) + c1 * (3 * u * u * t) + c2 * (3 * u * t * t) + b * (t * t * t)
        case .arc(let arc, _, _):
            return arc.point(at: t)
        }
    }

    /// Sorted parameters in (0, 1) where x or y is extremal: splitting there
    /// leaves pieces that are monotonic in both x and y.
    public func extremaParameters() -> [Double] {
        var ts: [Double]
        switch self {
        case .line:
            return []
        case .quad(let a, let c, let b):
            ts = []
            for (p0, p1, p2) in [(a.x, c.x, b.x), (a.y, c.y, b.y)] {
                let den = p0 - 2 * p1 + p2
                if den != 0 { ts.append((p0 - p1) / den) }
            }
        case .cubic(let a, let c1, let c2, let b):
            ts = []
            for (p0, p1, p2, p3) in [(a.x, c1.x, c2.x, b.x), (a.y, c1.y, c2.y, b.y)] {
                // B'(t)/3 = qa t² + qb t + qc
                let qa = -p0 + 3 * p1 - 3 * p2 + p3
                let qb = 2 * (p0 - 2 * p1 + p2)
                let qc = p1 - p0
                ts += solveQuadratic(qa, qb, qc)
            }
        case .arc(let arc, _, _):
            ts = arc.extremaParameters()
        }
        return ts.filter { $0 > 0 && $0 < 1 }.sorted()
    }

    /// How many straight pieces keep the chordal error under `tolerance`
    /// (Wang's formula for Béziers; sagitta bound for arcs). At least 1.
    public func flatteningSteps(tolerance: Double) -> Int {
        let n: Double
        switch self {
        case .line:
            return 1
        case .quad(let a, let c, let b):
            let dd = (a - c * 2 + b).length
            n = (0.25 * dd / tolerance).squareRoot()
        case .cubic(let a, let c1, let c2, let b):
            let dd = max((a - c1 * 2 + c2).length, (c1 - c2 * 2 + b).length)
            n = (0.75 * dd / tolerance).squareRoot()
        case .arc(let arc, _, _):
            let r = max(arc.rx, arc.ry)
            guard r > tolerance else { return 1 }
            let step = 2 * acos(1 - tolerance / r)
            n = abs(arc.deltaTheta) / step
        }
        guard n.isFinite else { return 1 << 20 }  // NaN and ∞ (huge control points, a tolerance of 0)
        return max(1, Int(min(n.rounded(.up), Double(1 << 20))))
    }
}

/// Real roots of `a·t² + b·t + c = 0` (a linear equation when `a` is ~0).
func solveQuadratic(_ a: Double, _ b: Double, _ c: Double) -> [Double] {
    let scale = max(abs(a), abs(b), abs(c))
    guard scale > 0 else { return [] }
    if abs(a) <= 1e-12 * scale {
        return b != 0 ? [-c / b] : []
    }
    let disc = b * b - 4 * a * c
    if disc < 0 { return [] }
    let sq = disc.squareRoot()
    // Numerically stable form: avoid cancelling b against sq.
    let q = -0.5 * (b + (b >= 0 ? sq : -sq))
    var roots = [q / a]
    if q != 0 { roots.append(c / q) }
    return roots
}

/// A layer transform (SPEC §2.3), as submitted. It maps the layer's local
/// coordinates to its parent's.
public enum Transform: Sendable, Equatable {
    /// `translate · translate(origin) · rotate · scale · translate(-origin)`.
    case parts(TransformParts)
    /// `{"matrix": [a, b, c, d, e, f]}`.
    case matrix(Affine)

    /// The map this transform denotes.
    public var affine: Affine {
        switch self {
        case .matrix(let m): return m
        case .parts(let p): return p.affine
        }
    }

    /// The same transform with its translation grown by `delta` (parent
    /// units): what dragging does (SPEC §5).
    public func translated(by delta: Point) -> Transform {
        switch self {
        case .matrix(var m):
            m.e += delta.x
            m.f += delta.y
            return .matrix(m)
        case .parts(var p):
            p.translate = (p.translate ?? .zero) + delta
            return .parts(p)
        }
    }
}

extension Transform {
    /// The same transform with its translation set to `t` (parent units):
    /// what replaying a journaled drag does, exactly.
    public func withTranslation(_ t: Point) -> Transform {
        switch self {
        case .matrix(var m):
            m.e = t.x
            m.f = t.y
            return .matrix(m)
        case .parts(var p):
            p.translate = t
            return .parts(p)
        }
    }
}

/// The parts form of a transform. Every part is optional; angles in degrees,
/// positive clockwise on screen.
public struct TransformParts: Sendable, Equatable {
    public var translate: Point?
    public var rotate: Double?
    public var scale: Scale?
    public var origin: Point?

    public init(translate: Point? = nil, rotate: Double? = nil, scale: Scale? = nil, origin: Point? = nil) {
        self.translate = translate
        self.rotate = rotate
        self.scale = scale
        self.origin = origin
    }

    /// `translate(tx,ty) · translate(ox,oy) · rotate · scale · translate(-ox,-oy)`.
    public var affine: Affine {
        let t = translate ?? .zero
        let o = origin ?? .zero
        var m = Affine.translation(t.x + o.x, t.y + o.y)
        if let r = rotate, r != 0 { m = m * .rotation(degrees: r) }
        if let s = scale { m = m * .scale(s.x, s.y) }
        return m * .translation(-o.x, -o.y)
    }
}

/// A scale given as one number or as `[sx, sy]`.
public enum Scale: Sendable, Equatable {
    case uniform(Double)
    case xy(Double, Double)

    public var x: Double {
        switch self {
        case .uniform(let s): return s
        case .xy(let sx, _): return sx
        }
    }
    public var y: Double {
        switch self {
        case .uniform(let s): return s
        case .xy(_, let sy): return sy
        }
    }
}

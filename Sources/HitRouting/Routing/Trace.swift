/// One decision of the router about one layer (SPEC §4.2 `trace`).
public struct TraceEntry: Sendable, Equatable {
    /// Index of the layer in its `CompiledScene`; -1 for a note about a layer
    /// that is no longer in the scene (its id is in `detail`).
    public var layer: Int
    public var decision: Decision
    public var reason: Reason
    public var detail: TraceDetail?
    /// The point in the layer's local coordinates, where it was computed.
    public var local: Point?
}

/// What the router decided about a layer.
public enum Decision: String, Sendable {
    case hit, miss, skip, captured
    /// A pass-through layer received the point and let it continue (SPEC §3).
    case pass
}

/// Why (SPEC §3's codes).
public enum Reason: String, Sendable {
    case hidden
    case transparent
    case pointerEventsNone = "pointer-events-none"
    case singularTransform = "singular-transform"
    case clipped
    case childrenOnly = "children-only"
    case noShape = "no-shape"
    case inside
    case insideStroke = "inside-stroke"
    case insideSlop = "inside-slop"
    case outside
    case inHole = "in-hole"
    case captured
    case passThrough = "pass-through"
}

/// The facts behind a decision, rendered as a short human sentence by
/// `description` (the trace's `detail`).
public enum TraceDetail: Sendable, Equatable, CustomStringConvertible {
    case opacity(Double)
    case determinant(Double)
    case clippedDescendants(Int)
    case noShape
    case emptyRegion
    case inHole(FillRule, contours: Int, winding: Int)
    case withinStroke(Double)
    case withinSlop
    /// The mask pixel (column, row) holding the point, its alpha and the
    /// least alpha that counts as opaque.
    case maskPixel(column: Int, row: Int, alpha: Int, minimum: Int)
    /// The point lies outside the mask's rectangle of `columns × rows` pixels.
    case outsideMask(columns: Int, rows: Int)
    /// A pass-through layer accepted the point for this reason and let it go on.
    case passedThrough(Reason)
    /// Routed by the capture that pointer `pointer` made on its `down` at `down` (scene coordinates).
    case capturedBy(pointer: String, down: Point)
    /// The capturing layer is gone (the scene was replaced without it); the
    /// event was routed as an ordinary hit.
    case captureDropped(pointer: String, layer: String, why: DropReason)

    /// Why a capture went away before its pointer's next event.
    public enum DropReason: Sendable, Equatable {
        case sceneReplaced
        case layerRemoved
        /// Another replica took the `down` (Redis mode, SPEC §10): it is gone,
        /// or the balancer sent this pointer's scene elsewhere.
        case replicaLost
    }

    public var description: String {
        switch self {
        case .opacity(let o): return "opacity \(short(o)) is below 0.01"
        case .determinant(let d): return "transform is not invertible (determinant \(short(d)))"
        case .clippedDescendants(let n):
            return "outside its hit region with clipChildren; \(n) descendant\(n == 1 ? "" : "s") not visited"
        case .noShape: return "no shape or hitShape: a container is never a target itself"
        case .emptyRegion: return "its hit region is empty (zero size, or neither fill nor stroke)"
        case .inHole(let rule, let contours, let winding):
            let c = "\(contours) contour\(contours == 1 ? "" : "s")"
            return rule == .evenodd ? "even-odd: inside \(c)" : "nonzero: winding \(winding) inside \(c)"
        case .withinStroke(let half): return "within \(short(half)) of the outline (stroke / 2)"
        case .withinSlop: return "outside the region but within its hitSlop"
        case .maskPixel(let column, let row, let alpha, let minimum):
            return "pixel (\(column), \(row)) alpha \(alpha) \(alpha >= minimum ? ">=" : "<") \(minimum)"
        case .outsideMask(let columns, let rows):
            return "outside the mask's \(columns) x \(rows) pixels"
        case .passedThrough(let reason):
            return "\(reason.rawValue); passThrough lets the point go on to the layers below"
        case .capturedBy(let pointer, let down):
            return "pointer \"\(pointer)\" captured by this layer since its down at (\(short(down.x)), \(short(down.y)))"
        case .captureDropped(let pointer, let layer, let why):
            let cause: String
            switch why {
            case .sceneReplaced: cause = "the scene was replaced"
            case .layerRemoved: cause = "the layer no longer exists"
            case .replicaLost: cause = "it was held by another replica, which is gone (or no longer receives this scene)"
            }
            return "capture of pointer \"\(pointer)\" by layer \"\(layer)\" was dropped: \(cause)"
        }
    }
}

/// `120` for integral values, else Swift's shortest round-trip form (`0.5`).
func short(_ x: Double) -> String {
    x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
}

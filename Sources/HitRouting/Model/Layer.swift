/// One layer of a scene (SPEC §2.1), as submitted. `nil` means "not given";
/// the `effective…` accessors apply the SPEC's defaults.
public struct Layer: Sendable {
    /// `[A-Za-z0-9._:-]{1,128}`, unique within the scene.
    public var id: String
    /// What happens when this layer, or a descendant without its own action, is the target.
    public var action: String?
    /// The drawn geometry, in the layer's local coordinates.
    public var shape: Shape?
    /// Back to front, in this layer's local coordinates.
    public var children: [Layer]?
    /// The fields most layers leave out, kept out of line (copy on write) so
    /// that a scene of many plain layers stays small.
    private var extras: Extras?

    /// The region that receives hits; defaults to `shape`.
    public var hitShape: Shape? {
        get { extras?.fields.hitShape }
        set { modifyExtras { $0.fields.hitShape = newValue } }
    }
    public var hitSlop: HitSlop? {
        get { extras?.fields.hitSlop }
        set { modifyExtras { $0.fields.hitSlop = newValue } }
    }
    /// Maps local coordinates to the parent's.
    public var transform: Transform? {
        get { extras?.fields.transform }
        set { modifyExtras { $0.fields.transform = newValue } }
    }
    public var zIndex: Double? {
        get { extras?.fields.zIndex }
        set { modifyExtras { $0.fields.zIndex = newValue } }
    }
    public var pointerEvents: PointerEvents? {
        get { extras?.fields.pointerEvents }
        set { modifyExtras { $0.fields.pointerEvents = newValue } }
    }
    public var hidden: Bool? {
        get { extras?.fields.hidden }
        set { modifyExtras { $0.fields.hidden = newValue } }
    }
    public var opacity: Double? {
        get { extras?.fields.opacity }
        set { modifyExtras { $0.fields.opacity = newValue } }
    }
    public var clipChildren: Bool? {
        get { extras?.fields.clipChildren }
        set { modifyExtras { $0.fields.clipChildren = newValue } }
    }
    public var draggable: Bool? {
        get { extras?.fields.draggable }
        set { modifyExtras { $0.fields.draggable = newValue } }
    }
    /// SPEC §3 pass-through: the layer receives the point and lets it continue below.
    public var passThrough: Bool? {
        get { extras?.fields.passThrough }
        set { modifyExtras { $0.fields.passThrough = newValue } }
    }
    /// Rendering only; never affects hits.
    public var color: String? {
        get { extras?.fields.color }
        set { modifyExtras { $0.fields.color = newValue } }
    }

    public init(
        id: String, action: String? = nil, shape: Shape? = nil, hitShape: Shape? = nil,
        hitSlop: HitSlop? = nil, transform: Transform? = nil, zIndex: Double? = nil,
        pointerEvents: PointerEvents? = nil, hidden: Bool? = nil, opacity: Double? = nil,
        clipChildren: Bool? = nil, draggable: Bool? = nil, passThrough: Bool? = nil, color: String? = nil,
        children: [Layer]? = nil
    ) {
        self.id = id
        self.action = action
        self.shape = shape
        self.children = children
        let fields = Fields(
            hitShape: hitShape, hitSlop: hitSlop, transform: transform, zIndex: zIndex,
            pointerEvents: pointerEvents, hidden: hidden, opacity: opacity, clipChildren: clipChildren,
            draggable: draggable, passThrough: passThrough, color: color)
        if !fields.isEmpty { extras = Extras(fields) }
    }

    /// The shape that receives hits: `hitShape`, else `shape`.
    public var effectiveHitShape: Shape? { hitShape ?? shape }

    /// The out-of-line fields, all optional as submitted.
    struct Fields: Sendable {
        var hitShape: Shape?
        var hitSlop: HitSlop?
        var transform: Transform?
        var zIndex: Double?
        var pointerEvents: PointerEvents?
        var hidden: Bool?
        var opacity: Double?
        var clipChildren: Bool?
        var draggable: Bool?
        var passThrough: Bool?
        var color: String?

        var isEmpty: Bool {
            hitShape == nil && hitSlop == nil && transform == nil && zIndex == nil && pointerEvents == nil
                && hidden == nil && opacity == nil && clipChildren == nil && draggable == nil
                && passThrough == nil && color == nil
        }
    }

    /// A box for `Fields`, shared between copies of a layer until one of
    /// them changes (then that one gets its own).
    final class Extras: @unchecked Sendable {  // mutated only while uniquely referenced
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private mutating func modifyExtras(_ change: (Extras) -> Void) {
        if extras == nil {
            extras = Extras(Fields())
        } else if !isKnownUniquelyReferenced(&extras!) {
            extras = Extras(extras!.fields)
        }
        change(extras!)
        if extras!.fields.isEmpty { extras = nil }
    }
}

/// SPEC §2.1 `pointerEvents`.
public enum PointerEvents: String, Sendable, CaseIterable {
    /// The layer and its children take part normally.
    case auto
    /// The layer and its whole subtree ignore hits.
    case none
    /// The layer itself is never the target; its children can be.
    case childrenOnly = "children-only"
    /// The layer can be the target; its children never are.
    case selfOnly = "self-only"
}

/// SPEC §2.1 `hitSlop`, as submitted: one number or per-side insets
/// (missing sides are 0). All values are ≥ 0, in local units.
public enum HitSlop: Sendable, Equatable {
    case uniform(Double)
    case insets(top: Double?, right: Double?, bottom: Double?, left: Double?)

    /// The four insets with defaults applied.
    public var edges: SlopEdges {
        switch self {
        case .uniform(let d): return SlopEdges(top: d, right: d, bottom: d, left: d)
        case .insets(let t, let r, let b, let l):
            return SlopEdges(top: t ?? 0, right: r ?? 0, bottom: b ?? 0, left: l ?? 0)
        }
    }
}

/// How far a hit region grows on each side, in local units.
public struct SlopEdges: Sendable, Equatable {
    public var top, right, bottom, left: Double
    public static let zero = SlopEdges(top: 0, right: 0, bottom: 0, left: 0)
    public var isZero: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
}

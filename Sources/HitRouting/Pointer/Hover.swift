/// What a pointer is over, as last reported to its client (SPEC §11.1): the
/// target and the hovered set *H*.
///
/// *H* is the layers on the target's path together with those on each
/// receiver's path, or, while the pointer is captured, the capturing layer's
/// path alone. `layers` holds it in leave order: deepest first, and among
/// layers of the same depth, front to back in visiting order (SPEC §3), as
/// ordered by the version of the scene it was computed on. Reversed, it is
/// the enter order (shallowest first, back to front among equals).
public struct Hover: Sendable, Equatable {
    /// The target's id, or nil when the pointer is over no target.
    public var target: String?
    /// The hovered set's layer ids in leave order; no id twice.
    public var layers: [String]

    public init(target: String?, layers: [String]) {
        self.target = target
        self.layers = layers
    }

    /// Over nothing: a pointer not seen yet, a touch not pressed, a pointer that left.
    public static let nothing = Hover(target: nil, layers: [])
}

/// The boundary events between two answers to one pointer (SPEC §11.1).
///
/// With a single target and no receivers this is the DOM's `pointerout`,
/// `pointerleave`, `pointerover`, `pointerenter` sequence.
public struct Boundary: Sendable, Equatable {
    /// The previous target, when the target changed (nil: unchanged, or there was none).
    public var out: String?
    /// *H* before ∖ *H* after, deepest first (ties front to back in visiting order).
    public var leave: [String]
    /// The new target, when the target changed (nil: unchanged, or there is none).
    public var over: String?
    /// *H* after ∖ *H* before, shallowest first (ties back to front).
    public var enter: [String]
    /// The part of `leave` that is no longer in the scene, in `leave`'s order.
    public var removed: [String]

    public init(out: String?, leave: [String], over: String?, enter: [String], removed: [String]) {
        self.out = out
        self.leave = leave
        self.over = over
        self.enter = enter
        self.removed = removed
    }

    /// Hovered sets up to this many layers are compared by scanning, not hashing.
    static let smallSet = 8

    /// The change from `before` to `after`, or nil when neither *H* nor the
    /// target changed. `scene` is the version `after` was computed on (it
    /// decides `removed`).
    /// - Complexity: O(|H before| + |H after|) expected (hashing ids), or
    ///   O(|H before| · |H after|) when both have at most ``smallSet`` layers.
    public static func between(_ before: Hover, _ after: Hover, in scene: borrowing CompiledScene) -> Boundary? {
        let targetChanged = before.target != after.target
        if !targetChanged && before.layers == after.layers { return nil }
        let leave: [String]
        let enter: [String]
        if before.layers.isEmpty || after.layers.isEmpty {
            (leave, enter) = (before.layers, after.layers.reversed())
        } else if before.layers.count <= smallSet && after.layers.count <= smallSet {
            leave = before.layers.filter { !after.layers.contains($0) }
            enter = after.layers.reversed().filter { !before.layers.contains($0) }
        } else {
            let was = Set(before.layers)
            let now = Set(after.layers)
            leave = before.layers.filter { !now.contains($0) }
            enter = after.layers.reversed().filter { !was.contains($0) }
        }
        // The same set, reordered by a new version (a zIndex patch): nothing to say.
        if !targetChanged && leave.isEmpty && enter.isEmpty { return nil }
        return Boundary(
            out: targetChanged ? before.target : nil, leave: leave,
            over: targetChanged ? after.target : nil, enter: enter,
            removed: leave.filter { scene.indexByID[$0] == nil })
    }
}

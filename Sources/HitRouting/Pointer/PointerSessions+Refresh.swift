extension PointerSessions {
    /// One pointer's change after the scene changed under it.
    public struct Change: Sendable, Equatable {
        /// The pointer's id, in the namespace that was refreshed.
        public var pointer: String
        /// What the pointer is over now: its target's index in the scene
        /// it was refreshed against, or nil.
        public var target: Int?
        /// What it entered and left since its previous answer or push.
        public var boundary: Boundary
    }

    /// Routes every remembered pointer of `namespace` again at its last
    /// point against `scene` (a new version: a patch, a drag by another
    /// pointer, a replacement), and returns, ordered by pointer id, those
    /// whose hovered set or target changed since their previous answer or
    /// push — what a stream pushes (SPEC §11.2). Each pointer then counts
    /// the change as reported, so its next answer does not repeat it.
    ///
    /// A capture whose layer is no longer in `scene` is dropped first (the
    /// pointer's next event says so). Over HTTP nothing calls this: a
    /// pointer's next answer compares with its previous one and so reports
    /// the whole change since.
    /// - Complexity: one routing per remembered pointer of `namespace`
    ///   (none for a captured one), plus O(pointers).
    public mutating func refresh(namespace: UInt64, in scene: borrowing CompiledScene, now: Double) -> [Change] {
        expire(now: now)
        dropCaptures(missingFrom: scene)
        var changes: [Change] = []
        for (key, pointer) in pointers where key.namespace == namespace {
            let (target, hover) = Self.hover(of: pointer, in: scene)
            guard let boundary = Boundary.between(pointer.reported, hover, in: scene) else {
                if hover.layers != pointer.reported.layers { pointers[key]?.reported = hover }  // reordered only
                continue
            }
            pointers[key]?.reported = hover
            changes.append(Change(pointer: key.id, target: target, boundary: boundary))
        }
        return changes.sorted { $0.pointer < $1.pointer }
    }

    /// What `pointer` is over in `scene` at its last point (`apply`'s rule).
    private static func hover(of pointer: Pointer, in scene: borrowing CompiledScene) -> (Int?, Hover) {
        guard pointer.type.hovers || pointer.pressed else { return (nil, .nothing) }
        if let capture = pointer.capture, let n = scene.indexByID[capture.layer] {
            return (Int(n), scene.hover(capturedBy: Int(n)))
        }
        let there = scene.hit(pointer.last)
        return (there.target, scene.hover(target: there.target, receivers: there.receivers))
    }
}

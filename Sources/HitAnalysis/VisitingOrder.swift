import HitRouting

/// The order in which routing meets a scene's layers (SPEC §3): siblings
/// front to back, a layer's children before the layer's own decision.
public struct VisitingOrder: Sendable {
    /// Layers in decision order: each layer after its descendants, siblings
    /// front to back (the order of a full trace's entries).
    public let decisions: [Int32]
    /// Per layer, where its visit begins: its number in pre-order over the
    /// same order (a layer before its descendants).
    public let begin: [Int32]
    /// Per layer, `begin` plus the size of its subtree: the layers whose
    /// `begin` lies in `begin[n]..<end[n]` are `n` and its descendants.
    public let end: [Int32]
    /// Per layer, its place in `decisions`.
    public let rank: [Int32]

    /// - Complexity: O(layers).
    public init(_ scene: CompiledScene) {
        let n = scene.layerCount
        var decisions: [Int32] = []
        decisions.reserveCapacity(n)
        var begin = [Int32](repeating: 0, count: n)
        var end = begin
        var next: Int32 = 0
        // (layer, whether its children were pushed)
        var stack: [(Int32, Bool)] = scene.rootsBackToFront.map { ($0, false) }
        while let (k, expanded) = stack.popLast() {
            if expanded {
                end[Int(k)] = next
                decisions.append(k)
                continue
            }
            begin[Int(k)] = next
            next += 1
            stack.append((k, true))
            for child in scene.childrenBackToFront(of: Int(k)) { stack.append((child, false)) }
        }
        var rank = [Int32](repeating: 0, count: n)
        for (r, k) in decisions.enumerated() { rank[Int(k)] = Int32(r) }
        self.rank = rank
        self.decisions = decisions
        self.begin = begin
        self.end = end
    }

    /// Whether a visit that stops at `target` (-1: never stops) begins
    /// layer `n`'s visit: the target is not a layer met wholly before it.
    @inlinable public func begins(_ n: Int32, stoppingAt target: Int32) -> Bool {
        target < 0 || end[Int(target)] > begin[Int(n)]
    }

    /// Whether `m` is a strict descendant of `n`.
    @inlinable public func isBelow(_ m: Int32, _ n: Int32) -> Bool {
        begin[Int(m)] > begin[Int(n)] && begin[Int(m)] < end[Int(n)]
    }
}

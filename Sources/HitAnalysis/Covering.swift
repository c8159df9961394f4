import HitRouting

/// `coveredBy` and `blockers` (SPEC §12.1): where a target is in the `all`
/// stack but the sample does not belong to it.
enum Covering {
    /// Fills each target's `coveredBy` in `audits` (indexed by label) and
    /// returns the blockers, largest first (ties: the one whose first
    /// sample comes first in row-major order), and the blocked samples
    /// (a bit each, row-major).
    ///
    /// Each target is tested (`CompiledScene.follow`) only at the samples
    /// inside its region's search box that do not belong to it, row-major,
    /// so each group's first sample is found first; groups are keyed by
    /// the routed target in a hash table. A blocked sample is counted once
    /// however many targets are in its stack (a bit a sample).
    /// - Complexity: O(Σ over targets of those samples · (depth + region
    ///   test)) time; memory a bit a sample plus O(groups).
    static func find(
        _ scene: CompiledScene, grid: SampleGrid, routed: [Int32], labels: [Int32], targetLayers: [Int32], order: VisitingOrder,
        audits: inout [TargetAudit], work: inout Int, workLimit: Int
    ) throws(AnalysisError) -> (blockers: [Blocker], blocked: [UInt64]) {
        struct Group {
            var cells = 0
            var first = Int.max
        }
        var blocked = [UInt64](repeating: 0, count: (routed.count + 63) / 64)
        var blockers: [Int32: Group] = [:]
        var covers: [Int32: Set<Int32>] = [:]
        let columns = grid.columns
        for (a, n) in targetLayers.enumerated() {
            let chain = scene.chain(to: Int(n))
            guard scene.mayBeInStack(chain), let box = scene.searchBox(of: Int(n)) else { continue }
            // A layer in the stack that is not pass-through is the target or
            // behind it: where the target comes later in decision order, or
            // there is none, it is not in the stack.
            let opaque = !scene.isPassThrough(Int(n))
            let rank = order.rank[Int(n)]
            var groups: [Int32: Group] = [:]
            for j in grid.rows(from: box.minY, to: box.maxY) {
                for i in grid.columns(from: box.minX, to: box.maxX) {
                    let s = j * columns + i
                    let label = labels[s]
                    guard label != Int32(a) else { continue }
                    let target = routed[s]
                    if opaque && (target < 0 || order.rank[Int(target)] > rank) { continue }
                    guard scene.follow(chain, grid.sample(i, j), work: &work).inStack else { continue }
                    groups[target, default: Group()].cells += 1
                    if groups[target]!.first == .max { groups[target]!.first = s }
                    guard label < 0, target >= 0 else { continue }
                    covers[target, default: []].insert(Int32(a))
                    let bit: UInt64 = 1 << UInt64(s & 63)
                    if blocked[s >> 6] & bit == 0 {
                        blocked[s >> 6] |= bit
                        blockers[target, default: Group()].cells += 1
                        blockers[target]!.first = min(blockers[target]!.first, s)
                    }
                }
                if work > workLimit { throw .tooMuchWork(limit: workLimit) }
            }
            audits[a].coveredBy = groups.sorted {
                $0.value.cells != $1.value.cells ? $0.value.cells > $1.value.cells : $0.value.first < $1.value.first
            }
            .map { (layer: $0.key >= 0 ? Int($0.key) : nil, area: grid.area($0.value.cells)) }
        }
        let sorted = blockers.sorted {
            $0.value.cells != $1.value.cells ? $0.value.cells > $1.value.cells : $0.value.first < $1.value.first
        }
        .map {
            Blocker(
                layer: Int($0.key), area: grid.area($0.value.cells),
                covers: covers[$0.key, default: []].sorted().map { Int(targetLayers[Int($0)]) })
        }
        return (sorted, blocked)
    }
}

import Glibc

@testable import HitAnalysis
@testable import HitRouting

/// SPEC §12 computed the slow way, straight from its words: every sample
/// routed one by one with a trace and the `all` stack (`hit(_:trace:all:)`),
/// squares and distances by exhaustive search. The property tests compare
/// the analysis with this, field by field.
struct BruteForce {
    let scene: CompiledScene
    let grid: SampleGrid
    /// Per sample (row-major): the traced, `all` answer.
    let hits: [HitResult]

    init(_ scene: CompiledScene, _ grid: SampleGrid) {
        self.scene = scene
        self.grid = grid
        hits = (0..<grid.count).map { scene.hit(grid.sample($0), trace: true, all: true) }
    }

    func ij(_ s: Int) -> (Int, Int) { (s % grid.columns, s / grid.columns) }

    /// Layers in a full trace's order: children first, siblings front to back.
    var visitingOrder: [Int] {
        var out: [Int] = []
        func walk(_ n: Int) {
            for c in scene.childrenBackToFront(of: n).reversed() { walk(Int(c)) }
            out.append(n)
        }
        for root in scene.rootsBackToFront.reversed() { walk(Int(root)) }
        return out
    }

    /// The largest all-`belongs` square: (side in cells, top-left i, j), first in row-major order.
    func largestSquare(_ belongs: (Int) -> Bool) -> (Int, Int, Int) {
        for k in stride(from: min(grid.columns, grid.rows), through: 1, by: -1) {
            for j0 in 0...(grid.rows - k) {
                for i0 in 0...(grid.columns - k) {
                    var all = true
                    check: for j in j0..<(j0 + k) {
                        for i in i0..<(i0 + k) where !belongs(j * grid.columns + i) {
                            all = false
                            break check
                        }
                    }
                    if all { return (k, i0, j0) }
                }
            }
        }
        return (0, 0, 0)
    }

    /// The sample farthest from every sample not belonging (the ring
    /// outside the grid included), squared distance in cells; first of equals.
    func farthest(_ belongs: (Int) -> Bool) -> (d2: Int, sample: Int)? {
        var outside: [(Int, Int)] = []
        for j in -1...grid.rows {
            for i in -1...grid.columns {
                if i < 0 || j < 0 || i >= grid.columns || j >= grid.rows || !belongs(j * grid.columns + i) { outside.append((i, j)) }
            }
        }
        var best: (d2: Int, sample: Int)?
        for s in 0..<grid.count where belongs(s) {
            let (i, j) = ij(s)
            let d2 = outside.map { ($0.0 - i) * ($0.0 - i) + ($0.1 - j) * ($0.1 - j) }.min()!
            if best == nil || d2 > best!.d2 { best = (d2, s) }
        }
        return best
    }

    func sorted<K>(_ groups: [K: (Int, Int)]) -> [(K, Int, Int)] {
        groups.map { ($0.key, $0.value.0, $0.value.1) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.2 < $1.2 }
    }

    func audit(minSize: Double, spacing: Double?) -> (targets: [TargetAudit], blockers: [Blocker]) {
        let targets = visitingOrder.filter { scene.actions[$0] != nil }
        let belongsTo = hits.map { h in h.target.flatMap { scene.action(for: $0)?.layer } }
        var out: [TargetAudit] = []
        for t in targets {
            let mine = (0..<grid.count).filter { belongsTo[$0] == t }
            var a = TargetAudit(
                layer: t, cells: mine.count, area: Double(mine.count) * (grid.resolution * grid.resolution),
                box: nil, largestSquare: nil, sizePasses: false, spacingPasses: nil, reachPoint: nil,
                clearance: nil, coveredBy: [], verdict: .unreachable)
            if !mine.isEmpty {
                let is_ = mine.map { ij($0).0 }
                let js = mine.map { ij($0).1 }
                let b = grid.cellBox(is_.min()!, js.min()!, is_.max()!, js.max()!)
                a.box = CellBox(x: b.x, y: b.y, width: b.width, height: b.height)
                let (k, i0, j0) = largestSquare { belongsTo[$0] == t }
                a.largestSquare = CellSquare(
                    x: grid.x + Double(i0) * grid.resolution, y: grid.y + Double(j0) * grid.resolution,
                    side: Double(k) * grid.resolution)
                a.sizePasses = a.largestSquare!.side >= minSize
                let far = farthest { belongsTo[$0] == t }!
                a.reachPoint = grid.sample(far.sample)
                a.clearance = Double(far.d2).squareRoot() * grid.resolution
                a.verdict = a.sizePasses ? .pass : .tooSmall
            }
            var covered: [Int: (Int, Int)] = [:]
            for s in 0..<grid.count where belongsTo[s] != t && hits[s].stack!.contains(t) {
                let key = hits[s].target ?? -1
                covered[key] = covered[key].map { ($0.0 + 1, $0.1) } ?? (1, s)
            }
            a.coveredBy = sorted(covered).map { (layer: $0.0 >= 0 ? $0.0 : nil, area: Double($0.1) * (grid.resolution * grid.resolution)) }
            out.append(a)
        }
        if let spacing {
            let failing = out.indices.filter { out[$0].box != nil && !out[$0].sizePasses }
            for a in failing {
                let c = out[a].box!.centre
                var ok = true
                for s in 0..<grid.count {
                    guard let b = belongsTo[s], b != out[a].layer else { continue }
                    let p = grid.sample(s)
                    if hypot(p.x - c.x, p.y - c.y) < spacing / 2 { ok = false }
                }
                for o in failing where o != a {
                    let d = out[o].box!.centre
                    if hypot(d.x - c.x, d.y - c.y) < spacing { ok = false }
                }
                out[a].spacingPasses = ok
                if ok { out[a].verdict = .pass }
            }
        }
        var blockers: [Int: (Int, Int)] = [:]
        var covers: [Int: Set<Int>] = [:]
        for s in 0..<grid.count {
            guard belongsTo[s] == nil, let layer = hits[s].target else { continue }
            let inStack = targets.filter { hits[s].stack!.contains($0) }
            guard !inStack.isEmpty else { continue }
            blockers[layer] = blockers[layer].map { ($0.0 + 1, $0.1) } ?? (1, s)
            covers[layer, default: []].formUnion(inStack)
        }
        let position = Dictionary(uniqueKeysWithValues: targets.enumerated().map { ($1, $0) })
        return (
            out,
            sorted(blockers).map {
                Blocker(
                    layer: $0.0, area: Double($0.1) * (grid.resolution * grid.resolution),
                    covers: covers[$0.0]!.sorted { position[$0]! < position[$1]! })
            }
        )
    }

    /// Whether `p` lies in layer `n`'s region, mapped down every layer's
    /// stored inverse in turn (as a visit maps it).
    func inside(_ n: Int, _ p: Point) -> Bool {
        var q = p
        scene.forEachLayer(onPathTo: n) { q = scene.nodes[$0].toLocal.apply(q) }
        return scene.region(of: n)?.test(q).isHit ?? false
    }

    /// Why `n` did not take sample `s`, read from its trace.
    func lostReason(_ n: Int, _ s: Int) -> String {
        let entries = Dictionary(hits[s].trace.map { ($0.layer, $0) }, uniquingKeysWith: { a, _ in a })
        if let e = entries[n] { return e.reason.rawValue }
        var k = scene.parent(of: n)
        while let a = k {
            if let e = entries[a] {
                if e.decision == .skip || e.reason == .clipped { return "ancestor-" + e.reason.rawValue }
                if scene.nodes[a].pointerEvents == .selfOnly { return "ancestor-self-only" }
            }
            k = scene.parent(of: a)
        }
        return "covered"
    }

    func reach(_ n: Int) -> (cells: Int, reachPoint: Point?, clearance: Double?, lost: [ReachReport.Lost]) {
        let mine = (0..<grid.count).filter { hits[$0].target == n }
        let far = farthest { hits[$0].target == n }
        var groups: [String: (Int, Int)] = [:]
        var takers: [String: Int?] = [:]
        for s in 0..<grid.count where hits[s].target != n && inside(n, grid.sample(s)) {
            let reason = lostReason(n, s)
            let key = "\(hits[s].target ?? -1) \(reason)"
            takers[key] = hits[s].target
            groups[key] = groups[key].map { ($0.0 + 1, $0.1) } ?? (1, s)
        }
        let lost = sorted(groups).map {
            ReachReport.Lost(
                taker: takers[$0.0]!, reason: String($0.0.split(separator: " ")[1]), cells: $0.1,
                area: Double($0.1) * (grid.resolution * grid.resolution), point: grid.sample($0.2))
        }
        return (mine.count, far.map { grid.sample($0.sample) }, far.map { Double($0.d2).squareRoot() * grid.resolution }, lost)
    }
}

import Glibc
import HitRouting

/// A cell-aligned box: `x, y` its top-left corner, scene units.
public struct CellBox: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The centre, `(x + width / 2, y + height / 2)`.
    public var centre: Point { Point(x + width / 2, y + height / 2) }
}

/// The largest square of cells belonging to a target: top-left corner and side.
public struct CellSquare: Sendable, Equatable {
    public var x: Double, y: Double, side: Double
}

/// What the audit says of one target (SPEC §12.1).
public struct TargetAudit: Sendable, Equatable {
    public enum Verdict: String, Sendable {
        case pass
        case tooSmall = "too-small"
        case unreachable
    }

    /// The target layer.
    public var layer: Int
    /// Cells belonging to it.
    public var cells: Int
    public var area: Double
    /// Nil when unreachable (no cells).
    public var box: CellBox?
    public var largestSquare: CellSquare?
    public var sizePasses: Bool
    /// Only when the size fails, a spacing applies and the target has cells.
    public var spacingPasses: Bool?
    /// The first sample farthest from every sample not belonging to it, and that distance.
    public var reachPoint: Point?
    public var clearance: Double?
    /// Routed target layer (nil: none) and area, largest first.
    public var coveredBy: [(layer: Int?, area: Double)]
    public var verdict: Verdict

    public static func == (a: TargetAudit, b: TargetAudit) -> Bool {
        a.layer == b.layer && a.cells == b.cells && a.area == b.area && a.box == b.box && a.largestSquare == b.largestSquare
            && a.sizePasses == b.sizePasses && a.spacingPasses == b.spacingPasses && a.reachPoint == b.reachPoint
            && a.clearance == b.clearance && a.verdict == b.verdict
            && a.coveredBy.map(\.layer) == b.coveredBy.map(\.layer) && a.coveredBy.map(\.area) == b.coveredBy.map(\.area)
    }
}

/// A layer that takes samples belonging to no target while a target is
/// in the `all` stack there (SPEC §12.1 `blockers`).
public struct Blocker: Sendable, Equatable {
    public var layer: Int
    public var area: Double
    /// The targets in the stack at those samples, in visiting order.
    public var covers: [Int]
}

/// The answer of `GET /scenes/{id}/audit`.
public struct AuditReport: Sendable {
    public var grid: SampleGrid
    public var minSize: Double
    public var spacing: Double?
    public var targets: [TargetAudit]
    public var blockers: [Blocker]
    /// What routing and the stack tests read (`Walk.work`).
    public var work: Int
    /// With `keepCells`: per sample (row-major) the index in `targets` of
    /// the target it belongs to, or -1; and the blocked samples, a bit each.
    public var labels: [Int32]?
    public var blocked: [UInt64]?
}

/// SPEC §12.1: every target (a layer with an `action`) over a sample grid.
public enum Audit {
    /// Audits `scene` over `grid`.
    ///
    /// The samples are routed by the batch router (`GridRouting`); a sample
    /// belongs to its target's `actionLayer`. Areas, boxes, largest squares
    /// and reach points come from one pass each over the samples
    /// (`LabelStats`, `LargestSquare`, `Clearance`). `coveredBy` and
    /// `blockers` test each target's stack membership (`LayerChain`) at the
    /// samples inside its region's search box that do not belong to it,
    /// grouped by hashing. The spacing exception reads the samples within
    /// `spacing / 2` of each failing target's box centre, and compares the
    /// failing targets' centres along a sweep in x.
    ///
    /// - Complexity: O(samples · routing + Σ over targets of the samples in
    ///   their search boxes · depth + layers); memory 12 bytes a sample
    ///   (target, label, column distance) plus a bit for blockers, one
    ///   chunk of points while routing, and O(layers).
    /// - Parameter keepCells: keep each sample's label and the blocked
    ///   samples in the report (for a picture of them).
    /// - Throws: `AnalysisError.tooMuchWork` when routing and the stack
    ///   tests read more than `workLimit`.
    public static func run(
        _ scene: CompiledScene, grid: SampleGrid, minSize: Double, spacing: Double?, workLimit: Int, keepCells: Bool = false
    ) throws(AnalysisError) -> AuditReport {
        var work = 0
        let routed = try GridRouting.route(scene, grid, work: &work, workLimit: workLimit)
        let order = VisitingOrder(scene)
        var targetLayers: [Int32] = []
        var labelOfTarget = [Int32](repeating: -1, count: scene.layerCount)
        for n in order.decisions where scene.actions[Int(n)] != nil {
            labelOfTarget[Int(n)] = Int32(targetLayers.count)
            targetLayers.append(n)
        }
        // Layers are numbered in pre-order, so a parent's label is known before its children's.
        var labelOfLayer = [Int32](repeating: -1, count: scene.layerCount)
        for n in 0..<scene.layerCount {
            if scene.actions[n] != nil {
                labelOfLayer[n] = labelOfTarget[n]
            } else if let parent = scene.parent(of: n) {
                labelOfLayer[n] = labelOfLayer[parent]
            }
        }
        let labels = routed.map { $0 >= 0 ? labelOfLayer[Int($0)] : -1 }
        let count = targetLayers.count
        let columns = grid.columns
        let stats = LabelStats.count(labels, columns: columns, labelCount: count)
        let squares = LargestSquare.find(labels, columns: columns, labelCount: count)
        let far = Clearance.farthest(labels, columns: columns, labelCount: count)

        var audits: [TargetAudit] = []
        audits.reserveCapacity(count)
        for (a, n) in targetLayers.enumerated() {
            var t = TargetAudit(
                layer: Int(n), cells: stats.count[a], area: grid.area(stats.count[a]), box: nil, largestSquare: nil,
                sizePasses: false, spacingPasses: nil, reachPoint: nil, clearance: nil, coveredBy: [], verdict: .unreachable)
            if stats.count[a] > 0 {
                let b = grid.cellBox(stats.minI[a], stats.minJ[a], stats.maxI[a], stats.maxJ[a])
                t.box = CellBox(x: b.x, y: b.y, width: b.width, height: b.height)
                let corner = grid.cellBox(squares.i[a], squares.j[a], squares.i[a], squares.j[a])
                let side = Double(squares.side[a]) * grid.resolution
                t.largestSquare = CellSquare(x: corner.x, y: corner.y, side: side)
                t.sizePasses = side >= minSize
                t.reachPoint = grid.sample(far.sample[a])
                t.clearance = Double(far.d2[a]).squareRoot() * grid.resolution
                t.verdict = t.sizePasses ? .pass : .tooSmall
            }
            audits.append(t)
        }
        if let spacing {
            let passes = try Spacing.check(audits, labels: labels, grid: grid, spacing: spacing, work: &work, workLimit: workLimit)
            for (a, p) in passes where audits[a].verdict != .unreachable {
                audits[a].spacingPasses = p
                if p { audits[a].verdict = .pass }
            }
        }
        let (blockers, blocked) = try Covering.find(
            scene, grid: grid, routed: routed, labels: labels, targetLayers: targetLayers, order: order, audits: &audits,
            work: &work, workLimit: workLimit)
        return AuditReport(
            grid: grid, minSize: minSize, spacing: spacing, targets: audits, blockers: blockers, work: work,
            labels: keepCells ? labels : nil, blocked: keepCells ? blocked : nil)
    }
}

/// The spacing exception (SPEC §12.1 `spacing`).
enum Spacing {
    /// For each target with cells whose size fails: whether no sample of
    /// another target lies closer than `spacing / 2` to its box's centre,
    /// and that centre is at least `spacing` from every other such
    /// target's. Adds 1 to `work` per sample and centre read, and stops
    /// (throws) once `work` is over `workLimit`: a huge spacing reads the
    /// whole grid for each failing target.
    /// - Complexity: O(failing · (spacing / r)² + failing · neighbours in x).
    static func check(
        _ audits: [TargetAudit], labels: [Int32], grid: SampleGrid, spacing: Double, work: inout Int, workLimit: Int
    ) throws(AnalysisError) -> [(Int, Bool)] {
        let failing = audits.indices.filter { audits[$0].box != nil && !audits[$0].sizePasses }
        let centres = failing.map { audits[$0].box!.centre }
        let half = spacing / 2
        // Centres sorted by x, for the pairwise test.
        let byX = centres.indices.sorted { centres[$0].x < centres[$1].x || (centres[$0].x == centres[$1].x && $0 < $1) }
        var rankInX = [Int](repeating: 0, count: centres.count)
        for (r, k) in byX.enumerated() { rankInX[k] = r }
        var out: [(Int, Bool)] = []
        for (k, a) in failing.enumerated() {
            let c = centres[k]
            var ok = true
            // Other targets' samples within spacing / 2 of the centre.
            let cols = grid.columns(from: c.x - half, to: c.x + half)
            let rows = grid.rows(from: c.y - half, to: c.y + half)
            scan: for j in rows {
                if work > workLimit { throw .tooMuchWork(limit: workLimit) }
                for i in cols {
                    work &+= 1
                    let l = labels[j * grid.columns + i]
                    guard l >= 0, Int(l) != a else { continue }
                    let p = grid.sample(i, j)
                    if hypot(p.x - c.x, p.y - c.y) < half {
                        ok = false
                        break scan
                    }
                }
            }
            // Other failing targets' centres closer than spacing.
            if ok {
                for step in [-1, 1] {
                    var r = rankInX[k] + step
                    while ok && r >= 0 && r < byX.count {
                        let o = centres[byX[r]]
                        work &+= 1
                        if work > workLimit { throw .tooMuchWork(limit: workLimit) }
                        if !(abs(o.x - c.x) < spacing) { break }
                        if hypot(o.x - c.x, o.y - c.y) < spacing { ok = false }
                        r += step
                    }
                }
            }
            if work > workLimit { throw .tooMuchWork(limit: workLimit) }
            out.append((a, ok))
        }
        return out
    }
}

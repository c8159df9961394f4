// `hitroute-bench audit N [rounds [divisions]]`: a whole-scene audit
// (SPEC §12.1) of the N-polygon scene over its bounds, at the default
// resolution (the larger side ÷ 512) or the larger side ÷ `divisions`.
import CEpoll
import Glibc
import HitAPI
import HitAnalysis
import HitRouting
import SceneCodec

/// Prints the audit's median time over `rounds` runs, its phases once, and
/// the memory it takes beyond the compiled scene, per sample.
func benchAudit(count: Int, rounds: Int, divisions: Double = 512) {
    let body = polygonSceneJSON(count: count)
    let scene = try! body.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: SceneLimits()) }
    let compiled = CompiledScene(scene)
    let side = max(compiled.bounds!.width, compiled.bounds!.height)
    let grid = try! GridRequest(resolution: side / divisions).grid(
        defaultRegion: compiled.bounds, maxSamples: GridRequest.defaultMaxSamples)
    malloc_trim(0)
    let rss0 = residentMemory().current
    resetPeakRSS()
    var times: [Double] = []
    var report: AuditReport?
    for _ in 0..<rounds {
        let t0 = now()
        report = try! Audit.run(compiled, grid: grid, minSize: 24, spacing: 24, workLimit: .max)
        times.append(now() - t0)
    }
    let peak = residentMemory().peak
    var work = 0
    let t0 = now()
    let routed = try! GridRouting.route(compiled, grid, work: &work, workLimit: .max)
    let routing = now() - t0
    let r = report!
    let verdicts = Dictionary(grouping: r.targets, by: \.verdict).mapValues(\.count)
    print("audit: \(count) polygons, \(grid.columns) × \(grid.rows) = \(grid.count) samples, r = \(grid.resolution)")
    print(
        "  whole audit:   \(fixed(median(times) * 1000)) ms median of \(rounds)  (\(times.map { fixed($0 * 1000, width: 1) }.joined(separator: " ")))"
    )
    print("  routing alone: \(fixed(routing * 1000)) ms (once), \(routed.filter { $0 >= 0 }.count) samples hit")
    print(
        "  targets \(r.targets.count): pass \(verdicts[.pass] ?? 0), too-small \(verdicts[.tooSmall] ?? 0), unreachable \(verdicts[.unreachable] ?? 0); blockers \(r.blockers.count); work \(r.work)"
    )
    print(
        "  memory beyond the scene: peak RSS +\(fixed(Double(peak - rss0) / 1_048_576)) MiB = \(fixed(Double(peak - rss0) / Double(grid.count))) bytes a sample"
    )
}

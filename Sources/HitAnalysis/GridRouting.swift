import HitRouting

/// Routing every sample of a grid, as `POST /scenes/{id}/hits` routes
/// points without a pointer: through `CompiledScene.targets(at:into:workLimit:)`
/// (the sibling indexes, covers and interleaved walks of a batch).
public enum GridRouting {
    /// Samples routed per call of the batch router: the points of one
    /// chunk are the only per-sample memory beyond the answers (16 bytes a
    /// point, 1 MiB in all), and a chunk is large enough for the batch
    /// router's grid order.
    public static let chunk = 65_536

    /// `targets[s]` becomes sample `s`'s target layer, or -1.
    /// - Parameters:
    ///   - work: what routing read so far (`Walk.work`); grows by this routing's.
    ///   - workLimit: the most `work` may reach.
    /// - Throws: `AnalysisError.tooMuchWork` once `work` is over `workLimit`.
    /// - Complexity: that of `targets(at:into:)` per sample; memory 4 bytes
    ///   a sample (the answers) plus one chunk of points.
    public static func route(_ scene: CompiledScene, _ grid: SampleGrid, work: inout Int, workLimit: Int) throws(AnalysisError) -> [Int32] {
        let n = grid.count
        var targets = [Int32](repeating: -1, count: n)
        guard n > 0 else { return targets }
        var points = [Point](repeating: .zero, count: min(n, chunk))
        var start = 0
        while start < n {
            let end = min(n, start + chunk)
            for s in start..<end { points[s - start] = grid.sample(s) }
            let left = workLimit - work
            let read = points.withUnsafeBufferPointer { p in
                targets.withUnsafeMutableBufferPointer { t in
                    scene.targets(
                        at: UnsafeBufferPointer(rebasing: p[0..<(end - start)]),
                        into: UnsafeMutableBufferPointer(rebasing: t[start..<end]), workLimit: left)
                }
            }
            work &+= read
            if work > workLimit { throw .tooMuchWork(limit: workLimit) }
            start = end
        }
        return targets
    }
}

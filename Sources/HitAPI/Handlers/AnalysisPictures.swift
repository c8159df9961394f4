import HitAnalysis
import HitRender
import HitRouting

/// The cells of an audit or a diff over a render (`render.svg?audit=1`,
/// `?diff=`), over the default grid (the bounds, their larger side ÷ 512)
/// and, for the audit, the default standard (WCAG 2.5.8).
extension Application {
    /// Each target's cells tinted, blocked cells hatched, failing targets'
    /// boxes outlined, every reach point marked (red when failing).
    func auditPicture(_ scene: CompiledScene) throws(Problem) -> CellPicture {
        let grid = try analysisGrid(AnalysisQuery(), defaultRegion: scene.bounds)
        let report: AuditReport
        do {
            report = try Audit.run(
                scene, grid: grid, minSize: Standard.wcag258.minSize, spacing: Standard.wcag258.spacing,
                workLimit: configuration.maxBatchWork, keepCells: true)
        } catch {
            throw analysisProblem(error, samples: grid.count)
        }
        var picture = CellPicture(
            x: grid.x, y: grid.y, resolution: grid.resolution, columns: grid.columns, rows: grid.rows,
            labels: report.labels ?? [], hatched: report.blocked ?? [], kind: "audit")
        for t in report.targets {
            let failing = t.verdict != .pass
            let title = "\(scene.ids[t.layer]): \(t.verdict.rawValue)"
            if let p = t.reachPoint { picture.marks.append((p, failing, title + " (reach point)")) }
            if failing, let b = t.box { picture.boxes.append((b.x, b.y, b.width, b.height, title)) }
        }
        return picture
    }

    /// The cells whose routing differs from `other`'s, tinted by group.
    func diffPicture(_ scene: CompiledScene, _ other: CompiledScene) throws(Problem) -> CellPicture {
        let grid = try analysisGrid(AnalysisQuery(), defaultRegion: Diff.defaultRegion(scene, other))
        let report: DiffReport
        do {
            report = try Diff.run(scene, other, grid: grid, workLimit: configuration.maxBatchWork, keepCells: true)
        } catch {
            throw analysisProblem(error, samples: grid.count)
        }
        return CellPicture(
            x: grid.x, y: grid.y, resolution: grid.resolution, columns: grid.columns, rows: grid.rows,
            labels: report.cellGroups ?? [], kind: "diff")
    }
}

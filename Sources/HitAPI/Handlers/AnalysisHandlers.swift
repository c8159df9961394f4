import HTTPServer
import HitAnalysis
import HitJSON
import HitRouting
import SceneCodec

/// SPEC §12: questions about the whole scene, each over a sample grid
/// routed by the batch router. They always run on a worker thread
/// (`RunWhere`, `.analysis`): even a small grid routes hundreds of
/// thousands of points.
extension Application {
    /// Runs `body` where `RunWhere` places an analysis: on a worker.
    private func analysis(_ placement: Placement, _ body: @escaping @Sendable () throws(Problem) -> HTTPResponse) throws(Problem) -> Step {
        guard runsHere(RunWhere.Work(kind: .analysis), placement) else { return .worker(body) }
        return .done(try body())
    }

    /// `GET /scenes/{id}/audit`.
    func audit(_ id: String, _ request: HTTPRequest, _ placement: Placement) throws(Problem) -> Step {
        try analysis(placement) { [self] () throws(Problem) in try audit(id, request) }
    }

    /// `GET /scenes/{id}/layers/{layerId}/reach`.
    func reach(_ id: String, _ layer: String, _ request: HTTPRequest, _ placement: Placement) throws(Problem) -> Step {
        try analysis(placement) { [self] () throws(Problem) in try reach(id, layer, request) }
    }

    /// `GET /scenes/{id}/diff?against={otherId}`.
    func diff(_ id: String, _ request: HTTPRequest, grant: Grant = .all, _ placement: Placement) throws(Problem) -> Step {
        try analysis(placement) { [self] () throws(Problem) in try diff(id, request, grant: grant) }
    }

    private func audit(_ id: String, _ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let query = try analysisQuery(request, .audit)
        let snapshot = try self.snapshot(id)
        let scene = snapshot.compiled
        let grid = try analysisGrid(query, defaultRegion: scene.bounds)
        let report: AuditReport
        do {
            report = try Audit.run(scene, grid: grid, minSize: query.minSize, spacing: query.spacing, workLimit: configuration.maxBatchWork)
        } catch {
            throw analysisProblem(error, samples: grid.count)
        }
        return json(200, capacity: 256 + report.targets.count * 400) { w in
            AnalysisEncoder.audit(report, id: snapshot.id, version: snapshot.version, scene: scene, &w)
        }
    }

    private func reach(_ id: String, _ layer: String, _ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let query = try analysisQuery(request, .reach)
        let snapshot = try self.snapshot(id)
        let scene = snapshot.compiled
        guard let n = scene.indexByID[layer] else { throw Problem.notFound("no layer \"\(layer)\" in scene \"\(id)\"") }
        let grid = try analysisGrid(query, defaultRegion: scene.bounds)
        let report: ReachReport
        do {
            report = try Reach.run(scene, layer: Int(n), grid: grid, workLimit: configuration.maxBatchWork)
        } catch {
            throw analysisProblem(error, samples: grid.count)
        }
        return json(200, capacity: 512 + report.lost.count * 160) { w in
            AnalysisEncoder.reach(report, id: snapshot.id, version: snapshot.version, scene: scene, &w)
        }
    }

    /// A tenant key's `against` must be one of its scenes too (else 404).
    private func diff(_ id: String, _ request: HTTPRequest, grant: Grant) throws(Problem) -> HTTPResponse {
        let query = try analysisQuery(request, .diff)
        let snapshot = try self.snapshot(id)
        let other = try self.snapshot(query.against ?? "", reachedBy: grant)
        let (a, b) = (snapshot.compiled, other.compiled)
        let grid = try analysisGrid(query, defaultRegion: Diff.defaultRegion(a, b))
        let report: DiffReport
        do {
            report = try Diff.run(a, b, grid: grid, workLimit: configuration.maxBatchWork)
        } catch {
            throw analysisProblem(error, samples: grid.count)
        }
        return json(200, capacity: 512 + report.groups.count * 300) { w in
            AnalysisEncoder.diff(
                report, id: snapshot.id, version: snapshot.version, scene: a, against: other.id,
                againstVersion: other.version, other: b, &w)
        }
    }

    /// The route's query, or a 422 naming its parameters.
    func analysisQuery(_ request: HTTPRequest, _ kind: AnalysisQueryDecoder.Kind) throws(Problem) -> AnalysisQuery {
        do {
            return try AnalysisQueryDecoder.decode(request.query, kind)
        } catch {
            throw Problem.invalidRequest(error)
        }
    }

    /// The sample grid a query asks for over `defaultRegion`, within `--max-analysis-samples`.
    func analysisGrid(_ query: AnalysisQuery, defaultRegion: Box?) throws(Problem) -> SampleGrid {
        do {
            return try query.grid.grid(defaultRegion: defaultRegion, maxSamples: configuration.maxAnalysisSamples)
        } catch {
            throw analysisProblem(error, samples: 0)
        }
    }

    /// An analysis refusal as a 422: the parameter to blame, or the grid
    /// whose routing read more than `--max-batch-work`.
    func analysisProblem(_ error: AnalysisError, samples: Int) -> Problem {
        switch error {
        case .invalid(let parameter, let message):
            let detail =
                parameter == "resolution"
                ? "the sample grid is refused (at most --max-analysis-samples = \(configuration.maxAnalysisSamples) samples, with finite cells): \(message)"
                : "the region is refused: \(message)"
            return Problem(
                422, "invalid-request", "Invalid request", detail,
                issues: [ValidationIssue(pointer: "/\(parameter)", message: message)])
        case .tooMuchWork(let limit):
            return Problem(
                422, "invalid-request", "Invalid request",
                "routing and testing the grid's \(samples) samples would read more than --max-batch-work (\(limit)) region elements: ask with a coarser resolution or a smaller region",
                issues: [ValidationIssue(pointer: "/resolution", message: "too much work for one request; use a coarser resolution")])
        }
    }
}

import HTTPServer
import HitJSON
import HitRouting

/// SPEC §4.2 and §5: routing points, one or many, with pointer sessions.
extension Application {
    /// `granted`: the scope the request's key holds (SPEC §8); pointer
    /// phases other than `hover` need ``Scope/interact``.
    func hit(_ id: String, _ request: HTTPRequest, granted: Scope = .write) throws(Problem) -> HTTPResponse {
        let query: HitQuery
        do {
            if request.method == "POST" {
                query = try request.body.withUnsafeBufferPointer { (b) throws(DecodeFailure) -> HitQuery in
                    try HitRequestDecoder.decodeHit(b)
                }
            } else {
                query = try HitRequestDecoder.decodeQueryString(request.query)
            }
        } catch {
            throw Problem.invalidRequest(error)
        }
        let answer = try answerHit(query, in: id, granted: granted, request: request, namespace: PointerKey.http)
        return json(200, capacity: query.trace ? 1024 : 256) { w in answer.write(to: &w) }
    }

    /// The one answer to a decoded hit query, for `POST …/hit`, `GET …/hit`
    /// and a stream's message alike (their answers are identical by
    /// construction): the scope and origin checks of pointer phases, the
    /// routing (through the pointer sessions of `namespace` when the query
    /// carries a pointer and phase), and the points counted.
    /// - Parameter request: the request whose key and `Origin` the checks
    ///   read (a stream's: its opening handshake).
    /// - Throws: the problem to answer; ``Problem/runOnWorker`` on a loop
    ///   when the scene's points cost too much to route there.
    func answerHit(
        _ query: HitQuery, in id: String, granted: Scope, request: HTTPRequest, namespace: UInt64
    ) throws(Problem) -> HitAnswer {
        if query.point.pointer != nil, let phase = query.point.phase {
            try requirePointerPhases(hoverOnly: phase == .hover, granted, request)
        }
        let (result, captured, boundary, snapshot) = try route(query.point, in: id, trace: query.trace, all: query.all, namespace: namespace)
        counters.countPoints(1, batch: false, loop: request.eventLoop)
        if result.target == nil { counters.countUnrouted(1, batch: false, loop: request.eventLoop) }
        return HitAnswer(query: query, result: result, captured: captured, boundary: boundary, snapshot: snapshot)
    }

    func hits(_ id: String, _ request: HTTPRequest, granted: Scope = .write) throws(Problem) -> HTTPResponse {
        let maxPoints = configuration.maxBatchPoints
        let batch: BatchQuery
        do {
            batch = try request.body.withUnsafeBufferPointer { (b) throws(DecodeFailure) -> BatchQuery in
                try HitRequestDecoder.decodeBatch(b, maxPoints: maxPoints)
            }
        } catch {
            throw Problem.invalidRequest(error)
        }
        if !batch.pointerEvents.isEmpty { try requirePointerPhases(hoverOnly: !batch.needsInteract, granted, request) }
        // On an event loop a batch without pointer events may read
        // `Configuration.loopBatchWork`, then it starts again on a worker (below). One
        // with events could not start again once an event is applied (and
        // with Redis any event may need a round trip): with more than one
        // point it runs on a worker from the start, and a single point
        // stays where it is, like a single hit.
        let onLoop = LoopThread.isCurrent
        if onLoop, !batch.pointerEvents.isEmpty, batch.points.count > 1 { throw Problem.runOnWorker }
        let maxWork = configuration.maxBatchWork
        let limit = onLoop && batch.pointerEvents.isEmpty ? min(maxWork, configuration.loopBatchWork) : maxWork
        var snapshot = try self.snapshot(id)
        // Batches of this version outgrew the loop's share before, or its points are costly: here they only would again.
        if onLoop, snapshot.isCostly(.batches) || snapshot.isCostly(.points) { throw Problem.runOnWorker }
        try checkLayerVisits(batch, layers: snapshot.compiled.layerCount)
        if batch.pointerEvents.isEmpty { try estimateWork(batch.points, snapshot, limit: maxWork, onLoop: onLoop) }
        // Counted once the batch is accepted (a failure midway, a 429,
        // still routed the points before it), and never for a batch that
        // may yet start again on a worker: that one counts there.
        let mayRestart = limit < maxWork
        if !mayRestart { counters.countPoints(batch.points.count, batch: true, loop: request.eventLoop) }
        // One copy of the scene for the batch, not one per point.
        var entries = BatchResultWriter(scene: snapshot.compiled)
        let capacity = 128 + batch.points.count * (batch.trace ? 400 : 64)
        if !batch.trace && !batch.all && batch.pointerEvents.isEmpty && !snapshot.compiled.hasPassThrough {
            // Only targets, and no sessions or receivers: the scene routes
            // the points together, and its version is known before the results.
            let scene = entries.scene
            var targets = [Int32](repeating: -1, count: batch.points.count)
            let work = targets.withUnsafeMutableBufferPointer { targets in
                batch.points.withUnsafeBufferPointer { scene.targets(at: $0, into: targets, workLimit: limit) }
            }
            if work > limit { throw batchWorkProblem(snapshot, points: batch.points.count, limit: limit) }
            if mayRestart { counters.countPoints(batch.points.count, batch: true, loop: request.eventLoop) }
            counters.countUnrouted(targets.reduce(0) { $0 &+ ($1 < 0 ? 1 : 0) }, batch: true, loop: request.eventLoop)
            return json(200, capacity: capacity) { w in
                beginBatchResponse(snapshot, &w)
                w.beginArray()
                for (i, t) in targets.enumerated() {
                    // The descriptions of targets a few entries on, while this one is written.
                    if i + 8 < targets.count, targets[i + 8] >= 0 { scene.prefetchDescription(of: Int(targets[i + 8])) }
                    entries.write(HitResult(target: t >= 0 ? Int(t) : nil, local: nil), trace: false, captured: nil, to: &w)
                }
                w.endArray()
                w.endObject()
            }
        }
        var results = JSONWriter(capacity: capacity)
        results.beginArray()
        var events = batch.pointerEvents[...]
        var work = 0
        var unrouted = 0
        for (i, point) in batch.points.enumerated() {
            if let event = events.first, event.index == i {
                events.removeFirst()
                // Let go of the scene first: a drag changes it in place only
                // when nothing else holds it, else it copies the whole scene
                // (30 ms a move at 100,000 layers).
                snapshot = SceneSnapshot(id: id, version: snapshot.version, live: SceneSnapshot.vacant)
                entries.rescene(SceneSnapshot.vacant.compiled)
                let (outcome, after) = try store.pointerEvent(
                    id, PointerEvent(pointer: PointerKey(event.pointer), phase: event.phase, type: event.type, point: point,
                                     trace: batch.trace, all: batch.all))
                snapshot = after
                if outcome.moved { streams.sceneChanged(id) }
                entries.rescene(after.compiled)
                work &+= outcome.work
                if outcome.result.target == nil { unrouted &+= 1 }
                entries.write(outcome.result, trace: batch.trace, captured: outcome.captured, boundary: outcome.boundary, to: &results)
            } else {
                // A batch entry has no `local`: without trace, stack or receivers, only the target is routed.
                let result = batch.trace || batch.all || entries.scene.hasPassThrough
                    ? entries.scene.hit(point, trace: batch.trace, all: batch.all, work: &work)
                    : HitResult(target: entries.scene.target(at: point, work: &work), local: nil)
                if result.target == nil { unrouted &+= 1 }
                entries.write(result, trace: batch.trace, captured: nil, to: &results)
            }
            if work > limit { throw batchWorkProblem(snapshot, points: batch.points.count, limit: limit) }
        }
        if mayRestart { counters.countPoints(batch.points.count, batch: true, loop: request.eventLoop) }
        counters.countUnrouted(unrouted, batch: true, loop: request.eventLoop)
        results.endArray()
        return batchResponse(snapshot, results)
    }

    /// `{"scene":…,"version":…,"results":[…]}` around the written results
    /// (for a batch whose sessions may change the scene's version midway).
    private func batchResponse(_ snapshot: SceneSnapshot, _ results: borrowing JSONWriter) -> HTTPResponse {
        json(200, capacity: results.count + 128) { w in
            beginBatchResponse(snapshot, &w)
            results.withBytes { w.raw($0) }
            w.endObject()
        }
    }

    /// A batch answer up to its results: `{"scene":…,"version":…,"results":`.
    private func beginBatchResponse(_ snapshot: SceneSnapshot, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("scene"); w.string(snapshot.id)
        w.field("version"); w.int(snapshot.version)
        w.field("results")
    }

    /// Points of a batch routed first to estimate its work, and the
    /// smallest batch so estimated (the sample is at most 1/16 of it).
    static let workSample = 64
    static let workSampleFrom = 1024

    /// Refuses a big batch whose work, estimated from ``workSample`` evenly
    /// spaced points, passes twice `limit`: it would be refused anyway,
    /// after routing up to `limit`; this way the refusal costs the sample's
    /// share. Deterministic (the same scene and points, the same answer);
    /// a batch whose sample costs more than twice its average point can be
    /// refused though it would fit. On an event loop a sample that reads
    /// more than the loop's share moves the batch to a worker first.
    private func estimateWork(_ points: [Point], _ snapshot: SceneSnapshot, limit: Int, onLoop: Bool) throws(Problem) {
        let n = points.count, s = Application.workSample
        guard n >= Application.workSampleFrom else { return }
        let (doubled, overflow) = limit.multipliedReportingOverflow(by: 2)
        let sampleLimit = overflow ? Int.max : doubled / n * s + (doubled % n) * s / n
        let budget = onLoop ? min(sampleLimit, configuration.loopBatchWork) : sampleLimit
        let sample = (0..<s).map { points[$0 * n / s] }
        var targets = [Int32](repeating: -1, count: s)
        let work = targets.withUnsafeMutableBufferPointer { t in
            sample.withUnsafeBufferPointer { snapshot.compiled.targets(at: $0, into: t, workLimit: budget) }
        }
        if work > sampleLimit {
            throw Problem(
                422, "invalid-request", "Invalid request",
                "routing \(s) of the batch's \(n) points, evenly spaced, read \(work) region elements: all of them would read about \(work / s * n), past --max-batch-work (\(configuration.maxBatchWork)); the shapes under them cost too much per point",
                issues: [ValidationIssue(pointer: "/points", message: "too much work for one batch; send fewer points")])
        }
        if work > budget {
            snapshot.markCostly(.batches)
            throw Problem.runOnWorker
        }
    }

    /// Layer visits a traced (or `all`) batch may cost: such a batch visits
    /// every layer for every point, so its size is bounded up front rather
    /// than by a response that could not fit in memory.
    static let maxBatchLayerVisits = 2_000_000

    private func checkLayerVisits(_ batch: BatchQuery, layers: Int) throws(Problem) {
        guard batch.trace || batch.all else { return }
        let (visits, overflow) = batch.points.count.multipliedReportingOverflow(by: max(1, layers))
        guard overflow || visits > Application.maxBatchLayerVisits else { return }
        let flag = batch.trace ? "trace" : "all"
        throw Problem(
            422, "invalid-request", "Invalid request",
            "a batch with \(flag) visits every layer for every point: \(batch.points.count) points × \(layers) layers is over \(Application.maxBatchLayerVisits)",
            issues: [ValidationIssue(pointer: "/\(flag)", message: "too much work for one batch; send fewer points or \(flag): false")])
    }

    /// The 422 for a batch whose routing read more than `--max-batch-work`
    /// (`CompiledScene.targets(at:into:workLimit:)`): its shapes cost too
    /// much per point for that many points. Under `limit`, the loop's
    /// share (`Configuration.loopBatchWork`), it is a move to a worker instead, and the
    /// version's later batches start there (`SceneSnapshot.isCostly`).
    private func batchWorkProblem(_ snapshot: SceneSnapshot, points: Int, limit: Int) -> Problem {
        if limit < configuration.maxBatchWork {
            snapshot.markCostly(.batches)
            return Problem.runOnWorker
        }
        return Problem(
            422, "invalid-request", "Invalid request",
            "routing the batch's \(points) points would read more than --max-batch-work (\(configuration.maxBatchWork)) region elements: the shapes under them cost too much per point",
            issues: [ValidationIssue(pointer: "/points", message: "too much work for one batch; send fewer points")])
    }

    /// `hover` needs only the `read` scope, the other phases `interact`
    /// (SPEC §8, §11.1); any of them is refused from a foreign browser
    /// origin while the service is open, as pointer phases are.
    private func requirePointerPhases(hoverOnly: Bool, _ granted: Scope, _ request: HTTPRequest) throws(Problem) {
        if hoverOnly { try checkOrigin(request) } else { try requirePointerPhases(granted, request) }
    }

    /// Routes one point: through the scene's pointer sessions when it
    /// carries a pointer and phase, else against the current snapshot.
    /// - Returns: the result, `captured` and `boundary` (nil without a
    ///   pointer) and the snapshot the answer describes.
    private func route(
        _ point: PointQuery, in id: String, trace: Bool, all: Bool, namespace: UInt64
    ) throws(Problem) -> (HitResult, Bool?, Boundary?, SceneSnapshot) {
        if let pointer = point.pointer, let phase = point.phase {
            if LoopThread.isCurrent, try self.snapshot(id).isCostly(.points) { throw Problem.runOnWorker }
            let (outcome, snapshot) = try store.pointerEvent(
                id, PointerEvent(pointer: PointerKey(pointer, namespace: namespace), phase: phase, type: point.pointerType ?? .mouse,
                                 point: point.point, trace: trace, all: all))
            if outcome.work > configuration.loopHitWork { snapshot.markCostly(.points) }
            if outcome.moved { streams.sceneChanged(id) }
            return (outcome.result, outcome.captured, outcome.boundary, snapshot)
        }
        let snapshot = try self.snapshot(id)
        if snapshot.isCostly(.points), LoopThread.isCurrent { throw Problem.runOnWorker }
        var work = 0
        let result = snapshot.withCompiled { $0.hit(point.point, trace: trace, all: all, work: &work) }
        if work > configuration.loopHitWork { snapshot.markCostly(.points) }
        return (result, nil, nil, snapshot)
    }

}

import HTTPServer
import HitJSON
import HitRouting
import HitStore
import SceneCodec

/// SPEC §4.2 and §5: routing points, one or many, with pointer sessions.
extension Application {
    /// `granted`: the scope the request's key holds (SPEC §8); pointer
    /// phases other than `hover` need ``Scope/interact``.
    func hit(_ id: String, _ request: HTTPRequest, granted: Scope = .write, _ placement: Placement) throws(Problem) -> Step {
        let query: HitQuery
        do {
            if MethodName.is(request.method, "POST") {
                query = try request.body.withUnsafeBufferPointer { (b) throws(DecodeFailure) -> HitQuery in
                    try HitRequestDecoder.decodeHit(b)
                }
            } else {
                query = try HitRequestDecoder.decodeQueryString(request.query)
            }
        } catch {
            throw Problem.invalidRequest(error)
        }
        let (here, held) = placeHit(query, in: id, placement)
        guard here else {
            // Captured under other names: `query` and `held` move below.
            let (work, snapshot) = (query, held)
            return .worker { [self] () throws(Problem) in try hitResponse(id, work, held: snapshot, granted: granted, request, .worker) }
        }
        return .done(try hitResponse(id, consume query, held: consume held, granted: granted, request, placement))
    }

    /// `RunWhere`'s decision for one hit query, from `POST …/hit`, `GET …/hit`
    /// or a stream's message alike: whether it runs here (on `placement`),
    /// and the snapshot the decision read, for the answer to route against
    /// (nil for a pointer event, which lets go of it before the store
    /// changes the scene: a drag changes it in place only when nothing else
    /// holds it, else it copies the whole scene).
    func placeHit(_ query: HitQuery, in id: String, _ placement: Placement) -> (runsHere: Bool, held: SceneSnapshot?) {
        let pointerEvent = query.point.pointer != nil && query.point.phase != nil
        // The snapshot goes into the work described and is taken back out: moved, not copied.
        var work = RunWhere.Work(kind: .hit(pointerEvent: pointerEvent), snapshot: store.residentSnapshot(id), namesScene: true)
        let here = placement == .worker || runsOnLoop(work)
        return (here, pointerEvent ? nil : work.snapshot.take())
    }

    /// A decoded hit's HTTP answer where the decision put it.
    /// Its fields are those `addCORS` leaves on the answer (`jsonHeaders(answering:)`).
    private func hitResponse(
        _ id: String, _ query: consuming HitQuery, held: consuming SceneSnapshot?, granted: Scope, _ request: HTTPRequest,
        _ placement: Placement
    ) throws(Problem) -> HTTPResponse {
        var w = JSONWriter(capacity: query.trace ? 1024 : 256)
        // Written here, not in a closure: one captured would be a copy of the answer.
        try answerHit(query, in: id, held: held, granted: granted, request: request, namespace: PointerKey.http, placement)
            .write(to: &w)
        return HTTPResponse(status: 200, headers: jsonHeaders(answering: request), body: w.finish())
    }

    /// The one answer to a decoded hit query, for `POST …/hit`, `GET …/hit`
    /// and a stream's message alike (their answers are identical by
    /// construction): the scope and origin checks of pointer phases, the
    /// routing (through the pointer sessions of `namespace` when the query
    /// carries a pointer and phase), and the points counted. It runs where
    /// ``placeHit(_:in:_:)`` put it (`placement`); `held` is the snapshot
    /// that decision read.
    /// - Parameter request: the request whose key and `Origin` the checks
    ///   read (a stream's: its opening handshake).
    func answerHit(
        _ query: consuming HitQuery, in id: String, held: consuming SceneSnapshot? = nil, granted: Scope, request: HTTPRequest,
        namespace: UInt64, _ placement: Placement
    ) throws(Problem) -> HitAnswer {
        if query.point.pointer != nil, let phase = query.point.phase {
            try requirePointerPhases(hoverOnly: phase == .hover, granted, request)
        }
        let (result, captured, boundary, snapshot) = try route(
            query.point, in: id, held: held, trace: query.trace, all: query.all, namespace: namespace)
        counters.countPoints(1, batch: false, loop: loopShard(request, placement))
        if result.target == nil { counters.countUnrouted(1, batch: false, loop: loopShard(request, placement)) }
        return HitAnswer(query: query, result: result, captured: captured, boundary: boundary, snapshot: snapshot)
    }

    func hits(_ id: String, _ request: HTTPRequest, granted: Scope = .write, _ placement: Placement) throws(Problem) -> Step {
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
        // As for a single hit: with pointer events, the snapshot is let go.
        let here: Bool
        let held: SceneSnapshot?
        do {
            let snapshot = store.residentSnapshot(id)
            here = placement == .worker || batchRunsHere(batch, snapshot)
            held = batch.pointerEvents.isEmpty ? snapshot : nil
        }
        guard here else {
            return .worker { [self] () throws(Problem) in try answerBatch(id, batch, held: held, request, .worker) }
        }
        return .done(try answerBatch(id, batch, held: held, request, placement))
    }

    /// `RunWhere`'s decision for a batch on a loop, with its estimate: the
    /// work of up to four of its points (the first, the last and two
    /// between), routed here, taken as what each of its points reads (or,
    /// with at most four points, their sum), or the most one point of this
    /// version was seen to read if that is more. A batch estimated past
    /// the loop's share marks its version, whose later batches then go to
    /// a worker too (`SceneSnapshot.isCostly`).
    private func batchRunsHere(_ batch: BatchQuery, _ held: SceneSnapshot?) -> Bool {
        var estimate = 0
        if let s = held, batch.pointerEvents.isEmpty, !s.isCostly(.batches), !s.isCostly(.points) {
            let points = batch.points
            let n = points.count
            let probes = n <= 4 ? Array(0..<n) : [0, n / 3, 2 * n / 3, n - 1]
            var most = 0
            var sum = 0
            s.withCompiled { scene in
                for i in probes {
                    var work = 0
                    _ = scene.target(at: points[i], work: &work)
                    most = max(most, work)
                    sum &+= work
                }
            }
            s.notePointWork(most)
            let (product, overflow) = max(most, s.pointWork).multipliedReportingOverflow(by: n)
            estimate = n <= 4 ? sum : overflow ? .max : product
            if estimate > configuration.loopBatchWork { s.markCostly(.batches) }
        }
        let work = RunWhere.Work(
            kind: .batch(points: batch.points.count, pointerEvents: !batch.pointerEvents.isEmpty, estimate: estimate),
            snapshot: held, namesScene: true)
        return runsHere(work, .loop)
    }

    /// Routes a decoded batch where the decision put it. On a loop, a batch
    /// that reads more than the loop's share (the estimate was short) is
    /// still answered there, and its version's later batches run on a worker.
    private func answerBatch(_ id: String, _ batch: BatchQuery, held: SceneSnapshot?, _ request: HTTPRequest, _ placement: Placement)
        throws(Problem) -> HTTPResponse
    {
        let limit = configuration.maxBatchWork
        var snapshot = try self.snapshot(id, held: held)
        try checkLayerVisits(batch, layers: snapshot.compiled.layerCount)
        if batch.pointerEvents.isEmpty { try estimateWork(batch.points, snapshot, limit: limit) }
        // Counted once the batch is accepted (a failure midway, a 429,
        // still routed the points before it).
        let loop = loopShard(request, placement)
        counters.countPoints(batch.points.count, batch: true, loop: loop)
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
            if work > limit { throw batchWorkProblem(points: batch.points.count) }
            noteBatchWork(snapshot, work, points: batch.points.count, placement)
            counters.countUnrouted(targets.reduce(0) { $0 &+ ($1 < 0 ? 1 : 0) }, batch: true, loop: loop)
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
                let pointerEvent = PointerEvent(
                    pointer: PointerKey(event.pointer), phase: event.phase, type: event.type, point: point, trace: batch.trace,
                    all: batch.all)
                let (outcome, after) = try stored { () throws(StoreError) in try store.pointerEvent(id, pointerEvent) }
                snapshot = after
                if outcome.moved { streams.sceneChanged(id) }
                entries.rescene(after.compiled)
                work &+= outcome.work
                if outcome.result.target == nil { unrouted &+= 1 }
                entries.write(outcome.result, trace: batch.trace, captured: outcome.captured, boundary: outcome.boundary, to: &results)
            } else {
                // A batch entry has no `local`: without trace, stack or receivers, only the target is routed.
                let result =
                    batch.trace || batch.all || entries.scene.hasPassThrough
                    ? entries.scene.hit(point, trace: batch.trace, all: batch.all, work: &work)
                    : HitResult(target: entries.scene.target(at: point, work: &work), local: nil)
                if result.target == nil { unrouted &+= 1 }
                entries.write(result, trace: batch.trace, captured: nil, to: &results)
            }
            if work > limit { throw batchWorkProblem(points: batch.points.count) }
        }
        noteBatchWork(snapshot, work, points: batch.points.count, placement)
        counters.countUnrouted(unrouted, batch: true, loop: loop)
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
        w.field("scene")
        w.string(snapshot.id)
        w.field("version")
        w.int(snapshot.version)
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
    /// refused though it would fit. (Where the batch runs was decided
    /// before, by `RunWhere`: see ``batchRunsHere(_:_:)``.)
    private func estimateWork(_ points: [Point], _ snapshot: SceneSnapshot, limit: Int) throws(Problem) {
        let n = points.count
        let s = Application.workSample
        guard n >= Application.workSampleFrom else { return }
        let (doubled, overflow) = limit.multipliedReportingOverflow(by: 2)
        let sampleLimit = overflow ? Int.max : doubled / n * s + (doubled % n) * s / n
        let sample = (0..<s).map { points[$0 * n / s] }
        var targets = [Int32](repeating: -1, count: s)
        let work = targets.withUnsafeMutableBufferPointer { t in
            sample.withUnsafeBufferPointer { snapshot.compiled.targets(at: $0, into: t, workLimit: sampleLimit) }
        }
        if work > sampleLimit {
            throw Problem(
                422, "invalid-request", "Invalid request",
                "routing \(s) of the batch's \(n) points, evenly spaced, read \(work) region elements: all of them would read about \(work / s * n), past --max-batch-work (\(configuration.maxBatchWork)); the shapes under them cost too much per point",
                issues: [ValidationIssue(pointer: "/points", message: "too much work for one batch; send fewer points")])
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

    /// What a batch read, for the decisions of later ones: its mean per
    /// point (`SceneSnapshot.pointWork`), and on a loop, past the loop's
    /// share, the version's later batches go to a worker
    /// (`SceneSnapshot.isCostly`).
    private func noteBatchWork(_ snapshot: SceneSnapshot, _ work: Int, points: Int, _ placement: Placement) {
        if points > 0 { snapshot.notePointWork(work / points) }
        if placement == .loop && work > configuration.loopBatchWork { snapshot.markCostly(.batches) }
    }

    /// The 422 for a batch whose routing read more than `--max-batch-work`
    /// (`CompiledScene.targets(at:into:workLimit:)`): its shapes cost too
    /// much per point for that many points.
    private func batchWorkProblem(points: Int) -> Problem {
        Problem(
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
        _ point: PointQuery, in id: String, held: consuming SceneSnapshot?, trace: Bool, all: Bool, namespace: UInt64
    ) throws(Problem) -> (HitResult, Bool?, Boundary?, SceneSnapshot) {
        if let pointer = point.pointer, let phase = point.phase {
            let event = PointerEvent(
                pointer: PointerKey(pointer, namespace: namespace), phase: phase, type: point.pointerType ?? .mouse,
                point: point.point, trace: trace, all: all)
            let (outcome, snapshot) = try stored { () throws(StoreError) in try store.pointerEvent(id, event) }
            if outcome.work > configuration.loopHitWork { snapshot.markCostly(.points) }
            if outcome.moved { streams.sceneChanged(id) }
            return (outcome.result, outcome.captured, outcome.boundary, snapshot)
        }
        let snapshot = try self.snapshot(id, held: consume held)
        var work = 0
        let result = snapshot.withCompiled { $0.hit(point.point, trace: trace, all: all, work: &work) }
        snapshot.notePointWork(work)
        if work > configuration.loopHitWork { snapshot.markCostly(.points) }
        return (result, nil, nil, snapshot)
    }

}

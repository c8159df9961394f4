import HTTPServer
import HitStore

/// The one place that decides where a piece of work runs: on the event
/// loop that received it, or on a worker thread (``Placement``).
///
/// Every request asks before its work begins: `Application.handle` gathers
/// what is known cheaply (the route and method, the body's size, the
/// scene's snapshot when the store holds it, a batch's points) into a
/// ``Work`` and calls ``decide(_:capabilities:limits:)``; on `.worker` the
/// rest of the request is handed to a worker as it stands (nothing already
/// done is done again). A pointer stream's opening, its messages and its
/// pushes, and a whole-scene analysis, are described by the same ``Work``
/// and placed by the same function.
///
/// The rules, in order:
/// 1. Work that may wait on another process goes to a worker: a read of a
///    scene the store does not hold when reads may block (opening a stream
///    on it, pushing to a stream of it included), a write or a
///    pointer event when writes may block (``StoreCapabilities``), a copy
///    older than `X-Min-Version` that must be fetched.
/// 2. Work of O(the scene) goes to a worker: a render, a whole-scene
///    analysis (audit, reach, diff); reading, patching
///    or deleting a scene of more than `bigSceneLayers` layers; a write
///    whose body holds 1 KiB or more (a few KiB of PNG can decode to
///    millions of pixels).
/// 3. Routing goes to a worker once its version was seen to cost too much
///    on a loop (``SceneSnapshot/isCostly(_:)``), when a batch's estimate
///    passes the loop's share (`loopBatchWork`; the caller makes the
///    estimate from a few of the batch's points, see `Application.hits`),
///    or when a batch of more than one point carries pointer events
///    (which, once applied, cannot move). A stream's push routes each of
///    its pointers again: it is placed as a batch of `--max-pointers`
///    points (the most it may route). A batch whose estimate was short
///    is answered where it started, and its version's later batches go
///    to a worker: the loop's share bounds what a batch is expected to
///    read there, not what it may read (`--max-batch-work` does).
/// 4. Everything else runs on the loop (opening a stream on a scene held
///    here reads its version only).
enum RunWhere {
    /// What a request (or a stream message) would do, as far as its place is concerned.
    struct Work {
        enum Kind: Equatable {
            /// Answers from memory of the process (health, documents, assets, metrics).
            case fixed
            /// `GET /scenes`: every scene's summary.
            case listScenes
            /// A read of one scene's document.
            case readScene
            /// A create, replace, patch or delete.
            case writeScene
            /// One point; `pointerEvent` when it carries a pointer phase.
            case hit(pointerEvent: Bool)
            /// `points` points, `pointerEvents` when any carries a phase;
            /// `estimate`: routing work the points are expected to read.
            case batch(points: Int, pointerEvents: Bool, estimate: Int)
            /// The scene drawn as SVG.
            case render
            /// A question about the whole scene over a sample grid (audit,
            /// reach, diff): hundreds of thousands of points at least.
            case analysis
            /// `GET /scenes/{id}/stream`: the scene's version, then the upgrade.
            case openStream
            /// A stream's push after a change: at most `pointers` of its
            /// pointers routed again (`SceneStoring.refreshPointers`).
            case pointerRefresh(pointers: Int)
        }

        var kind: Kind
        /// The scene's snapshot when the store holds it now (nil: none held,
        /// or the work names no scene).
        var snapshot: SceneSnapshot?
        /// Whether the work names a scene (so a missing snapshot may mean a fetch).
        var namesScene = false
        /// Bytes of the request body.
        var bodyBytes = 0
        /// `X-Min-Version` asked for, when the store honours it.
        var minVersion: Int?
    }

    /// The limits the rules read (from `Configuration`).
    struct Limits {
        /// Routing work a batch may read on a loop.
        var loopBatchWork: Int
        /// Layers from which a scene's document, patch or delete leaves the loop.
        var bigSceneLayers = Application.bigSceneLayers
        /// Bytes of a write's body from which it leaves the loop.
        var writeBodyBytes = 1024
    }

    /// Where `work` runs, by the rules above.
    /// - Complexity: O(1).
    static func decide(_ work: Work, capabilities: StoreCapabilities, limits: Limits) -> Placement {
        let kind = work.kind
        if kind == .fixed { return .loop }
        // 1. Waiting on another process.
        if capabilities.readsMayBlock && work.namesScene && work.snapshot == nil { return .worker }
        if let wanted = work.minVersion, (work.snapshot?.version ?? 0) < wanted { return .worker }
        switch kind {
        case .fixed: return .loop
        case .listScenes:
            return capabilities.readsMayBlock ? .worker : .loop
        case .render, .analysis:
            return .worker
        case .openStream:
            return .loop
        case .pointerRefresh(let pointers):
            guard let s = work.snapshot else { return .loop }  // none anywhere: nothing to route
            if s.isCostly(.points) || s.isCostly(.batches) { return .worker }
            let (estimate, overflow) = pointers.multipliedReportingOverflow(by: s.pointWork)
            return overflow || estimate > limits.loopBatchWork ? .worker : .loop
        case .readScene:
            return isBig(work.snapshot, limits) ? .worker : .loop
        case .writeScene:
            if capabilities.writesMayBlock || work.bodyBytes >= limits.writeBodyBytes { return .worker }
            return isBig(work.snapshot, limits) ? .worker : .loop
        case .hit(let pointerEvent):
            if pointerEvent && capabilities.writesMayBlock { return .worker }
            return work.snapshot?.isCostly(.points) == true ? .worker : .loop
        case .batch(let points, let pointerEvents, let estimate):
            if pointerEvents {
                // Once applied an event cannot move: more than one point
                // starts on a worker; one point is placed as a single hit.
                if points > 1 || capabilities.writesMayBlock { return .worker }
                return work.snapshot?.isCostly(.points) == true ? .worker : .loop
            }
            guard let s = work.snapshot else { return .loop }
            if s.isCostly(.points) || s.isCostly(.batches) { return .worker }
            return estimate > limits.loopBatchWork ? .worker : .loop
        }
    }

    private static func isBig(_ snapshot: SceneSnapshot?, _ limits: Limits) -> Bool {
        (snapshot?.compiled.layerCount ?? 0) > limits.bigSceneLayers
    }
}

/// Pointer capture for one scene (SPEC §5), as a state machine over a
/// `LiveScene`: like the web's `setPointerCapture`, per pointer id, so two
/// fingers can hold two layers at once. Time comes from the caller.
///
/// Not thread-safe by itself: the store applies one scene's events one at a
/// time, in arrival order.
public struct PointerSessions: Sendable {
    /// A live capture: the pointer routes to `layer` until up, cancel or expiry.
    public struct Capture: Sendable, Equatable {
        public var layer: String
        /// Scene coordinates of the pointer's previous event.
        public var last: Point
        /// Scene coordinates of the `down` that made the capture.
        public var down: Point
        /// Time of the pointer's last event, in seconds.
        public var lastActive: Double
    }

    /// The phase of a pointer event.
    public enum Phase: String, Sendable, CaseIterable {
        case down, move, up, cancel
    }

    /// What an event did.
    public struct Outcome: Sendable {
        public var result: HitResult
        /// Whether the answer was routed by a capture, or is a `down` that made one.
        public var captured: Bool
        /// Whether a drag moved a layer (the scene's version must grow).
        public var moved: Bool
        /// What routing the event read (`CompiledScene.hit(_:trace:all:work:)`).
        public var work = 0
    }

    /// Why an event was refused.
    public enum Refusal: Error, Equatable, Sendable {
        /// A `down` would hold one capture more than `maxPointers`.
        case tooManyPointers(limit: Int)
        /// Dragging `layer` this far would take a number of the scene
        /// beyond the finite range (SPEC §1); nothing changed, the capture
        /// stays as it was.
        case moveOverflows(layer: String, NumericProblem)
    }

    public private(set) var captures: [String: Capture] = [:]
    /// Captures dropped before their pointer's next event, by pointer: the
    /// layer that held it and why, until that event reports it.
    public private(set) var dropped: [String: (layer: String, why: TraceDetail.DropReason)] = [:]
    /// Live captures allowed at once.
    public var maxPointers: Int
    /// Seconds without an event after which a capture expires.
    public var idleTimeout: Double

    public init(maxPointers: Int = 64, idleTimeout: Double = 30) {
        self.maxPointers = maxPointers
        self.idleTimeout = idleTimeout
    }

    /// Captures not idle for longer than `idleTimeout` at time `now`.
    /// - Complexity: O(captures).
    public func liveCaptureCount(now: Double) -> Int {
        captures.values.reduce(0) { $0 + (now - $1.lastActive <= idleTimeout ? 1 : 0) }
    }

    /// Forgets captures idle for longer than `idleTimeout` at time `now`.
    public mutating func expire(now: Double) {
        captures = captures.filter { now - $0.value.lastActive <= idleTimeout }
    }

    /// Drops every capture whose layer is not in `scene` (after a replace or
    /// an update), remembering it so that the pointer's next event says so.
    public mutating func dropCaptures(missingFrom scene: CompiledScene) {
        for (pointer, capture) in captures where scene.indexByID[capture.layer] == nil {
            captures[pointer] = nil
            if dropped.count < maxPointers { dropped[pointer] = (capture.layer, .layerRemoved) }
        }
    }

    /// Drops every capture (the scene was replaced), remembering each so
    /// that its pointer's next event says so.
    public mutating func dropAllCaptures() {
        for (pointer, capture) in captures where dropped.count < maxPointers { dropped[pointer] = (capture.layer, .sceneReplaced) }
        captures.removeAll()
    }

    /// Remembers that `pointer`'s capture by `layer` was dropped elsewhere
    /// (another replica held it), so that its next event says so; replaces
    /// any live capture of that pointer here.
    public mutating func noteDropped(pointer: String, layer: String, why: TraceDetail.DropReason) {
        captures[pointer] = nil
        if dropped[pointer] != nil || dropped.count < maxPointers { dropped[pointer] = (layer, why) }
    }

    /// Applies one event at `point` (scene coordinates).
    ///
    /// - `down`: an ordinary hit; a hit layer captures the pointer (replacing
    ///   its earlier capture), a miss releases it.
    /// - `move`: a captured pointer routes to its layer whatever the point,
    ///   with one `captured` trace entry; else an ordinary hit.
    /// - `up`, `cancel`: like `move`, then the capture is released.
    ///
    /// A draggable capturing layer follows `move` and `up`: its translation
    /// grows by the pointer's movement since its previous event, converted
    /// into the parent's coordinates. `local` is taken after the move.
    public mutating func apply(
        pointer: String, phase: Phase, at point: Point, to scene: inout LiveScene,
        trace: Bool, all: Bool, now: Double
    ) throws(Refusal) -> Outcome {
        expire(now: now)
        var notes: [TraceEntry] = []
        if let (layer, why) = dropped.removeValue(forKey: pointer), trace {
            notes.append(TraceEntry(
                layer: -1, decision: .skip, reason: .captured,
                detail: .captureDropped(pointer: pointer, layer: layer, why: why), local: nil))
        }
        let compiled = scene.compiled
        var work = 0
        guard phase != .down, var capture = captures[pointer],
            let layer = compiled.indexByID[capture.layer].map(Int.init)
        else {
            var result = compiled.hit(point, trace: trace, all: all, work: &work)
            result.trace = notes + result.trace
            guard phase == .down, let target = result.target else {
                captures[pointer] = nil
                return Outcome(result: result, captured: false, moved: false, work: work)
            }
            if captures[pointer] == nil && captures.count >= maxPointers {
                throw .tooManyPointers(limit: maxPointers)
            }
            captures[pointer] = Capture(layer: compiled.ids[target], last: point, down: point, lastActive: now)
            return Outcome(result: result, captured: true, moved: false, work: work)
        }
        var moved = false
        if phase != .cancel && compiled.isDraggable(layer) && point != capture.last,
            let toParent = compiled.parentToScene(layer).inverse
        {
            let delta = toParent.applyLinear(point - capture.last)
            if let problem = scene.numericProblem(translatingLayer: layer, by: delta, work: &work) {
                throw .moveOverflows(layer: compiled.ids[layer], problem)
            }
            work &+= scene.translateLayer(layer, by: delta)
            moved = true
        }
        capture.last = point
        capture.lastActive = now
        captures[pointer] = phase == .move ? capture : nil
        // An image beyond the finite range is no point at all (SPEC §1).
        let local = scene.compiled.sceneToLocal(layer)?.apply(point).finiteOrNil
        if trace {
            notes.append(TraceEntry(
                layer: layer, decision: .captured, reason: .captured,
                detail: .capturedBy(pointer: pointer, down: capture.down), local: local))
        }
        let stack = all ? scene.compiled.hit(point, all: true, work: &work).stack : nil
        return Outcome(
            result: HitResult(target: layer, local: local, trace: notes, stack: stack), captured: true, moved: moved, work: work)
    }
}

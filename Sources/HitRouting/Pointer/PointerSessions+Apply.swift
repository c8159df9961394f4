extension PointerSessions {
    /// Applies one event of `pointer` at `point` (scene coordinates).
    ///
    /// - `down`: an ordinary hit; a hit layer captures the pointer (replacing
    ///   its earlier capture), a miss releases it.
    /// - `move`: a captured pointer routes to its layer whatever the point,
    ///   with one `captured` trace entry; else an ordinary hit.
    /// - `up`, `cancel`: like `move`, then the capture is released.
    /// - `hover`: an ordinary hit; a capture it finds is released (no
    ///   button is pressed), without dragging.
    /// - `leave`: an ordinary hit; the capture is released and the pointer
    ///   forgotten.
    ///
    /// A draggable capturing layer follows `move` and `up`: its translation
    /// grows by the pointer's movement since its previous event, converted
    /// into the parent's coordinates. `local` is taken after the move.
    ///
    /// Afterwards the pointer is over (``Hover``): nothing after a `leave`,
    /// and for a touch that is not pressed (before its `down`, after its
    /// `up` or `cancel`); the capturing layer's path while captured; else
    /// the target's and the receivers' paths at `point` — for a mouse or pen
    /// whose `up` or `cancel` just released a capture, as routed at `point`
    /// after the drag. The outcome's ``Outcome/boundary`` compares that with
    /// what the pointer's previous answer (or push) reported.
    ///
    /// The pointer is remembered afterwards unless it left, or is a touch
    /// that is not pressed; an event that would remember one pointer more
    /// than `maxPointers` is refused before anything changes.
    ///
    /// A refused event leaves the sessions as they were (expiry included).
    /// - Complexity: one routing of `point` (two for a mouse or pen's
    ///   captured `up` or `cancel`), plus O(1) amortised for expiry
    ///   (``expire(now:)``).
    public mutating func apply(
        pointer key: PointerKey, phase: Phase, type: PointerType = .mouse, at point: Point, to scene: inout LiveScene,
        trace: Bool, all: Bool, now: Double
    ) throws(Refusal) -> Outcome {
        var edits = Edits()
        return try apply(pointer: key, phase: phase, type: type, at: point, to: &scene, trace: trace, all: all, now: now, recording: &edits)
    }

    /// `apply(pointer:phase:type:at:to:trace:all:now:)`, recording in `edits`
    /// what it changed in the sessions (nothing when it throws), so that
    /// ``revert(_:)`` can undo the event when its record fails afterwards.
    /// - Complexity: as `apply`; O(1) entries recorded, plus one per pointer
    ///   expired.
    public mutating func apply(
        pointer key: PointerKey, phase: Phase, type: PointerType = .mouse, at point: Point, to scene: inout LiveScene,
        trace: Bool, all: Bool, now: Double, recording edits: inout Edits
    ) throws(Refusal) -> Outcome {
        var mine = Edits()
        do throws(Refusal) {
            let outcome = try applying(
                pointer: key, phase: phase, type: type, at: point, to: &scene, trace: trace, all: all, now: now, recording: &mine)
            edits.append(mine)
            return outcome
        } catch {
            revert(mine)
            throw error
        }
    }

    private mutating func applying(
        pointer key: PointerKey, phase: Phase, type: PointerType, at point: Point, to scene: inout LiveScene,
        trace: Bool, all: Bool, now: Double, recording edits: inout Edits
    ) throws(Refusal) -> Outcome {
        expire(now: now, recording: &edits)
        let previous = pointers[key]
        let pressed: Bool
        switch phase {
        case .down: pressed = true
        case .move: pressed = previous?.pressed ?? false
        case .up, .cancel, .hover, .leave: pressed = false
        }
        let remembered = phase != .leave && (type.hovers || pressed)
        if remembered && previous == nil && pointers.count >= maxPointers { throw .tooManyPointers(limit: maxPointers) }

        var notes: [TraceEntry] = []
        let droppedBefore = dropped.removeValue(forKey: key)
        if droppedBefore != nil { edits.dropped.append((key, droppedBefore)) }
        if let (layer, why) = droppedBefore, trace {
            notes.append(
                TraceEntry(
                    layer: -1, decision: .skip, reason: .captured,
                    detail: .captureDropped(pointer: key.id, layer: layer, why: why), local: nil))
        }
        var state = previous ?? Pointer(capture: nil, type: type, pressed: false, last: point, lastActive: now, reported: .nothing)
        // No button is pressed: a capture the pointer still holds is let go.
        if phase == .hover || phase == .leave { state.capture = nil }
        let compiled = scene.compiled
        var work = 0
        var outcome: Outcome
        if phase != .down, let capture = state.capture, let layer = compiled.indexByID[capture.layer].map(Int.init) {
            var moved = false
            if phase != .cancel && compiled.isDraggable(layer) && point != state.last {
                // A parent patched to a singular transform since the capture
                // began leaves the move no size in the parent's space: refused
                // like a move past the finite range, not silently dropped.
                guard let toParent = compiled.parentToScene(layer).inverse else {
                    throw .moveOverflows(
                        layer: compiled.ids[layer],
                        NumericProblem(
                            layerPath: [], field: [.key("transform")],
                            message: "the layer's parent transform is not invertible: the move has no finite size in its space"))
                }
                let delta = toParent.applyLinear(point - state.last)
                if let problem = scene.numericProblem(translatingLayer: layer, by: delta, work: &work) {
                    throw .moveOverflows(layer: compiled.ids[layer], problem)
                }
                work &+= scene.translateLayer(layer, by: delta)
                moved = true
            }
            if phase != .move { state.capture = nil }
            // An image beyond the finite range is no point at all (SPEC §1).
            let local = scene.compiled.sceneToLocal(layer)?.apply(point).finiteOrNil
            if trace {
                notes.append(
                    TraceEntry(
                        layer: layer, decision: .captured, reason: .captured,
                        detail: .capturedBy(pointer: key.id, down: capture.down), local: local))
            }
            let stack = all ? scene.compiled.hit(point, all: true, work: &work).stack : nil
            outcome = Outcome(
                result: HitResult(target: layer, local: local, trace: notes, stack: stack), captured: true, moved: moved)
        } else {
            var result = compiled.hit(point, trace: trace, all: all, work: &work)
            result.trace = notes + result.trace
            if phase == .down, let target = result.target {
                state.capture = Capture(layer: compiled.ids[target], down: point)
                outcome = Outcome(result: result, captured: true, moved: false)
            } else {
                state.capture = nil
                outcome = Outcome(result: result, captured: false, moved: false)
            }
        }

        let after: Hover
        if phase == .leave || !(type.hovers || pressed) {
            after = .nothing
        } else if let capture = state.capture, let n = scene.compiled.indexByID[capture.layer] {
            after = scene.compiled.hover(capturedBy: Int(n))
        } else if !outcome.captured {
            after = scene.compiled.hover(target: outcome.result.target, receivers: outcome.result.receivers)
        } else {
            // A mouse or pen whose up or cancel released the capture: what is there now.
            let there = scene.compiled.hit(point, work: &work)
            after = scene.compiled.hover(target: there.target, receivers: there.receivers)
        }
        outcome.boundary = Boundary.between(state.reported, after, in: scene.compiled)
        outcome.work = work
        state.reported = after
        state.type = type
        state.pressed = pressed
        state.last = point
        state.lastActive = now
        edits.pointers.append((key, previous))
        pointers[key] = remembered ? state : nil
        if remembered { earliestActive = min(earliestActive, now) }
        return outcome
    }
}

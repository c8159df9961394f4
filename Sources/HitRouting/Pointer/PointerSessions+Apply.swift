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

    /// `apply(pointer:phase:type:at:to:trace:all:now:recording:)` for an
    /// event that cannot drag (``Phase/mayDrag`` is false: `down`, `cancel`,
    /// `hover`, `leave`), against a scene it only reads: the same outcome,
    /// and the same changes to the sessions, without the scene being
    /// lent for change.
    /// - Precondition: `!phase.mayDrag`.
    /// - Complexity: as `apply`.
    public mutating func apply(
        pointer key: PointerKey, phase: Phase, type: PointerType = .mouse, at point: Point, in scene: borrowing CompiledScene,
        trace: Bool, all: Bool, now: Double, recording edits: inout Edits
    ) throws(Refusal) -> Outcome {
        precondition(!phase.mayDrag, "a \(phase) may drag: apply it to a LiveScene")
        var mine = Edits()
        do throws(Refusal) {
            let begun = try begin(pointer: key, phase: phase, type: type, at: point, trace: trace, now: now, recording: &mine)
            var state = begun.state
            let outcome = route(
                pointer: key, phase: phase, type: type, at: point, in: scene, previous: begun.previous, at: begun.index, state: &state,
                notes: begun.notes,
                moved: false, work: 0,
                trace: trace, all: all, now: now, recording: &mine)
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
        let begun = try begin(pointer: key, phase: phase, type: type, at: point, trace: trace, now: now, recording: &edits)
        var state = begun.state
        var work = 0
        var moved = false
        if phase.mayDrag, let capture = state.capture, let layer = scene.compiled.indexByID[capture.layer].map(Int.init),
            scene.compiled.isDraggable(layer) && point != state.last
        {
            // A parent patched to a singular transform since the capture
            // began leaves the move no size in the parent's space: refused
            // like a move past the finite range, not silently dropped.
            guard let toParent = scene.compiled.parentToScene(layer).inverse else {
                throw .moveOverflows(
                    layer: scene.compiled.ids[layer],
                    NumericProblem(
                        layerPath: [], field: [.key("transform")],
                        message: "the layer's parent transform is not invertible: the move has no finite size in its space"))
            }
            let delta = toParent.applyLinear(point - state.last)
            if let problem = scene.numericProblem(translatingLayer: layer, by: delta, work: &work) {
                throw .moveOverflows(layer: scene.compiled.ids[layer], problem)
            }
            work &+= scene.translateLayer(layer, by: delta)
            moved = true
        }
        return route(
            pointer: key, phase: phase, type: type, at: point, in: scene.compiled, previous: begun.previous, at: begun.index, state: &state,
            notes: begun.notes,
            moved: moved,
            work: work, trace: trace, all: all, now: now, recording: &edits)
    }

    /// The start of an event, before any routing: expiry, the pointer
    /// limit, a dropped capture's trace note, and the pointer's state with
    /// its capture let go for a `hover` or `leave`; also the pointer as
    /// remembered before the event and where (nil: not remembered).
    private mutating func begin(
        pointer key: PointerKey, phase: Phase, type: PointerType, at point: Point, trace: Bool, now: Double,
        recording edits: inout Edits
    ) throws(Refusal) -> (previous: Pointer?, index: [PointerKey: Pointer].Index?, state: Pointer, notes: [TraceEntry]) {
        expire(now: now, recording: &edits)
        let index = pointers.index(forKey: key)
        let previous = index.map { pointers.values[$0] }
        let pressed = Self.pressed(after: phase, previous)
        let remembered = phase != .leave && (type.hovers || pressed)
        if remembered && previous == nil && pointers.count >= maxPointers { throw .tooManyPointers(limit: maxPointers) }

        var notes: [TraceEntry] = []
        if !dropped.isEmpty, let droppedBefore = dropped.removeValue(forKey: key) {
            edits.dropped.append((key, droppedBefore))
            if trace {
                notes.append(
                    TraceEntry(
                        layer: -1, decision: .skip, reason: .captured,
                        detail: .captureDropped(pointer: key.id, layer: droppedBefore.layer, why: droppedBefore.why), local: nil))
            }
        }
        var state = previous ?? Pointer(capture: nil, type: type, pressed: false, last: point, lastActive: now, reported: .nothing)
        // No button is pressed: a capture the pointer still holds is let go.
        if phase == .hover || phase == .leave { state.capture = nil }
        return (previous, index, state, notes)
    }

    /// Whether a pointer is pressed after `phase`, given its state before.
    private static func pressed(after phase: Phase, _ previous: Pointer?) -> Bool {
        switch phase {
        case .down: return true
        case .move: return previous?.pressed ?? false
        case .up, .cancel, .hover, .leave: return false
        }
    }

    /// The rest of an event, once any drag moved the layer (`moved`,
    /// having read `work`): the routing against `scene` (after the drag),
    /// the hovered set and the boundary, and the pointer remembered or
    /// forgotten (`index`: where `previous` is in ``pointers``).
    private mutating func route(
        pointer key: PointerKey, phase: Phase, type: PointerType, at point: Point, in scene: borrowing CompiledScene,
        previous: Pointer?, at index: [PointerKey: Pointer].Index?, state: inout Pointer, notes: [TraceEntry], moved: Bool, work: Int,
        trace: Bool, all: Bool,
        now: Double, recording edits: inout Edits
    ) -> Outcome {
        let pressed = Self.pressed(after: phase, previous)
        let remembered = phase != .leave && (type.hovers || pressed)
        var work = work
        var outcome: Outcome
        if phase != .down, let capture = state.capture, let layer = scene.indexByID[capture.layer].map(Int.init) {
            if phase != .move { state.capture = nil }
            // An image beyond the finite range is no point at all (SPEC §1).
            let local = scene.sceneToLocal(layer)?.apply(point).finiteOrNil
            var notes = notes
            if trace {
                notes.append(
                    TraceEntry(
                        layer: layer, decision: .captured, reason: .captured,
                        detail: .capturedBy(pointer: key.id, down: capture.down), local: local))
            }
            let stack = all ? scene.hit(point, all: true, work: &work).stack : nil
            outcome = Outcome(
                result: HitResult(target: layer, local: local, trace: notes, stack: stack), captured: true, moved: moved)
        } else {
            var result = scene.hit(point, trace: trace, all: all, work: &work)
            if !notes.isEmpty { result.trace = notes + result.trace }
            if phase == .down, let target = result.target {
                state.capture = Capture(layer: scene.ids[target], down: point)
                outcome = Outcome(result: result, captured: true, moved: false)
            } else {
                state.capture = nil
                outcome = Outcome(result: result, captured: false, moved: false)
            }
        }

        let after: Hover
        if phase == .leave || !(type.hovers || pressed) {
            after = .nothing
        } else if let capture = state.capture, let n = scene.indexByID[capture.layer] {
            after = scene.hover(capturedBy: Int(n))
        } else if !outcome.captured {
            after = scene.hover(target: outcome.result.target, receivers: outcome.result.receivers)
        } else {
            // A mouse or pen whose up or cancel released the capture: what is there now.
            let there = scene.hit(point, work: &work)
            after = scene.hover(target: there.target, receivers: there.receivers)
        }
        outcome.boundary = Boundary.between(state.reported, after, in: scene)
        outcome.work = work
        state.reported = after
        state.type = type
        state.pressed = pressed
        state.last = point
        state.lastActive = now
        edits.pointers.append((key, previous))
        // `index` (where `previous` is) still holds: nothing changed `pointers` since.
        switch (remembered, index) {
        case (true, let i?): pointers.values[i] = state
        case (true, nil): pointers[key] = state
        case (false, let i?): pointers.remove(at: i)
        case (false, nil): break
        }
        if remembered { earliestActive = min(earliestActive, now) }
        return outcome
    }
}

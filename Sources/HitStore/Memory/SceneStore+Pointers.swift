import HitRouting

/// Pointer events (captures, drags) on the memory store.
extension SceneStore {
    public func pointerEvent(_ id: String, _ event: PointerEvent) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
        try logged { (ticket) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) in
            try pointerEvent(id, event, ticket: &ticket)
        }
    }

    /// Applies one pointer event to scene `id` (SPEC §5), in arrival order
    /// with the scene's other events.
    /// - Returns: the outcome and the snapshot it was answered from (a drag
    ///   publishes the next version first).
    public func pointerEvent(
        _ id: String, pointer: PointerKey, phase: PointerSessions.Phase, type: PointerType = .mouse, at point: Point, trace: Bool, all: Bool
    ) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
        var ticket = LogTicket(log: nil)
        return try pointerEvent(
            id, PointerEvent(pointer: pointer, phase: phase, type: type, point: point, trace: trace, all: all), ticket: &ticket)
    }

    func pointerEvent(
        _ id: String, _ event: PointerEvent, ticket: inout LogTicket
    ) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
        let (pointer, phase) = (event.pointer, event.phase)
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw StoreError.notFound("no scene \"\(id)\"") }
        let now = clock()
        let limits = self.limits
        return try entry.state.withLock { (state) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) in
            if state.removed { throw StoreError.notFound("no scene \"\(id)\"") }
            // The sessions move out of the state for the event, so that they
            // are uniquely referenced and change in place (O(1), not a copy
            // of every pointer); a refused event changes nothing, and one
            // whose record fails reverts the entries it changed.
            var sessions = PointerSessions(maxPointers: state.sessions.maxPointers, idleTimeout: state.sessions.idleTimeout)
            swap(&sessions, &state.sessions)
            defer { swap(&sessions, &state.sessions) }
            var edits = PointerSessions.Edits()
            if !phase.mayDrag {
                // Nothing can move: route against the current snapshot as
                // it is, which keeps its version (and what was noted of
                // its cost), with nothing to record.
                let snapshot = state.snapshot
                let applied = snapshot.withCompiled { scene in
                    Result { () throws(PointerSessions.Refusal) in
                        try sessions.apply(
                            pointer: pointer, phase: phase, type: event.type, at: event.point, in: scene,
                            trace: event.trace, all: event.all, now: now, recording: &edits)
                    }
                }
                switch applied {
                case .success(let outcome): return (outcome, snapshot)
                case .failure(let refusal):
                    throw StoreError.pointerRefused(
                        refusal, scene: id, maxPointers: limits.maxPointers, captureTimeout: limits.captureTimeout)
                }
            }
            var outcome: PointerSessions.Outcome?
            do throws(StoreError) {
                try state.changeInPlace { (live, version) throws(StoreError) -> Bool in
                    // The layer a move or up may drag, as it is: a drag moves it
                    // before its record is written, and a refused record must
                    // leave it where it was (the version does not grow).
                    let held =
                        sessions.capture(of: pointer).flatMap { live.compiled.indexByID[$0.layer] }.map(Int.init)
                    let before = held.map { live.model.layer(at: live.compiled.modelPath(of: $0)) }
                    do throws(PointerSessions.Refusal) {
                        outcome = try sessions.apply(
                            pointer: pointer, phase: phase, type: event.type, at: event.point, to: &live,
                            trace: event.trace, all: event.all, now: now, recording: &edits)
                    } catch {
                        throw StoreError.pointerRefused(
                            error, scene: id, maxPointers: limits.maxPointers, captureTimeout: limits.captureTimeout)
                    }
                    if outcome!.moved, let n = outcome!.result.target {
                        let moved = live.model.layer(at: live.compiled.modelPath(of: n)).transform.translation
                        do throws(StoreError) {
                            try ticket.append(
                                .drag(
                                    id: id, version: try SceneStore.version(after: version), layer: live.compiled.ids[n], translation: moved
                                ))
                        } catch {
                            if let held, held == n, let before { live.replaceLayer(n, with: before) }
                            throw error
                        }
                    }
                    return outcome!.moved  // `!`: set, since apply did not throw
                }
            } catch {
                sessions.revert(edits)
                throw error
            }
            return (outcome!, state.snapshot)
        }
    }

    // MARK: - Pointers that outlive one event (a stream's): pushes after a change, and release when it closes

    public func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])? {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { return nil }
        let now = clock()
        return entry.state.withLock { state in
            if state.removed { return nil }
            let changes = state.sessions.refresh(namespace: namespace, in: state.snapshot.compiled, now: now)
            return (state.snapshot, changes)
        }
    }

    public func forgetPointers(_ id: String, namespace: UInt64) {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { return }
        entry.state.withLock { $0.sessions.forget(namespace: namespace) }
    }
}

import HitRouting

/// Pointers that outlive one event (SPEC §11.1, §11.2): pushes after a
/// change, and a stream's pointers let go when it closes.
extension SceneStore {
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

import HitRouting

/// Pointers that outlive one event (SPEC §11.1, §11.2), on this replica:
/// a stream's pointers live where the stream is, so only the scene cached
/// here is refreshed, with nothing asked of Redis.
extension RedisSceneStore {
    public func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])? {
        guard let entry = cache.peek(id) else { return nil }
        let now = clock()
        return entry.state.withLock { state in
            (state.snapshot, state.sessions.refresh(namespace: namespace, in: state.snapshot.compiled, now: now))
        }
    }

    public func forgetPointers(_ id: String, namespace: UInt64) {
        cache.peek(id)?.state.withLock { $0.sessions.forget(namespace: namespace) }
    }
}

import Dispatch
import RESP
import RESPClient

/// How a replica's cache follows Redis: announcements and revalidation.
extension RedisSceneStore {
    /// An announced change: a deleted scene leaves the cache; a cached
    /// scene at another version is refreshed off the caller's thread (the
    /// subscriber's), coalesced per scene. Scenes this replica does not
    /// hold are not loaded. The observer (``observeChanges(_:)``) hears of
    /// a delete at once, of a cached scene's change once its refresh has
    /// installed it (``refreshLocked(_:_:dropAllCaptures:)``), and of a
    /// change to a scene not held here at once (whoever watches it there
    /// reads it from Redis).
    func announced(_ a: Announcement) {
        if a.kind == .delete {
            cache.remove(a.id)
            notify(.deleted(a.id))
            return
        }
        guard let entry = cache.peek(a.id) else {
            notify(.changed(a.id))
            return
        }
        guard entry.snapshot.version != a.version else { return }  // this replica's own write, or already fetched
        scheduleRefresh(a.id, entry, dropAllCaptures: a.kind == .put)
    }

    /// After the subscription is (re)established: every cached scene's
    /// version is asked in one pipeline, and each that differs is refreshed
    /// (with its captures dropped: what changed meanwhile is unknown, maybe
    /// a replacement), each that is gone leaves the cache.
    func revalidate() {
        client.endBackoff()  // the subscription is back, so is the server
        _ = try? client.send("PING")
        let held = cache.all()
        guard !held.isEmpty else { return }
        let replies: [RESPValue]
        do {
            replies = try client.pipeline(held.map { [Array("GET".utf8), keys.version($0.id)] })
        } catch {
            return  // the subscriber will reconnect, and call again
        }
        for ((id, entry), reply) in zip(held, replies) {
            guard let v = reply.int else {
                if reply == .bulk(nil) {
                    cache.remove(id)
                    notify(.deleted(id))
                }
                continue
            }
            if v != entry.snapshot.version { scheduleRefresh(id, entry, dropAllCaptures: true) }
        }
    }

    /// Queues a refresh of `entry` unless one is queued; a replacement
    /// (`dropAllCaptures`) announced while one waits makes that one drop
    /// every capture too.
    func scheduleRefresh(_ id: String, _ entry: CachedScene, dropAllCaptures: Bool) {
        if dropAllCaptures { entry.refreshDropsCaptures.store(true, ordering: .releasing) }
        guard !entry.refreshQueued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        refreshQueue.async { [self] in
            entry.refreshQueued.store(false, ordering: .releasing)
            let drop = entry.refreshDropsCaptures.exchange(false, ordering: .acquiringAndReleasing)
            entry.writer.withLock { _ in
                _ = try? refreshLocked(id, entry, dropAllCaptures: drop)
            }
        }
    }
}

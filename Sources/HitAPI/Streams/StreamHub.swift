import HTTPServer
import HitStore
import Synchronization

/// The open pointer streams by scene, for pushes (SPEC §11.2): a change to
/// a scene, from any thread, wakes each stream of that scene on its own
/// event loop (through ``WebSocketStreamHandle``, the loop's eventfd),
/// where the stream reads the scene's version and pushes what changed.
/// Changes come from this process's handlers (``sceneChanged(_:)``,
/// ``sceneDeleted(_:)``) and from the store, for those it follows from
/// another replica (``observe(_:)``, installed by `Application`).
///
/// A stream has at most one push waiting: changes that come while one
/// waits are read by it (a batch of 1,000 drags wakes each stream once or
/// a few times, not 1,000).
final class StreamHub: Sendable {
    /// One stream as the hub knows it.
    final class Entry: Sendable {
        let handle: WebSocketStreamHandle
        /// A push is posted and not yet run.
        let pushQueued = Atomic<Bool>(false)
        /// The scene was deleted (set before the push is posted, never cleared).
        let deleted = Atomic<Bool>(false)
        init(_ handle: WebSocketStreamHandle) { self.handle = handle }
    }

    private let byScene = Mutex<[String: [ObjectIdentifier: Entry]]>([:])
    /// Namespaces for streams' pointers: 1, 2, ... (0 is HTTP's).
    private let nextNamespace = Atomic<UInt64>(1)
    /// Pushes sent, and moves and hovers coalesced away (for /metrics).
    let pushes = Atomic<Int>(0)
    let coalesced = Atomic<Int>(0)

    /// A pointer namespace no other stream has had.
    func newNamespace() -> UInt64 { nextNamespace.wrappingAdd(1, ordering: .relaxed).oldValue }

    func add(_ entry: Entry, scene id: String) {
        byScene.withLock { $0[id, default: [:]][ObjectIdentifier(entry)] = entry }
    }

    func remove(_ entry: Entry, scene id: String) {
        byScene.withLock { all in
            all[id]?[ObjectIdentifier(entry)] = nil
            if all[id]?.isEmpty == true { all[id] = nil }
        }
    }

    /// Scene `id` may have a new version (or be gone): each of its streams
    /// checks, on its loop. Cheap when the scene has no stream (one lock,
    /// one lookup).
    /// - Complexity: O(streams of the scene) posts, fewer while pushes wait.
    func sceneChanged(_ id: String) { wake(id, deleted: false) }

    /// Scene `id` was deleted: each of its streams pushes so and closes
    /// with 4404, whatever the store still holds.
    func sceneDeleted(_ id: String) { wake(id, deleted: true) }

    /// A change the store followed from elsewhere (``SceneStoring/observeChanges(_:)``).
    func observe(_ change: SceneChange) {
        switch change {
        case .changed(let id): sceneChanged(id)
        case .deleted(let id): sceneDeleted(id)
        }
    }

    private func wake(_ id: String, deleted: Bool) {
        let entries = byScene.withLock { $0[id].map { Array($0.values) } ?? [] }
        for entry in entries {
            if deleted { entry.deleted.store(true, ordering: .releasing) }
            guard !entry.pushQueued.exchange(true, ordering: .acquiringAndReleasing) else { continue }
            entry.handle.execute { stream in
                entry.pushQueued.store(false, ordering: .releasing)
                (stream.session as? StreamSession)?.sceneMayHaveChanged(on: stream, deleted: entry.deleted.load(ordering: .acquiring))
            }
        }
    }

    /// Open streams by the hub's count (the server counts them too).
    var count: Int { byScene.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}

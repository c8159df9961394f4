import Dispatch
import HitBase
import HitJSON
import HitRouting
import RESP
import RESPClient
import SceneCodec
import Synchronization

/// The Redis backend of `SceneStoring` (`--store redis://…`, SPEC §10):
/// every scene lives in Redis; this replica answers hits from its own
/// cache of compiled scenes (``SceneCache``) without a round trip.
///
/// Consistency, as promised:
/// - Writes are ordered by Redis: each is one run of ``RedisWriteScript``
///   that bumps `version` exactly once and publishes the change. A patch or
///   drag is read-modify-write in the replica (merge patch applied to the
///   cached scene, the whole document written back) with a version check
///   in the script; on a mismatch the replica refetches and applies again,
///   so concurrent patches from any number of replicas all land, each
///   counted once.
/// - A replica's own write is visible to its next request at once (it
///   installs what it wrote). Another replica follows when the announcement
///   reaches it and its refresh compiles (eventual; measured by the tests
///   and benchmarks); `X-Min-Version: N` makes it fetch first when its copy
///   is older.
/// - While Redis is unreachable: hits on cached scenes go on (possibly
///   stale); writes and misses are 503 `/problems/store-unavailable`;
///   `/readyz` is 503. After the subscription is back every cached scene is
///   revalidated against Redis (announcements sent meanwhile are lost).
public final class RedisSceneStore: SceneStoring {
    public let client: RedisClient
    let keys: RedisKeys
    let cache: SceneCache
    let limits: SceneStore.Limits
    let sceneLimits: SceneLimits
    /// `SSCAN`'s `COUNT` when a listing reads the index: an eighth of the
    /// reply element cap (Redis may return a few times `COUNT`, and a set
    /// small enough to be an intset, up to 512 members, whole), at most
    /// 1,000 (RedisSceneStore+List.swift).
    let listPage: Int
    let clock: @Sendable () -> Double
    let scriptSHA = Mutex<String?>(nil)
    /// Compile times of this replica's uploads (create and replace).
    public let compileTimes = CompileTimes()
    /// Loads in progress after cache misses, one per scene id.
    let loads = SingleFlight<CachedScene?>()
    /// Scenes fetched from Redis into the cache after a miss, since the start.
    let loaded = Atomic<Int>(0)
    private let subscriberBox = Mutex<RedisSubscriber?>(nil)
    /// Told of changes this replica follows from Redis (``observeChanges(_:)``).
    let changeObserver = Mutex<(@Sendable (SceneChange) -> Void)?>(nil)
    /// Where refreshes after announcements run (compiling off the loops).
    let refreshQueue = DispatchQueue(label: "hitroute.redis.refresh", qos: .utility, attributes: .concurrent)
    /// This replica's name in ``RedisKeys/pointers(_:)``: random per store
    /// (per process in production), so a new process is another replica.
    public let replicaID = String(UInt64.random(in: .min ... .max), radix: 16)
    /// Where records of which replica holds a capture are sent, in order.
    let captureQueue = DispatchQueue(label: "hitroute.redis.captures", qos: .utility)
    /// Attempts of a patch or drag against concurrent writers before 409.
    static let maxAttempts = 1_000

    public init(
        _ endpoint: RedisEndpoint, cacheBytes: Int, limits: SceneStore.Limits = SceneStore.Limits(),
        sceneLimits: SceneLimits = SceneLimits(), maxBulkBytes: Int = 512 << 20, maxReplyElements: Int = 1 << 20,
        timeout: Double = 2, prefix: String = "hitroute", clock: @escaping @Sendable () -> Double = MonotonicClock.seconds
    ) {
        client = RedisClient(endpoint, timeout: timeout, maxBulkBytes: maxBulkBytes, maxElements: maxReplyElements)
        listPage = max(1, min(1_000, maxReplyElements / 8))
        keys = RedisKeys(prefix: prefix)
        cache = SceneCache(capacity: cacheBytes)
        self.limits = limits
        self.sceneLimits = sceneLimits
        self.clock = clock
        let subscriber = RedisSubscriber(
            endpoint, channels: [keys.channel], timeout: timeout,
            onConnect: { [weak self] in self?.revalidate() }, statistics: client.statistics
        ) { [weak self] _, payload in
            guard let self, let a = Announcement(payload) else { return }
            self.announced(a)
        }
        subscriberBox.withLock { $0 = subscriber }
        subscriber.start()
        // After a failed exchange, health (which never waits on Redis) is
        // healed by this check, not by traffic.
        client.startHealthCheck(every: 0.5)
    }

    /// Nothing to load: the subscriber started with the store.
    public func start() {}

    /// Stops the subscriber and health-check threads and closes idle connections.
    public func close() {
        subscriberBox.withLock { $0?.stop() }
        client.stopHealthCheck()
        client.closeIdle()
    }

    deinit { close() }

    /// Shared by replicas: a scene this replica does not hold is fetched
    /// (a read may block), every write is a round trip, and a copy may be
    /// behind (`X-Min-Version` fetches).
    public var capabilities: StoreCapabilities {
        StoreCapabilities(
            backend: "redis", readsMayBlock: true, writesMayBlock: true, shared: true, honoursMinVersion: true,
            keepsSubmittedJSON: false)
    }

    public var location: String { "Redis at \(client.endpoint), cache \(cache.capacity) bytes" }

    /// The cached snapshot of `id`, without a round trip.
    public func residentSnapshot(_ id: String) -> SceneSnapshot? { cache.resident(id) ?? cache.lookup(id)?.republished }

    public func health() -> StoreHealth {
        let subscribed = subscriberBox.withLock { $0?.isSubscribed ?? false }
        if !subscribed || !client.isHealthy {
            let why = client.lastError.map { ": \($0.message)" } ?? ""
            return .unavailable("Redis at \(client.endpoint) is unreachable\(why)")
        }
        return .ready
    }

    /// Bytes and scenes in this replica's cache.
    public var cacheUsage: (bytes: Int, scenes: Int) { cache.usage }

    /// Whether scene `id` is in this replica's cache (a hit needs no round trip).
    public func isCached(_ id: String) -> Bool { cache.peek(id) != nil }

    // MARK: - Reading

    @inline(__always)
    public func snapshot(_ id: String) throws(StoreError) -> SceneSnapshot? {
        if let resident = cache.resident(id) { return resident }
        if let cached = cache.lookup(id) { return cached.republished }
        return try load(id)?.snapshot
    }

    /// The snapshot of `id` at `minVersion` or later: fetched from Redis
    /// first when the cached copy is older (`X-Min-Version`).
    public func snapshot(_ id: String, minVersion: Int) throws(StoreError) -> SceneSnapshot? {
        guard let cached = cache.lookup(id) else { return try load(id)?.snapshot }
        let s = cached.snapshot
        if s.version >= minVersion { return s }
        // The writer is held across round trips (a patch, a refresh): this waits.
        return try cached.writer.withLock { (_) throws(StoreError) -> SceneSnapshot? in
            try refreshLocked(id, cached, dropAllCaptures: false) ? cached.snapshot : nil
        }
    }

    // MARK: - Writing

    public func create(_ upload: SceneUpload) throws(StoreError) -> SceneSnapshot {
        var scene = upload.scene
        let given = scene.id
        for _ in 0..<100 {
            let id: String
            if let given {
                id = given
            } else {
                let n = try call { () throws(RedisError) in try client.send([Array("INCR".utf8), keys.nextID]) }
                guard let n = n.int else { throw StoreError.unavailable("INCR \(keys.nextID): \(n.errorMessage ?? "no integer")") }
                id = "scene-\(n)"
            }
            scene.id = id
            let (live, doc, weight) = try prepare(scene, id: id)
            let r = try write(.create, id: id, doc: doc, live: live, kind: .create)
            if r == -1 {
                if given == nil { continue }  // a generated id someone took: the next one
                throw StoreError.conflict("a scene with id \"\(id)\" exists; PUT /scenes/\(id) replaces it")
            }
            try checkFull(r)
            return install(id, live, version: r, weight: weight)
        }
        throw StoreError.conflict("no free generated scene id after 100 tries; give the scene an id")
    }

    /// Creates or replaces scene `id`. A replacement of a scene this
    /// replica holds keeps its pointers, as the memory store does: every
    /// capture is dropped (each pointer's next event says so) and what each
    /// pointer is over is kept, so its next answer (or a stream's push)
    /// reports the change, `removed` included. The entry's writer is held
    /// across the write, so no pointer event of this replica lands between.
    public func put(_ upload: SceneUpload, id: String) throws(StoreError) -> (SceneSnapshot, created: Bool) {
        var scene = upload.scene
        scene.id = id
        let (live, doc, weight) = try prepare(scene, id: id)
        if let entry = cache.peek(id) {
            return try entry.writer.withLock { (_) throws(StoreError) -> (SceneSnapshot, created: Bool) in
                let r = try write(.put, id: id, doc: doc, live: live, kind: .put)
                try checkFull(r)
                // Created: Redis had none (deleted elsewhere, not yet heard), so no pointer carries over.
                if r == 1 { return (install(id, live, version: r, weight: weight), true) }
                let snapshot = SceneSnapshot(id: id, version: r, live: live)
                entry.state.withLock { s in
                    s.snapshot = snapshot
                    s.sessions.dropAllCaptures()
                }
                cache.insert(id, entry, weight: weight)  // also when it was evicted meanwhile
                return (snapshot, false)
            }
        }
        let r = try write(.put, id: id, doc: doc, live: live, kind: .put)
        try checkFull(r)
        // Not held here: no pointer of this replica is on it.
        return (install(id, live, version: r, weight: weight), r == 1)
    }

    /// An upload made ready to write: compiled (422 if a derived number
    /// overflows), its document, and its weight (507 past the cache).
    private func prepare(_ scene: Scene, id: String) throws(StoreError) -> (LiveScene, doc: [UInt8], weight: Int) {
        let live = compileTimes.compile(scene)
        if let problem = live.compiled.numericProblem { throw StoreError.notFinite(problem, inPatch: false) }
        let doc = RedisSceneStore.document(scene, id: id)
        let weight = RedisSceneStore.weight(doc, scene)
        try checkWeight(weight, of: id)
        return (live, doc, weight)
    }

    /// Caches a written upload as a fresh entry (no captures) and returns its snapshot.
    private func install(_ id: String, _ live: LiveScene, version: Int, weight: Int) -> SceneSnapshot {
        let snapshot = SceneSnapshot(id: id, version: version, live: live)
        cache.insert(id, CachedScene(snapshot: snapshot, sessions: newSessions()), weight: weight)
        return snapshot
    }

    public func delete(_ id: String) throws(StoreError) -> Bool {
        let r = try write(.delete, id: id, doc: [], kind: .delete)
        cache.remove(id)
        forgetAllCaptures(id)
        return r == 1
    }

    public func patch(_ id: String, _ patch: LayerPatch) throws(StoreError) -> (SceneSnapshot, Layer) {
        guard let entry = try cachedOrLoaded(id) else { throw StoreError.notFound("no scene \"\(id)\"") }
        return try entry.writer.withLock { (_) throws(StoreError) -> (SceneSnapshot, Layer) in
            var fresh = false
            for _ in 0..<RedisSceneStore.maxAttempts {
                let before = entry.snapshot
                var live = before.live
                let patched: Layer
                var weightChange = LayerPatch.WeightChange(json: 0, masks: 0)
                do throws(StoreError) {
                    patched = try patch.apply(to: &live, version: before.version, sceneID: id) { (change) throws(StoreError) in
                        weightChange = change
                    }.layer
                } catch  where !fresh && error.isNotFoundOrPrecondition {
                    // Judged against a copy that may be old: judge again against Redis's.
                    guard try refreshLocked(id, entry, dropAllCaptures: false) else { throw StoreError.notFound("no scene \"\(id)\"") }
                    fresh = true
                    continue
                }
                if let done = try commit(id, entry, live, expected: before.version, kind: .patch, patch: (patch, weightChange)) {
                    return (done, patched)
                }
                guard try refreshLocked(id, entry, dropAllCaptures: false) else { throw StoreError.notFound("no scene \"\(id)\"") }
                fresh = true
            }
            throw StoreError.conflict("scene \"\(id)\" changed under \(RedisSceneStore.maxAttempts) attempts at this patch; send it again")
        }
    }

    public func pointerEvent(_ id: String, _ event: PointerEvent) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
        guard let entry = try cachedOrLoaded(id) else { throw StoreError.notFound("no scene \"\(id)\"") }
        let now = clock()
        let limits = self.limits
        // A pointer this replica holds nothing for may have been captured by
        // another replica, now gone (SPEC §10): say so, as after a PUT. (A
        // hover or leave routes by no capture: it asks nothing.)
        var lostLayer: String?
        if [.move, .up, .cancel].contains(event.phase), event.pointer.namespace == PointerKey.http {
            let holds = entry.state.withLock { $0.sessions.capture(of: event.pointer) != nil || $0.sessions.dropped[event.pointer] != nil }
            if !holds { lostLayer = try captureHeldElsewhere(id, pointer: event.pointer.id) }
        }
        return try entry.writer.withLock { (_) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) in
            for _ in 0..<RedisSceneStore.maxAttempts {
                // The event applies to the sessions in place, under the
                // state's lock (O(1), not a copy of every pointer): a refused
                // event reverts itself; a drag's changes are reverted at once
                // and redone by its commit, so that nothing shows them before
                // Redis holds the version they belong to.
                let (before, live, outcome, redo, hadCapture, capture) = try entry.state.withLock {
                    (s) throws(StoreError) -> (
                        SceneSnapshot, LiveScene, PointerSessions.Outcome, PointerSessions.Edits, Bool, PointerSessions.Capture?
                    ) in
                    let before = s.snapshot
                    let hadCapture = s.sessions.capture(of: event.pointer) != nil
                    var edits = PointerSessions.Edits()
                    if let lostLayer, !hadCapture {
                        s.sessions.noteDropped(pointer: event.pointer, layer: lostLayer, why: .replicaLost, recording: &edits)
                    }
                    var live = before.live
                    let outcome: PointerSessions.Outcome
                    do throws(PointerSessions.Refusal) {
                        outcome = try s.sessions.apply(
                            pointer: event.pointer, phase: event.phase, type: event.type, at: event.point, to: &live,
                            trace: event.trace, all: event.all, now: now, recording: &edits)
                    } catch {
                        s.sessions.revert(edits)
                        throw StoreError.pointerRefused(
                            error, scene: id, maxPointers: limits.maxPointers, captureTimeout: limits.captureTimeout)
                    }
                    let capture = s.sessions.capture(of: event.pointer)
                    let redo = outcome.moved ? s.sessions.revert(edits) : PointerSessions.Edits()
                    return (before, live, outcome, redo, hadCapture, capture)
                }
                if !outcome.moved {
                    bookkeep(id, event, hadCapture: hadCapture, capture: capture)
                    return (outcome, before)
                }
                // A drag is a change like a patch: through Redis, checked against the version it moved.
                if let done = try commit(id, entry, live, expected: before.version, kind: .drag, redo: redo) {
                    bookkeep(id, event, hadCapture: hadCapture, capture: capture)
                    return (outcome, done)
                }
                guard try refreshLocked(id, entry, dropAllCaptures: false) else { throw StoreError.notFound("no scene \"\(id)\"") }
            }
            throw StoreError.conflict("scene \"\(id)\" changed under \(RedisSceneStore.maxAttempts) attempts at this drag")
        }
    }

    // MARK: - Helpers

    /// Writes `live` as the version after `expected`; installs it and
    /// returns its snapshot, or nil when Redis holds another version.
    private func commit(
        _ id: String, _ entry: CachedScene, _ live: LiveScene, expected: Int, kind: Announcement.Kind,
        redo: PointerSessions.Edits? = nil, patch: (LayerPatch, change: LayerPatch.WeightChange)? = nil
    ) throws(StoreError) -> SceneSnapshot? {
        let doc = RedisSceneStore.document(live.model, id: id)  // O(scene): the whole document goes to Redis
        let weight = RedisSceneStore.weight(doc, live.model)
        // A patch that grows the scene past what one replica may hold (507),
        // or its JSON past what an upload may carry (413), writes nothing.
        if let (patch, change) = patch {
            try patch.checkSceneSize(doc.count, growth: change.json)
            if change.total > 0 { try checkWeight(weight, of: id) }
        }
        let r = try write(.cas, id: id, expected: expected, doc: doc, live: live, kind: kind)
        if r == -3 {
            cache.remove(id)
            throw StoreError.notFound("no scene \"\(id)\"")
        }
        guard r > 0 else { return nil }
        let snapshot = SceneSnapshot(id: id, version: r, live: live)
        entry.state.withLock { s in
            s.snapshot = snapshot
            if let redo { s.sessions.revert(redo) }
            s.sessions.dropCaptures(missingFrom: snapshot.compiled)
        }
        cache.reweigh(id, entry, weight: weight)
        return snapshot
    }

    func cachedOrLoaded(_ id: String) throws(StoreError) -> CachedScene? {
        if let cached = cache.lookup(id) { return cached }
        return try load(id)
    }

    /// Fetches scene `id` and caches it; nil when Redis has none. Misses
    /// of one id at once share one fetch (``SingleFlight``).
    func load(_ id: String) throws(StoreError) -> CachedScene? {
        return try loads.run(id) { () throws(StoreError) -> CachedScene? in
            if let cached = cache.peek(id) { return cached }  // loaded while this caller looked
            guard let (snapshot, weight) = try fetch(id) else { return nil }
            loaded.add(1, ordering: .relaxed)
            return cache.insertIfAbsent(id, CachedScene(snapshot: snapshot, sessions: newSessions()), weight: weight)
        }
    }

    /// The scene as Redis holds it now, compiled; nil when there is none.
    /// With `version`: first the version alone (a `GET` of a few bytes);
    /// `nil` (no fetch) when Redis holds that version, else the document.
    func fetch(_ id: String, unless version: Int? = nil) throws(StoreError) -> (SceneSnapshot, weight: Int)?? {
        if let version {
            // The version alone first: a current copy costs a few bytes, not the document.
            let v = try call { () throws(RedisError) in try client.send([Array("GET".utf8), keys.version(id)]) }
            if case .bulk(nil) = v { return .some(nil) }  // gone
            if v.int == version { return nil }
        }
        let reply = try call { () throws(RedisError) in try client.send([Array("MGET".utf8), keys.doc(id), keys.version(id)]) }
        guard let parts = reply.elements, parts.count == 2 else {
            throw StoreError.unavailable("MGET of scene \"\(id)\": \(reply.errorMessage ?? "unexpected reply")")
        }
        guard let doc = parts[0].bytes, let v = parts[1].int else { return .some(nil) }
        if let version, version == v { return nil }
        let scene: Scene
        do throws(DecodeFailure) {
            scene = try doc.withUnsafeBufferPointer { (b) throws(DecodeFailure) -> Scene in try SceneDecoder.decode(b, limits: sceneLimits)
            }
        } catch {
            throw StoreError.unavailable("scene \"\(id)\" in Redis does not decode within this replica's limits: \(error)")
        }
        // What an upload is refused for (422), a document another writer put
        // in Redis must not bring in: a non-finite bound would reach answers.
        let live = LiveScene(scene)
        if let problem = live.compiled.numericProblem, let issue = StoreError.notFinite(problem, inPatch: false).issues.first {
            throw StoreError.unavailable(
                "scene \"\(id)\" in Redis is not valid: at \(issue.pointer), \(issue.message); DELETE /scenes/\(id) removes it")
        }
        return .some((SceneSnapshot(id: id, version: v, live: live), RedisSceneStore.weight(doc, scene)))
    }

    func fetch(_ id: String) throws(StoreError) -> (SceneSnapshot, weight: Int)? {
        try fetch(id, unless: nil) ?? nil
    }

    /// Brings `entry` up to Redis's copy (the caller holds `entry.writer`).
    /// - Returns: false when Redis no longer has the scene (then it leaves the cache).
    @discardableResult
    func refreshLocked(_ id: String, _ entry: CachedScene, dropAllCaptures: Bool) throws(StoreError) -> Bool {
        let current = entry.snapshot.version
        guard let fetched = try fetch(id, unless: current) else { return true }  // unchanged
        guard let (snapshot, weight) = fetched else {
            cache.remove(id)
            notify(.deleted(id))
            return false
        }
        entry.state.withLock { s in
            s.snapshot = snapshot
            if dropAllCaptures { s.sessions.dropAllCaptures() } else { s.sessions.dropCaptures(missingFrom: snapshot.compiled) }
        }
        cache.reweigh(id, entry, weight: weight)
        notify(.changed(id))
        return true
    }

    public func observeChanges(_ observer: @escaping @Sendable (SceneChange) -> Void) {
        changeObserver.withLock { $0 = observer }
    }

    /// Tells the observer of a change this replica followed from Redis.
    func notify(_ change: SceneChange) {
        changeObserver.withLock { $0 }?(change)
    }

    /// Runs the write script; `live` is the scene written (nil for a delete).
    private func write(
        _ mode: RedisWriteScript.Mode, id: String, expected: Int = 0, doc: [UInt8], live: LiveScene? = nil, kind: Announcement.Kind
    ) throws(StoreError) -> Int {
        var sha = scriptSHA.withLock { $0 }
        let before = sha
        let maxScenes = limits.maxScenes
        let summary = live.map { RedisSceneSummary.encode(layers: $0.compiled.layerCount, bounds: $0.compiled.bounds) } ?? []
        let r = try call { () throws(RedisError) in
            try RedisWriteScript.run(
                client, sha: &sha, keys: keys, mode: mode, id: id, expected: expected, doc: doc, summary: summary,
                maxScenes: maxScenes, kind: kind)
        }
        if sha != before { scriptSHA.withLock { $0 = sha } }
        return r
    }

    /// What a scene weighs in a replica's cache: its document's bytes plus
    /// its decoded masks (`Scene.maskBytes`), as the memory store counts.
    /// - Complexity: O(layers).
    static func weight(_ doc: [UInt8], _ scene: Scene) -> Int { doc.count + scene.maskBytes }

    /// 507 when one scene of `weight` bytes would pass this replica's
    /// cache (`--cache-bytes`): what bounds a replica's memory in Redis
    /// mode, and every replica answering the scene holds it compiled (the
    /// cache keeps a scene bigger than itself rather than none).
    private func checkWeight(_ weight: Int, of id: String) throws(StoreError) {
        if weight > cache.capacity {
            throw StoreError.full(
                .cache,
                "scene \"\(id)\" would weigh \(weight) bytes (its JSON and decoded masks), more than a replica's cache of \(cache.capacity) bytes (--cache-bytes) can hold; make it smaller"
            )
        }
    }

    private func checkFull(_ r: Int) throws(StoreError) {
        if r == -4 {
            throw StoreError.full(.scenes, "the store holds its maximum of \(limits.maxScenes) scenes; delete one first")
        }
    }

    /// Runs a Redis exchange (a round trip: the caller waits); a failure
    /// is ``StoreError/unavailable(_:)``.
    func call<T>(_ body: () throws(RedisError) -> T) throws(StoreError) -> T {
        do throws(RedisError) {
            return try body()
        } catch {
            throw StoreError.unavailable("Redis at \(client.endpoint): \(error.message)")
        }
    }

    func newSessions() -> PointerSessions {
        PointerSessions(maxPointers: limits.maxPointers, idleTimeout: limits.captureTimeout)
    }

    /// The document Redis keeps: the scene as submitted, with its id.
    static func document(_ scene: Scene, id: String) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        SceneEncoder.write(scene, id: id, version: nil, to: &w)
        return w.finish()
    }
}

import HitRouting
import SceneCodec

@testable import HitStore

/// A memory store that forwards every call to `inner`: a test overrides
/// the one call it needs to hold, count or interleave.
class ForwardingStore: SceneStoring, @unchecked Sendable {
    let inner = SceneStore()

    var capabilities: StoreCapabilities { inner.capabilities }
    var location: String { inner.location }
    func snapshot(_ id: String) -> SceneSnapshot? { inner.snapshot(id) }
    func residentSnapshot(_ id: String) -> SceneSnapshot? { inner.residentSnapshot(id) }
    func summaries() -> [SceneSummary] { inner.summaries() }
    func create(_ upload: SceneUpload) throws(StoreError) -> SceneSnapshot { try inner.create(upload) }
    func put(_ upload: SceneUpload, id: String) throws(StoreError) -> (SceneSnapshot, created: Bool) { try inner.put(upload, id: id) }
    func delete(_ id: String) throws(StoreError) -> Bool { try inner.delete(id) }
    func patch(_ id: String, _ patch: LayerPatch) throws(StoreError) -> (SceneSnapshot, Layer) { try inner.patch(id, patch) }
    func pointerEvent(_ id: String, _ event: PointerEvent) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
        try inner.pointerEvent(id, event)
    }
    func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])? {
        inner.refreshPointers(id, namespace: namespace)
    }
    func forgetPointers(_ id: String, namespace: UInt64) { inner.forgetPointers(id, namespace: namespace) }
    func health() -> StoreHealth { inner.health() }
    func stats() -> StoreStats { inner.stats() }
    var compileTimes: CompileTimes { inner.compileTimes }
    func start() {}
    func close() {}
}

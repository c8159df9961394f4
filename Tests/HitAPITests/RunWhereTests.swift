import HTTPServer
import HitRouting
import XCTest

@testable import HitAPI
@testable import HitStore

/// `RunWhere.decide`, rule by rule, without a server: where each kind of
/// work runs for a store in this process and for a shared one.
final class RunWhereTests: XCTestCase {
    let memory = StoreCapabilities(
        backend: "memory", readsMayBlock: false, writesMayBlock: false, shared: false, honoursMinVersion: false,
        keepsSubmittedJSON: false)
    let shared = StoreCapabilities(
        backend: "redis", readsMayBlock: true, writesMayBlock: true, shared: true, honoursMinVersion: true,
        keepsSubmittedJSON: false)
    let limits = RunWhere.Limits(loopBatchWork: 1000, bigSceneLayers: 3)

    func snapshot(layers: Int, version: Int = 1) -> SceneSnapshot {
        let scene = Scene(layers: (0..<layers).map { Layer(id: "l\($0)") })
        return SceneSnapshot(id: "s", version: version, live: LiveScene(scene))
    }

    func decide(_ kind: RunWhere.Work.Kind, _ snapshot: SceneSnapshot? = nil, body: Int = 0, minVersion: Int? = nil, _ c: StoreCapabilities)
        -> Placement
    {
        RunWhere.decide(
            RunWhere.Work(
                kind: kind, snapshot: snapshot, namesScene: kind != .fixed && kind != .listScenes, bodyBytes: body, minVersion: minVersion),
            capabilities: c, limits: limits)
    }

    func testWorkThatMayWaitOnAnotherProcessGoesToAWorker() {
        let s = snapshot(layers: 1)
        XCTAssertEqual(decide(.hit(pointerEvent: false), nil, memory), .loop, "not held, nothing to fetch: answered at once")
        XCTAssertEqual(decide(.hit(pointerEvent: false), nil, shared), .worker, "a miss is fetched")
        XCTAssertEqual(decide(.hit(pointerEvent: false), s, shared), .loop, "a held scene needs no round trip")
        XCTAssertEqual(decide(.hit(pointerEvent: true), s, shared), .worker, "a pointer event may write or look up")
        XCTAssertEqual(decide(.hit(pointerEvent: true), s, memory), .loop)
        XCTAssertEqual(decide(.writeScene, s, shared), .worker)
        XCTAssertEqual(decide(.listScenes, nil, shared), .worker)
        XCTAssertEqual(decide(.listScenes, nil, memory), .loop)
        XCTAssertEqual(decide(.readScene, snapshot(layers: 1, version: 2), minVersion: 3, shared), .worker, "older than asked")
        XCTAssertEqual(decide(.readScene, snapshot(layers: 1, version: 3), minVersion: 3, shared), .loop)
        XCTAssertEqual(decide(.fixed, nil, shared), .loop)
    }

    func testWorkOfTheScenesSizeGoesToAWorker() {
        XCTAssertEqual(decide(.render, snapshot(layers: 1), memory), .worker, "every render")
        XCTAssertEqual(decide(.readScene, snapshot(layers: 4), memory), .worker, "past bigSceneLayers")
        XCTAssertEqual(decide(.readScene, snapshot(layers: 3), memory), .loop)
        XCTAssertEqual(decide(.writeScene, snapshot(layers: 4), memory), .worker)
        XCTAssertEqual(decide(.writeScene, nil, body: 1023, memory), .loop)
        XCTAssertEqual(decide(.writeScene, nil, body: 1024, memory), .worker, "a body of 1 KiB may hold a PNG")
        XCTAssertEqual(decide(.hit(pointerEvent: false), snapshot(layers: 4), memory), .loop, "hits stay on the loop")
    }

    func testCostlyRoutingGoesToAWorker() {
        let s = snapshot(layers: 1)
        XCTAssertEqual(decide(.batch(points: 10, pointerEvents: false, estimate: 1000), s, memory), .loop)
        XCTAssertEqual(decide(.batch(points: 10, pointerEvents: false, estimate: 1001), s, memory), .worker)
        XCTAssertEqual(decide(.batch(points: 2, pointerEvents: true, estimate: 0), s, memory), .worker, "events cannot move once applied")
        XCTAssertEqual(decide(.batch(points: 1, pointerEvents: true, estimate: 5000), s, memory), .loop, "one point: as a single hit")
        s.markCostly(.batches)
        XCTAssertEqual(decide(.batch(points: 1, pointerEvents: false, estimate: 0), s, memory), .worker)
        XCTAssertEqual(decide(.hit(pointerEvent: false), s, memory), .loop, "a version's batches, not its hits")
        s.markCostly(.points)
        XCTAssertEqual(decide(.hit(pointerEvent: false), s, memory), .worker)
        XCTAssertEqual(decide(.hit(pointerEvent: false), snapshot(layers: 1, version: 2), memory), .loop, "a new version starts clear")
    }

    /// A stream's opening reads the scene's version only; its push routes
    /// its pointers again, placed as a batch of that many points.
    func testStreamsOpeningAndPushesArePlacedLikeTheirWork() {
        let s = snapshot(layers: 4)
        XCTAssertEqual(decide(.openStream, s, memory), .loop, "a big scene's version is one read")
        XCTAssertEqual(decide(.openStream, nil, memory), .loop, "none: a 404 at once")
        XCTAssertEqual(decide(.openStream, s, shared), .loop)
        XCTAssertEqual(decide(.openStream, nil, shared), .worker, "not held here: fetched")
        XCTAssertEqual(decide(.pointerRefresh(pointers: 64), nil, shared), .worker, "not held here: fetched")
        XCTAssertEqual(decide(.pointerRefresh(pointers: 64), nil, memory), .loop, "gone: nothing to route")
        XCTAssertEqual(decide(.pointerRefresh(pointers: 64), s, shared), .loop, "no point routed yet: no estimate")
        s.notePointWork(16)
        XCTAssertEqual(decide(.pointerRefresh(pointers: 62), s, memory), .loop, "992 of the loop's 1000")
        XCTAssertEqual(decide(.pointerRefresh(pointers: 63), s, memory), .worker, "1008")
        XCTAssertEqual(decide(.pointerRefresh(pointers: Int.max), s, memory), .worker, "an estimate past Int is past the share")
        let costly = snapshot(layers: 1)
        costly.markCostly(.points)
        XCTAssertEqual(decide(.pointerRefresh(pointers: 1), costly, memory), .worker, "a version whose points cost too much")
    }
}

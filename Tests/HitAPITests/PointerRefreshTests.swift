import Foundation
import HitRouting
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// SPEC §11.1–§11.2 at the store: after a change, each namespace's pointers
/// are routed again at their last points (what a stream pushes); a closed
/// stream's pointers are forgotten.
final class PointerRefreshTests: XCTestCase {
    /// A card holding an icon, and a badge in front of the card.
    static let scene = """
        {"layers": [
          {"id": "card", "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100},
           "children": [{"id": "icon", "shape": {"type": "rect", "x": 10, "y": 10, "width": 20, "height": 20}}]},
          {"id": "badge", "draggable": true, "shape": {"type": "rect", "x": 50, "y": 50, "width": 40, "height": 40}}
        ]}
        """

    func hover(_ store: any SceneStoring, _ key: PointerKey, _ x: Double, _ y: Double) throws -> Boundary? {
        try store.pointerEvent("s", PointerEvent(pointer: key, phase: .hover, point: Point(x, y), trace: false, all: false)).0.boundary
    }

    func testAPatchIsReportedToEachNamespaceOnceAndAClosedStreamForgets() throws {
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/s", Self.scene).status, 201)
        let stream = PointerKey("mouse", namespace: 9)
        let http = PointerKey("mouse")
        XCTAssertEqual(try hover(app.store, stream, 60, 60)?.enter, ["badge"])
        XCTAssertEqual(try hover(app.store, http, 60, 60)?.enter, ["badge"])
        XCTAssertEqual(app.store.refreshPointers("s", namespace: 9)?.1, [])  // nothing changed yet
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/badge", #"{"hidden": true}"#).status, 200)
        let (snapshot, changes) = try XCTUnwrap(app.store.refreshPointers("s", namespace: 9))
        XCTAssertEqual(snapshot.version, 2)
        XCTAssertEqual(changes.map(\.pointer), ["mouse"])
        XCTAssertEqual(changes.first?.target.map { snapshot.compiled.ids[$0] }, "card")
        XCTAssertEqual(changes.first?.boundary, Boundary(out: "badge", leave: ["badge"], over: "card", enter: ["card"], removed: []))
        XCTAssertNil(try hover(app.store, stream, 60, 60))  // already pushed
        XCTAssertEqual(try hover(app.store, http, 60, 60)?.leave, ["badge"])  // HTTP: said by the next answer
        // A closed stream's pointers are gone: its "mouse" starts over.
        app.store.forgetPointers("s", namespace: 9)
        XCTAssertEqual(try hover(app.store, stream, 60, 60)?.enter, ["card"])
        XCTAssertNil(app.store.refreshPointers("nope", namespace: 9))
        XCTAssertEqual(app.call("DELETE", "/scenes/s").status, 204)
        XCTAssertNil(app.store.refreshPointers("s", namespace: 9))
    }

    func testADragOnAnotherReplicaIsPushedFromTheCacheOfThisOne() throws {
        guard let redis = try RedisServerProcess.start() else { throw XCTSkip(RedisServerProcess.skipMessage) }
        defer { redis.shutdown() }
        var stores: [RedisSceneStore] = []
        defer { for s in stores { s.close() } }
        let apps = try (0..<2).map { _ in
            var config = Configuration()
            config.storeURL = redis.url
            let store = try XCTUnwrap(try StoreFactory.make(config.storeConfiguration) as? RedisSceneStore)
            stores.append(store)
            try waitUntil { store.health() == .ready }
            return Application(configuration: config, store: store)
        }
        XCTAssertEqual(apps[0].call("PUT", "/scenes/s", Self.scene).status, 201)
        let still = PointerKey("pen", namespace: 3)
        XCTAssertEqual(try hover(apps[0].store, still, 60, 60)?.over, "badge")
        // Another replica's pointer drags the badge off (60, 60).
        let hand = #"{"x": 60, "y": 60, "pointer": "hand", "phase": "#
        XCTAssertEqual(apps[1].call("POST", "/scenes/s/hit", hand + #""down"}"#).status, 200)
        XCTAssertEqual(
            apps[1].call("POST", "/scenes/s/hit", #"{"x": 260, "y": 60, "pointer": "hand", "phase": "up"}"#).object["version"] as? Int, 2)
        var pushed: [PointerSessions.Change] = []
        try waitUntil {
            guard let (snapshot, changes) = apps[0].store.refreshPointers("s", namespace: 3) else { return false }
            pushed += changes
            return snapshot.version == 2
        }
        XCTAssertEqual(pushed.map(\.boundary), [Boundary(out: "badge", leave: ["badge"], over: "card", enter: ["card"], removed: [])])
        XCTAssertNil(try hover(apps[0].store, still, 60, 60))  // already pushed
        apps[0].store.forgetPointers("s", namespace: 3)
        XCTAssertEqual(try hover(apps[0].store, still, 60, 60)?.enter, ["card"])
    }

    /// Polls `condition` with a deadline generous enough for a loaded
    /// machine (it bounds a hang, it does not measure speed).
    func waitUntil(seconds: Double = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            usleep(1_000)
        }
        XCTFail("timed out")
        throw XCTSkip("gave up")
    }
}

import XCTest

@testable import HitAPI
@testable import HitStore

/// `ChangeLog`'s contract, kept by `SceneStore`: a change whose record the
/// log refuses leaves memory as it was.
final class ChangeLogContractTests: XCTestCase {
    /// Takes every record but drags, which it refuses as a full disk would.
    final class RefusingDrags: ChangeLog {
        func admitting<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R { try body() }
        func append(_ change: StoreChange) throws(StoreError) -> UInt64 {
            if case .drag = change { throw StoreError.full(.disk, "the journal's disk is full") }
            return 1
        }
        func await(_ ticket: UInt64) throws(StoreError) {}
        func noteReplayCost(_ bytes: Int) {}
    }

    func testADragWhoseRecordIsRefusedMovesNothing() throws {
        let store = SceneStore(limits: SceneStore.Limits(), log: RefusingDrags())
        let app = Application(configuration: Configuration(), store: store)
        let scene = #"{"layers":[{"id":"a","draggable":true,"shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}}]}"#
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
        let before = app.call("GET", "/scenes/s").body
        XCTAssertEqual(
            app.call("POST", "/scenes/s/hit", #"{"x":50,"y":50,"pointer":"p","phase":"down"}"#).object["captured"] as? Bool, true)
        let move = app.call("POST", "/scenes/s/hit", #"{"x":80,"y":50,"pointer":"p","phase":"move"}"#)
        XCTAssertEqual(move.status, 507)
        XCTAssertEqual(app.call("GET", "/scenes/s").body, before, "the layer did not move and the version did not grow")
        XCTAssertEqual(app.call("GET", "/scenes/s/hit?x=5&y=50").object["layer"] as? String, "a")
        XCTAssertNil(app.call("GET", "/scenes/s/hit?x=105&y=50").object["layer"] as? String)
    }
}

import Foundation
import Synchronization
import XCTest

@testable import HitAPI

/// SPEC §5 over the API, on the overlapping-squares scene.
final class PointerRoutesTests: XCTestCase {
    /// The store's clock, in seconds, moved by the tests.
    final class Clock: Sendable {
        let seconds = Mutex(0.0)
    }
    let now = Clock()
    lazy var app = Application.testing(
        {
            $0.store.maxPointers = 2
            $0.store.captureTimeout = 30
        }, clock: { [now] in now.seconds.withLock { $0 } })

    override func setUp() {
        XCTAssertEqual(app.call("PUT", "/scenes/squares", squaresScene).status, 201)
    }

    func event(_ pointer: String, _ phase: String, _ x: Double, _ y: Double) -> Reply {
        app.call("POST", "/scenes/squares/hit", #"{"x": \#(x), "y": \#(y), "pointer": "\#(pointer)", "phase": "\#(phase)"}"#)
    }

    func testCaptureRoutesTheWholeDragToTheFirstSquare() {
        let down = event("f1", "down", 300, 300)
        XCTAssertEqual(down.object["layer"] as? String, "square3")
        XCTAssertEqual(down.object["captured"] as? Bool, true)
        let move = event("f1", "move", 100, 100)
        XCTAssertEqual(move.object["layer"] as? String, "square3")
        XCTAssertEqual(move.object["captured"] as? Bool, true)
        let trace = move.object["trace"] as? [[String: Any]]
        XCTAssertEqual(trace?.count, 1)
        XCTAssertEqual(trace?.first?["decision"] as? String, "captured")
        XCTAssertEqual(trace?.first?["reason"] as? String, "captured")
        XCTAssertEqual(event("f1", "up", 100, 100).object["layer"] as? String, "square3")
        let after = event("f1", "move", 100, 100)
        XCTAssertEqual(after.object["layer"] as? String, "square1")
        XCTAssertEqual(after.object["captured"] as? Bool, false)
    }

    func testDraggingMovesTheLayerAndBumpsTheVersion() {
        _ = event("f1", "down", 300, 300)
        _ = event("f1", "move", 325, 300)
        let up = event("f1", "up", 350, 300)
        XCTAssertEqual(up.object["version"] as? Int, 3)
        XCTAssertEqual(up.object["local"] as? [String: Double], ["x": 300, "y": 300])
        let scene = app.call("GET", "/scenes/squares").object
        let square3 = (scene["layers"] as? [[String: Any]])?[2]
        XCTAssertEqual(square3?["transform"] as? [String: [Double]], ["translate": [50, 0]])
        XCTAssertEqual(app.call("GET", "/scenes/squares/hit?x=370&y=300").object["layer"] as? String, "square3")
        XCTAssertNil(app.call("GET", "/scenes/squares/hit?x=180&y=300").object["layer"] as? String)
    }

    func testPointerLimitIsA429AndCapturesExpire() {
        _ = event("a", "down", 100, 100)
        _ = event("b", "down", 300, 300)
        let third = event("c", "down", 200, 200)
        XCTAssertEqual(third.status, 429)
        XCTAssertEqual(third.object["type"] as? String, "/problems/too-many-pointers")
        now.seconds.withLock { $0 = 31 }
        XCTAssertEqual(event("c", "down", 200, 200).status, 200)
        XCTAssertEqual(event("a", "move", 300, 300).object["layer"] as? String, "square3")  // a expired
    }

    func testCapturesVanishOnReplaceAndDelete() {
        _ = event("a", "down", 300, 300)
        XCTAssertEqual(app.call("PUT", "/scenes/squares", squaresScene).status, 200)
        let next = event("a", "move", 100, 100)
        XCTAssertEqual(next.object["layer"] as? String, "square1")
        let first = (next.object["trace"] as? [[String: Any]])?.first
        XCTAssertEqual(first?["layer"] as? String, "square3")
        XCTAssertEqual(first?["reason"] as? String, "captured")
        XCTAssertEqual(first?["detail"] as? String, "capture of pointer \"a\" by layer \"square3\" was dropped: the scene was replaced")
        _ = event("a", "down", 300, 300)
        XCTAssertEqual(app.call("DELETE", "/scenes/squares").status, 204)
        XCTAssertEqual(app.call("PUT", "/scenes/squares", squaresScene).status, 201)
        XCTAssertEqual(event("a", "move", 100, 100).object["layer"] as? String, "square1")
    }

    func testBatchAppliesPointerEventsInOrder() {
        let r = app.call(
            "POST", "/scenes/squares/hits",
            """
            {"points": [{"x":300,"y":300,"pointer":"p","phase":"down"}, {"x":320,"y":300,"pointer":"p","phase":"move"},
                        {"x":100,"y":100}, {"x":340,"y":300,"pointer":"p","phase":"up"}]}
            """)
        XCTAssertEqual(r.status, 200, r.text)
        let results = r.object["results"] as? [[String: Any]] ?? []
        XCTAssertEqual(results.map { $0["layer"] as? String }, ["square3", "square3", "square1", "square3"])
        XCTAssertEqual(results.map { $0["captured"] as? Bool }, [true, true, nil, true])
        XCTAssertEqual(r.object["version"] as? Int, 3)
    }

    func testTwoClientsDraggingTwoLayersLoseNoMovement() {
        let scene = """
            {"layers": [{"id": "a", "draggable": true, "shape": {"type": "rect", "x": 0, "y": 0, "width": 10, "height": 10}},
                        {"id": "b", "draggable": true, "shape": {"type": "rect", "x": 100, "y": 0, "width": 10, "height": 10}}]}
            """
        XCTAssertEqual(app.call("PUT", "/scenes/two", scene).status, 201)
        let steps = 1000
        let app = self.app
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let (pointer, x0) = k == 0 ? ("pa", 5.0) : ("pb", 105.0)
            func send(_ phase: String, _ x: Double) {
                let r = app.call(
                    "POST", "/scenes/two/hit", #"{"x": \#(x), "y": 5, "pointer": "\#(pointer)", "phase": "\#(phase)", "trace": false}"#)
                XCTAssertEqual(r.status, 200)
            }
            send("down", x0)
            for i in 1...steps { send("move", x0 + Double(i)) }
            send("up", x0 + Double(steps))
        }
        let layers = app.call("GET", "/scenes/two").object["layers"] as? [[String: Any]]
        XCTAssertEqual(layers?.map { $0["transform"] as? [String: [Double]] }, [["translate": [1000, 0]], ["translate": [1000, 0]]])
        XCTAssertEqual(app.call("GET", "/scenes/two").headers["ETag"], "\"\(1 + 2 * steps)\"")
    }
}

import XCTest

@testable import HitAPI

/// A capture whose parent was patched to a singular transform while the
/// pointer was down: the drag has no size in the parent's space. It was
/// answered 200 with nothing moved and `local: null`; it is refused like a
/// move past the finite range (422, pointer `""`, the capture kept).
final class SingularParentDragTests: XCTestCase {
    func testDragUnderASingularParentIs422AndKeepsTheCapture() {
        let app = Application.testing()
        let scene =
            #"{"layers":[{"id":"p","children":[{"id":"c","draggable":true,"shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}]}]}"#
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
        let down = app.call("POST", "/scenes/s/hit", #"{"x":1,"y":1,"pointer":"p","phase":"down"}"#)
        XCTAssertEqual(down.object["captured"] as? Bool, true)
        let patch = app.call("PATCH", "/scenes/s/layers/p", #"{"transform":{"matrix":[1e-150,0,0,1e-150,0,0]}}"#)
        XCTAssertEqual(patch.status, 200)
        let move = app.call("POST", "/scenes/s/hit", #"{"x":1e308,"y":-1e308,"pointer":"p","phase":"move"}"#)
        XCTAssertEqual(move.status, 422, move.text)
        XCTAssertEqual(move.object["type"] as? String, "/problems/invalid-request")
        XCTAssertEqual(move.pointers, [""])
        XCTAssertTrue((move.object["detail"] as? String)?.contains("not invertible") ?? false, move.text)
        XCTAssertEqual(app.call("GET", "/scenes/s").headers["ETag"], "\"2\"", "nothing moved")
        // The capture is kept: once the parent is invertible again, the drag goes on.
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/p", #"{"transform":null}"#).status, 200)
        let again = app.call("POST", "/scenes/s/hit", #"{"x":3,"y":1,"pointer":"p","phase":"move"}"#)
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.object["layer"] as? String, "c")
        XCTAssertEqual(again.object["captured"] as? Bool, true)
    }
}

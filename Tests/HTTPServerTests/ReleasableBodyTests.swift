import XCTest

@testable import HTTPServer

final class ReleasableBodyTests: XCTestCase {
    func testReleaseEmptiesEveryCopyOfAReleasableBody() {
        var request = HTTPRequest(method: "PUT", target: "/scenes/a", body: Array("{}".utf8))
        request.makeBodyReleasable()
        let copy = request
        XCTAssertEqual(copy.body, Array("{}".utf8))
        XCTAssertEqual(copy, HTTPRequest(method: "PUT", target: "/scenes/a", body: Array("{}".utf8)))
        request.releaseBody()
        XCTAssertEqual(request.body, [])
        XCTAssertEqual(copy.body, [])
    }

    func testReleaseLeavesAnOrdinaryBodyAlone() {
        let request = HTTPRequest(method: "PUT", target: "/scenes/a", body: [1, 2, 3])
        request.releaseBody()
        XCTAssertEqual(request.body, [1, 2, 3])
    }

    func testSettingTheBodyReplacesAReleasableOne() {
        var request = HTTPRequest(method: "PUT", target: "/scenes/a", body: [1])
        request.makeBodyReleasable()
        request.body = [2]
        request.releaseBody()
        XCTAssertEqual(request.body, [2])
    }
}

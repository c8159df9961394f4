import XCTest

@testable import HitAPI

final class BodyBufferConfigurationTests: XCTestCase {
    func testTheBudgetFlagAndItsFloor() throws {
        XCTAssertEqual(try Configuration.parse(arguments: [], environment: [:]).server.maxBufferedBodyBytes, 1 << 30)
        let c = try Configuration.parse(arguments: ["--max-buffered-body-bytes", "33554432"], environment: [:])
        XCTAssertEqual(c.server.maxBufferedBodyBytes, 32 << 20)
        let e = try Configuration.parse(arguments: [], environment: ["HITROUTE_MAX_BUFFERED_BODY_BYTES": "20000000"])
        XCTAssertEqual(e.server.maxBufferedBodyBytes, 20_000_000)
        // Below the largest body: such a body could never be received.
        XCTAssertThrowsError(try Configuration.parse(arguments: ["--max-buffered-body-bytes", "1000"], environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("--max-body-bytes"), "\(error)")
        }
        XCTAssertNoThrow(
            try Configuration.parse(arguments: ["--max-buffered-body-bytes", "1000", "--max-body-bytes", "1000"], environment: [:]))
    }
}

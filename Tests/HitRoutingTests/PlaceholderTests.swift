import XCTest
@testable import HitRouting

final class HitRoutingPlaceholderTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}

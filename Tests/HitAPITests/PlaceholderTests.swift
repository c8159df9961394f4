import XCTest
@testable import HitAPI

final class HitAPIPlaceholderTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}

import XCTest
@testable import HitJSON

final class HitJSONPlaceholderTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}

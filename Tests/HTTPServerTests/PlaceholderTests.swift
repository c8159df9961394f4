import XCTest
@testable import HTTPServer

final class HTTPServerPlaceholderTests: XCTestCase {
    func testModuleLinks() { XCTAssertTrue(true) }
}

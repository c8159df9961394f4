import Foundation
import XCTest

@testable import HitAPI

final class OpenAPIDocumentTests: XCTestCase {
    func testTheServedDocumentIsTheRepositorysOpenAPIFile() throws {
        let file = try String(contentsOf: repositoryRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let served = Application.testing().call("GET", "/openapi.yaml")
        XCTAssertEqual(served.status, 200)
        XCTAssertTrue(served.text == file, "GET /openapi.yaml differs from openapi.yaml: run scripts/embed-openapi.sh")
    }
}

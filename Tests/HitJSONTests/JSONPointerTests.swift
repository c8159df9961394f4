import XCTest

@testable import HitJSON

/// RFC 6901 JSON Pointer building.
final class JSONPointerTests: XCTestCase {
    /// The pointers of RFC 6901 section 5, built from their unescaped tokens.
    func testRFC6901Examples() {
        let examples: [([String], String)] = [
            ([], ""),
            (["foo"], "/foo"),
            (["foo", "0"], "/foo/0"),
            ([""], "/"),
            (["a/b"], "/a~1b"),
            (["c%d"], "/c%d"),
            (["e^f"], "/e^f"),
            (["g|h"], "/g|h"),
            (["i\\j"], "/i\\j"),
            (["k\"l"], "/k\"l"),
            ([" "], "/ "),
            (["m~n"], "/m~0n"),
        ]
        for (tokens, expected) in examples {
            XCTAssertEqual(JSONPointer(tokens).description, expected)
        }
    }

    func testEscapeOrder() {
        // "~1" as a token must become "~01", not "/" after unescaping.
        XCTAssertEqual(JSONPointer(["~1"]).description, "/~01")
        XCTAssertEqual(JSONPointer(["a/~b", "~/"]).description, "/a~1~0b/~0~1")
        XCTAssertEqual(JSONPointer(["é/😀"]).description, "/é~1😀")
    }

    func testAppending() {
        let root = JSONPointer()
        XCTAssertEqual(root.description, "")
        let p = root.appending("layers").appending(0).appending("shape")
        XCTAssertEqual(p.description, "/layers/0/shape")
        XCTAssertEqual(p.tokens, ["layers", "0", "shape"])
        XCTAssertEqual(root.description, "", "appending does not mutate")
        XCTAssertEqual(p, JSONPointer(["layers", "0", "shape"]))
        XCTAssertEqual(Set([p, JSONPointer(["layers", "0", "shape"]), root]).count, 2)
        XCTAssertEqual("\(root.appending(-1))", "/-1")
    }
}

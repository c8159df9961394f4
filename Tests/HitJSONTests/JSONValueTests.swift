import XCTest

@testable import HitJSON

final class JSONValueTests: XCTestCase {
    func testParseAndEncodeRoundTrip() {
        let text =
            #"{"id":"ring-demo","width":240,"layers":[{"id":"button","shape":{"type":"rect","x":0,"y":0.5}},{"hidden":true,"action":null}],"name":"é\n😀"}"#
        let value = JSONValue(json: text)
        XCTAssertEqual(String(decoding: value.encoded, as: UTF8.self), text)
        XCTAssertEqual(value["id"], .string("ring-demo"))
        XCTAssertEqual(value["width"]?.numberValue, 240)
        XCTAssertEqual(value["layers"]?.arrayValue?.count, 2)
        XCTAssertEqual(value["layers"]?.arrayValue?[0]["shape"]?["y"], .number(0.5))
        XCTAssertNil(value["missing"])
        XCTAssertNil(JSONValue.number(1)["id"])
    }

    func testWhitespaceIsAccepted() {
        let spaced = " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\" : { } } "
        XCTAssertEqual(String(decoding: JSONValue(json: spaced).encoded, as: UTF8.self), #"{"a":[1,2],"b":{}}"#)
    }

    func testDuplicateKeysKeepTheLastValueAtTheFirstPosition() {
        XCTAssertEqual(String(decoding: JSONValue(json: #"{"a":1,"b":2,"a":3}"#).encoded, as: UTF8.self), #"{"a":3,"b":2}"#)
        // Also past the point where the builder switches to a hash index.
        let many = (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let value = JSONValue(json: "{" + many + #","k3":"x","k15":"y"}"#)
        XCTAssertEqual(value.objectValue?.count, 20)
        XCTAssertEqual(value["k3"], .string("x"))
        XCTAssertEqual(value["k15"], .string("y"))
        XCTAssertEqual(value.objectValue?[3].0, "k3")
    }

    func testObjectEqualityIgnoresMemberOrder() {
        XCTAssertEqual(JSONValue(json: #"{"a":1,"b":[2,{"c":3,"d":4}]}"#), JSONValue(json: #"{"b":[2,{"d":4,"c":3}],"a":1}"#))
        XCTAssertNotEqual(JSONValue(json: #"{"a":1}"#), JSONValue(json: #"{"a":2}"#))
        XCTAssertNotEqual(JSONValue(json: #"{"a":1}"#), JSONValue(json: #"{"b":1}"#))
        XCTAssertNotEqual(JSONValue(json: #"{"a":1}"#), JSONValue(json: #"{"a":1,"b":1}"#))
        XCTAssertNotEqual(JSONValue(json: "[1,2]"), JSONValue(json: "[2,1]"))
        XCTAssertNotEqual(JSONValue.object([("a", .null), ("a", .null)]), JSONValue.object([("a", .null), ("b", .null)]))
        XCTAssertNotEqual(JSONValue.null, JSONValue.bool(false))
        XCTAssertNotEqual(JSONValue.number(0), JSONValue.string("0"))
        XCTAssertEqual(JSONValue.number(0), JSONValue.number(-0.0))
    }

    func testNonFiniteNumbersAreWrittenAsNull() {
        let value = JSONValue(json: "[1e999,-1e999,1]")
        XCTAssertEqual(value, .array([.number(.infinity), .number(-.infinity), .number(1)]))
        XCTAssertEqual(String(decoding: value.encoded, as: UTF8.self), "[null,null,1]")
        XCTAssertEqual(value.firstNonFiniteNumber, JSONPointer(["0"]))
    }

    func testFirstNonFiniteNumberPointsIntoTheDocument() {
        XCTAssertNil(JSONValue(json: #"{"a":[1,2,{"b":-0}],"c":"1e999"}"#).firstNonFiniteNumber)
        XCTAssertEqual(JSONValue(json: #"{"a":[1,2,{"b/c":-1e400}],"d":1e999}"#).firstNonFiniteNumber?.description, "/a/2/b~1c")
        XCTAssertEqual(JSONValue(json: "1e999").firstNonFiniteNumber?.description, "")
    }

    func testParseAcceptsNonContiguousCollections() throws {
        let bytes = Array(#"{"a":[true]}"#.utf8)
        XCTAssertEqual(try JSONValue.parse(bytes.lazy.map { $0 }), JSONValue(json: #"{"a":[true]}"#))
        XCTAssertEqual(try JSONValue.parse(#"[null]"#.utf8), .array([.null]))
        XCTAssertEqual(try JSONValue.parse(bytes[5...10]), .array([.bool(true)]))
    }

    /// Partial arrays and objects are appended in place (one reference, no
    /// copy-on-write copy per append), so parsing a document of 300,000
    /// elements is linear in its length.
    func testLargeDocumentsParseInLinearTime() throws {
        let n = 300_000
        let array = "[" + (0..<n).map { String($0 % 1000) }.joined(separator: ",") + "]"
        XCTAssertEqual(try JSONValue.parse(Array(array.utf8)).arrayValue?.count, n)
        let object = "{" + (0..<n).map { #""k\#($0)":[\#($0)]"# }.joined(separator: ",") + "}"
        let value = try JSONValue.parse(Array(object.utf8))
        XCTAssertEqual(value.objectValue?.count, n)
        XCTAssertEqual(value["k123"], .array([.number(123)]))
    }

    func testParseErrorsAreTyped() {
        do {
            _ = try JSONValue.parse(Array("[1,".utf8))
            XCTFail("accepted")
        } catch {
            let e: JSONSyntaxError = error  // typed throws: no cast needed
            XCTAssertEqual(e.offset, 3)
            XCTAssertEqual(e.description, "JSON syntax error at byte 3: expected a value, found end of input")
        }
    }
}

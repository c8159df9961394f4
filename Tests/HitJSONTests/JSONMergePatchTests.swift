import XCTest

@testable import HitJSON

/// RFC 7396 JSON Merge Patch.
final class JSONMergePatchTests: XCTestCase {
    /// RFC 7396 Appendix A, every row: original, patch, result. The results
    /// are also compared byte for byte (members keep their order, new ones are appended).
    func testRFC7396AppendixA() {
        let table: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
            (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
            (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
            (#"{"a":"foo"}"#, #"null"#, #"null"#),
            (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
            (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
        ]
        for (original, patch, result) in table {
            let merged = JSONValue(json: original).merging(patch: JSONValue(json: patch))
            XCTAssertEqual(merged, JSONValue(json: result), "\(original) + \(patch)")
            XCTAssertEqual(String(decoding: merged.encoded, as: UTF8.self), result, "\(original) + \(patch)")
        }
    }

    /// RFC 7396 section 3's worked example.
    func testRFC7396Section3Example() {
        let target = JSONValue(
            json: #"""
                {"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
                 "tags": ["example", "sample"], "content": "This will be unchanged"}
                """#)
        let patch = JSONValue(
            json: #"""
                {"title": "Hello!", "phoneNumber": "+01-123-456-7890",
                 "author": {"familyName": null}, "tags": ["example"]}
                """#)
        let expected =
            #"{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}"#
        XCTAssertEqual(String(decoding: target.merging(patch: patch).encoded, as: UTF8.self), expected)
    }

    func testRemovingAnAbsentKeyChangesNothing() {
        XCTAssertEqual(JSONValue(json: #"{"a":1}"#).merging(patch: JSONValue(json: #"{"b":null}"#)), JSONValue(json: #"{"a":1}"#))
    }

    func testRepeatedKeysInAHandBuiltTargetKeepTheLast() {
        let target = JSONValue.object([("a", .number(1)), ("a", .number(2))])
        XCTAssertEqual(target.merging(patch: .object([])), .object([("a", .number(2))]))
        XCTAssertEqual(target.merging(patch: JSONValue(json: #"{"a":null}"#)), .object([]))
    }

    func testLargePatchesStayFast() {
        let n = 50_000
        let target = JSONValue.object((0..<n).map { ("k\($0)", .number(Double($0))) })
        let patch = JSONValue.object((0..<n).map { ("k\($0)", $0 % 2 == 0 ? .null : .string("x")) })
        let merged = target.merging(patch: patch)
        XCTAssertEqual(merged.objectValue?.count, n / 2)
        XCTAssertEqual(merged["k1"], .string("x"))
    }
}

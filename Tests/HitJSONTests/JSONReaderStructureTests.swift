import XCTest

@testable import HitJSON

/// Objects, arrays, literals, whitespace and `finish()`, including the exact
/// offset and message of each structural error.
final class JSONReaderStructureTests: XCTestCase {
    func testDecoderStyleWalk() throws {
        let text = #" { "id" : "ring", "size": [240, 120.5], "on": true, "none": null, "skip": {"x": [1, {"y": "z"}]} } "#
        try withReader(text) { r in
            XCTAssertEqual(try r.peek(), .object)
            try r.beginObject()
            XCTAssertEqual(try r.nextKey(), "id")
            XCTAssertEqual(try r.peek(), .string)
            XCTAssertEqual(try r.readString(), "ring")
            XCTAssertEqual(try r.nextKey(), "size")
            XCTAssertEqual(try r.peek(), .array)
            try r.beginArray()
            XCTAssertTrue(try r.nextElement())
            XCTAssertEqual(try r.peek(), .number)
            XCTAssertEqual(try r.readNumber(), 240)
            XCTAssertTrue(try r.nextElement())
            XCTAssertEqual(try r.readNumber(), 120.5)
            XCTAssertFalse(try r.nextElement())
            XCTAssertEqual(try r.nextKey(), "on")
            XCTAssertEqual(try r.peek(), .bool)
            XCTAssertEqual(try r.readBool(), true)
            XCTAssertEqual(try r.nextKey(), "none")
            XCTAssertEqual(try r.peek(), .null)
            try r.readNull()
            XCTAssertEqual(try r.nextKey(), "skip")
            try r.skipValue()
            XCTAssertNil(try r.nextKey())
            XCTAssertEqual(r.currentDepth, 0)
            try r.finish()
            XCTAssertEqual(r.offset, text.utf8.count)
        }
    }

    func testEmptyContainers() throws {
        try withReader("[ ]") { r in
            try r.beginArray()
            XCTAssertFalse(try r.nextElement())
            try r.finish()
        }
        try withReader("{\n}") { r in
            try r.beginObject()
            XCTAssertNil(try r.nextKey())
            try r.finish()
        }
        XCTAssertEqual(assertParses("[[],{},[{}]]"), .array([.array([]), .object([]), .array([.object([])])]))
    }

    func testOffsetAdvancesExactly() throws {
        try withReader(#"  [1, "ab"]  "#) { r in
            XCTAssertEqual(r.offset, 0)
            XCTAssertEqual(try r.peek(), .array)
            XCTAssertEqual(r.offset, 2)  // whitespace skipped, '[' not consumed
            try r.beginArray()
            XCTAssertEqual(r.offset, 3)
            XCTAssertTrue(try r.nextElement())
            _ = try r.readNumber()
            XCTAssertEqual(r.offset, 4)
            XCTAssertTrue(try r.nextElement())
            XCTAssertEqual(r.offset, 6)  // after ',' and the whitespace following it
            _ = try r.readString()
            XCTAssertEqual(r.offset, 10)
            XCTAssertFalse(try r.nextElement())
            XCTAssertEqual(r.offset, 11)
            try r.finish()
            XCTAssertEqual(r.offset, 13)
        }
    }

    func testWrongKindIsAnErrorAtTheValue() {
        func error(_ text: String, _ body: (inout JSONReader) throws(JSONSyntaxError) -> Void) -> JSONSyntaxError? {
            withReader(text) { r in
                do throws(JSONSyntaxError) {
                    try body(&r)
                    return nil
                } catch { return error }
            }
        }
        XCTAssertEqual(
            error(#" "x""#) { r throws(JSONSyntaxError) in _ = try r.readNumber() },
            JSONSyntaxError(offset: 1, message: #"expected a number, found '"'"#))
        XCTAssertEqual(
            error("  1") { r throws(JSONSyntaxError) in _ = try r.readString() },
            JSONSyntaxError(offset: 2, message: "expected a string, found '1'"))
        XCTAssertEqual(
            error("null") { r throws(JSONSyntaxError) in _ = try r.readBool() },
            JSONSyntaxError(offset: 0, message: "expected a boolean, found 'n'"))
        XCTAssertEqual(
            error("false") { r throws(JSONSyntaxError) in try r.readNull() },
            JSONSyntaxError(offset: 0, message: "expected null, found 'f'"))
        XCTAssertEqual(
            error("[]") { r throws(JSONSyntaxError) in try r.beginObject() },
            JSONSyntaxError(offset: 0, message: "expected an object, found '['"))
        XCTAssertEqual(
            error("{}") { r throws(JSONSyntaxError) in try r.beginArray() },
            JSONSyntaxError(offset: 0, message: "expected an array, found '{'"))
        XCTAssertEqual(
            error("") { r throws(JSONSyntaxError) in _ = try r.peek() },
            JSONSyntaxError(offset: 0, message: "expected a value, found end of input"))
        XCTAssertEqual(
            error("[1]") { r throws(JSONSyntaxError) in
                try r.beginArray()
                _ = try r.nextKey()
            }?.message,
            "nextKey() called outside an object")
        XCTAssertEqual(
            error(#"{"a":1}"#) { r throws(JSONSyntaxError) in
                try r.beginObject()
                _ = try r.nextElement()
            }?.message,
            "nextElement() called outside an array")
        XCTAssertEqual(
            error("1") { r throws(JSONSyntaxError) in _ = try r.nextElement() }?.message,
            "nextElement() called outside an array")
    }

    func testStructuralErrors() {
        assertSyntaxError("", offset: 0, "expected a value, found end of input")
        assertSyntaxError(" \n\t\r ", offset: 5, "expected a value, found end of input")
        assertSyntaxError("[1,]", offset: 3, "expected a value, found ']'")
        assertSyntaxError(#"{"a":1,}"#, offset: 7, "expected a key, found '}'")
        assertSyntaxError(#"{"a" 1}"#, offset: 5, "expected ':', found '1'")
        assertSyntaxError(#"{"a"}"#, offset: 4, "expected ':', found '}'")
        assertSyntaxError(#"{"a":}"#, offset: 5, "expected a value, found '}'")
        assertSyntaxError(#"{"a":1 "b":2}"#, offset: 7, #"expected ',' or '}', found '"'"#)
        assertSyntaxError("[1 2]", offset: 3, "expected ',' or ']', found '2'")
        assertSyntaxError("[1,2", offset: 4, "expected ',' or ']', found end of input")
        assertSyntaxError("[", offset: 1, "expected a value or ']', found end of input")
        assertSyntaxError("{", offset: 1, "expected a key or '}', found end of input")
        assertSyntaxError(#"{"a":1"#, offset: 6, "expected ',' or '}', found end of input")
        assertSyntaxError(#"{"a":"#, offset: 5, "expected a value, found end of input")
        assertSyntaxError(#"{"a""#, offset: 4, "expected ':', found end of input")
        assertSyntaxError("[}", offset: 1, "expected a value, found '}'")
        assertSyntaxError("{]", offset: 1, "expected a key or '}', found ']'")
        assertSyntaxError("{1:2}", offset: 1, "expected a key or '}', found '1'")
        assertSyntaxError("{'a':2}", offset: 1, "expected a key or '}', found '''")
        assertSyntaxError("{a:2}", offset: 1)
        assertSyntaxError("[1}", offset: 2, "expected ',' or ']', found '}'")
        assertSyntaxError(#"{"a":1]"#, offset: 6, "expected ',' or '}', found ']'")
        assertSyntaxError("[,1]", offset: 1, "expected a value, found ','")
        assertSyntaxError("{,}", offset: 1, "expected a key or '}', found ','")
        assertSyntaxError("[1,,2]", offset: 3, "expected a value, found ','")
        assertSyntaxError(#"{"a":1,,"b":2}"#, offset: 7, "expected a key, found ','")
        assertSyntaxError(#"{"a"::1}"#, offset: 5, "expected a value, found ':'")
        assertSyntaxError("]", offset: 0, "expected a value, found ']'")
        assertSyntaxError("True", offset: 0, "expected a value, found 'T'")
        assertSyntaxError("undefined", offset: 0, "expected a value, found 'u'")
    }

    func testLiterals() {
        XCTAssertEqual(assertParses("true"), .bool(true))
        XCTAssertEqual(assertParses("false"), .bool(false))
        XCTAssertEqual(assertParses("null"), .null)
        XCTAssertEqual(assertParses(" [true,false,null] "), .array([.bool(true), .bool(false), .null]))
        assertSyntaxError("nul", offset: 3, "expected 'null', found end of input")
        assertSyntaxError("nulL", offset: 3, "expected 'null', found 'L'")
        assertSyntaxError("tru", offset: 3, "expected 'true', found end of input")
        assertSyntaxError("trUe", offset: 2, "expected 'true', found 'U'")
        assertSyntaxError("fals", offset: 4, "expected 'false', found end of input")
        assertSyntaxError("[nil]", offset: 2, "expected 'null', found 'i'")
        assertSyntaxError("truex", offset: 4, "expected end of input, found 'x'")
    }

    func testFinishRejectsTrailingGarbage() {
        assertSyntaxError("1 2", offset: 2, "expected end of input, found '2'")
        assertSyntaxError("[] x", offset: 3, "expected end of input, found 'x'")
        assertSyntaxError("{}}", offset: 2, "expected end of input, found '}'")
        assertSyntaxError("[1]\u{0}", offset: 3, "expected end of input, found byte 0x00")
        assertSyntaxError("0x10", offset: 1, "expected end of input, found 'x'")
        assertSyntaxError("1.5.3", offset: 3, "expected end of input, found '.'")
        XCTAssertEqual(assertParses(" \t\r\n[1] \t\r\n"), .array([.number(1)]))
    }

    func testOnlyTheFourWhitespaceBytesAreWhitespace() {
        assertSyntaxError("\u{0C}1", offset: 0, "expected a value, found byte 0x0C")  // form feed
        assertSyntaxError("\u{0B}1", offset: 0)  // vertical tab
        assertSyntaxError("\u{A0}1", offset: 0)  // no-break space (C2 A0)
        assertSyntaxError([0xEF, 0xBB, 0xBF] + Array("[]".utf8), offset: 0, "expected a value, found byte 0xEF")  // BOM
    }

    func testFinishInsideAContainerIsAnError() throws {
        try withReader("[1") { r in
            XCTAssertNoThrow(try r.beginArray())
            XCTAssertThrowsError(try r.finish())
        }
    }
}

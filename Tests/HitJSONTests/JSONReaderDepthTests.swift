import XCTest

@testable import HitJSON

/// Nesting limits: clean failures (never a crash) for hostile depth, and the
/// container-kind stack beyond 64 levels.
final class JSONReaderDepthTests: XCTestCase {
    func testHundredThousandOpenBracketsFailCleanly() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        assertSyntaxError(bytes, offset: 512, "nesting deeper than 512")
        let objects = Array(String(repeating: #"{"a":"#, count: 100_000).utf8)
        assertSyntaxError(objects, offset: 512 * 5, "nesting deeper than 512")
    }

    func testBeginArrayStopsAtMaxDepth() throws {
        try withReader("[[[[1]]]]", maxDepth: 3) { r in
            XCTAssertNoThrow(try r.beginArray())
            XCTAssertNoThrow(try r.nextElement())
            XCTAssertNoThrow(try r.beginArray())
            XCTAssertNoThrow(try r.nextElement())
            XCTAssertNoThrow(try r.beginArray())
            XCTAssertNoThrow(try r.nextElement())
            XCTAssertThrowsError(try r.beginArray()) { error in
                XCTAssertEqual(error as? JSONSyntaxError, JSONSyntaxError(offset: 3, message: "nesting deeper than 3"))
            }
        }
    }

    func testLimitIsInclusive() {
        XCTAssertNotNil(try? parseResult("[[[1]]]", maxDepth: 3).get())
        assertSyntaxError("[[[[1]]]]", offset: 3, "nesting deeper than 3", maxDepth: 3)
        assertSyntaxError("[]", offset: 0, "nesting deeper than 0", maxDepth: 0)
        XCTAssertEqual(try? parseResult("7", maxDepth: 0).get(), .number(7))
    }

    func testSkipValueCountsOpenContainers() throws {
        try withReader("[[[[1]]]]", maxDepth: 3) { r in
            XCTAssertNoThrow(try r.beginArray())
            XCTAssertNoThrow(try r.nextElement())
            XCTAssertThrowsError(try r.skipValue()) { error in
                XCTAssertEqual(error as? JSONSyntaxError, JSONSyntaxError(offset: 3, message: "nesting deeper than 3"))
            }
        }
    }

    func testSkipValueHandlesVeryDeepValidDocumentsIteratively() {
        let depth = 100_000
        var text = String(repeating: #"[{"k":"#, count: depth)
        text += "0"
        text += String(repeating: "}]", count: depth)
        let bytes = Array(text.utf8)
        XCTAssertEqual(skipResult(bytes, maxDepth: 2 * depth), .success(bytes.count))
        if case .failure(let error) = skipResult(bytes, maxDepth: 2 * depth - 1) {
            XCTAssertEqual(error.message, "nesting deeper than \(2 * depth - 1)")
        } else {
            XCTFail("accepted over-deep document")
        }
    }

    /// Mixed kinds past the 64-level inline stack, then a mismatched closer deep inside.
    func testMixedKindsBeyondSixtyFourLevels() {
        let levels = 200
        var opens = ""
        var closes: [String] = []
        for d in 0..<levels {
            if d % 3 == 0 {
                opens += #"{"k":"#
                closes.append("}")
            } else {
                opens += "["
                closes.append("]")
            }
        }
        let valid = opens + "0" + closes.reversed().joined()
        guard let value = assertParses(valid) else { return }
        XCTAssertEqual(value.encoded, Array(valid.utf8))
        // Swap the closer of depth 130 (0-based; an array level) for '}'.
        var wrong = Array(closes.reversed())
        let index = levels - 1 - 130
        XCTAssertEqual(wrong[index], "]")
        wrong[index] = "}"
        let invalid = opens + "0" + wrong.joined()
        assertSyntaxError(invalid, offset: opens.utf8.count + 1 + index, "expected ',' or ']', found '}'")
    }
}

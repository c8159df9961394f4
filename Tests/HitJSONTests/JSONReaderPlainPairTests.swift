import TestSupport
import XCTest

@testable import HitJSON

/// `readPlainPair()`: reads exactly `[number, number]` and leaves the reader
/// where it was for anything else, which the general path then reads.
final class JSONReaderPlainPairTests: XCTestCase {
    /// The pair read from `text` with the reader at `maxDepth` (then the
    /// reader must be just past the closing bracket), or nil (then it must
    /// not have moved).
    func read(_ text: String, maxDepth: Int = 512) -> (Double, Double)? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer, maxDepth: maxDepth)
            let pair = reader.readPlainPair()
            let end = (bytes.lastIndex(of: UInt8(ascii: "]")) ?? -1) + 1
            XCTAssertEqual(reader.offset, pair == nil ? 0 : end, text)
            return pair
        }
    }

    /// What the general path reads from `bytes`: the two numbers of a
    /// `[number, number]` array and the offset past it, or nil when it is
    /// anything else.
    func general(_ bytes: UnsafeBufferPointer<UInt8>) -> (Double, Double, offset: Int)? {
        var reader = JSONReader(bytes)
        do throws(JSONSyntaxError) {
            try reader.beginArray()
            var values: [Double] = []
            while try reader.nextElement() {
                guard try reader.peek() == .number else { return nil }
                values.append(try reader.readNumber())
            }
            guard values.count == 2, values.allSatisfy(\.isFinite) else { return nil }
            return (values[0], values[1], reader.offset)
        } catch {
            return nil
        }
    }

    func testPlainPairsWithWhitespace() throws {
        for (text, a, b) in [
            ("[1,2]", 1.0, 2.0),
            (" [ 3202.32 ,\n3610.39\t] ", 3202.32, 3610.39),
            ("[-0,1e3]", -0.0, 1000.0),
            ("[0.000125,-12345678901234567890]", 0.000125, -12345678901234567890.0),
        ] {
            let pair = try XCTUnwrap(read(text), text)
            XCTAssertEqual(pair.0.bitPattern, a.bitPattern, text)
            XCTAssertEqual(pair.1.bitPattern, b.bitPattern, text)
        }
    }

    func testAnythingElseIsLeftForTheGeneralPath() {
        for text in [
            "[1]", "[1,2,3]", "[1,2,]", "[,1,2]", "[1 2]", "[1,,2]", "[\"1\",2]", "[01,2]", "[1e999,2]", "[1,-1e999]",
            "[1,2", "[1,null]", "[[1],2]", "{}", "[]", "", "1,2", "[1.,2]", "[-,2]", "[1,2}",
        ] {
            XCTAssertNil(read(text), text)
        }
    }

    /// A pair nested deeper than the reader allows is left to the general
    /// path, which reports the depth.
    func testDepthLimitIsKept() {
        XCTAssertNil(read("[1,2]", maxDepth: 0))
        XCTAssertNotNil(read("[1,2]", maxDepth: 1))
    }

    /// Every prefix and one-byte edit of a pair: the fast path reads what
    /// the general path reads and ends where it ends, or leaves it alone.
    func testEditsAgreeWithTheGeneralPath() {
        var read = 0
        forEachEdit(of: Array(" [ -3202.32e1 , 0.5 ] ".utf8), replacements: Array("[], -.e0 9x".utf8)) { bytes in
            bytes.withUnsafeBufferPointer { buffer in
                var reader = JSONReader(buffer)
                let text = String(decoding: bytes, as: UTF8.self)
                guard let pair = reader.readPlainPair() else { return XCTAssertEqual(reader.offset, 0, text) }
                read += 1
                let expected = general(buffer)
                XCTAssertEqual(expected?.0.bitPattern, pair.0.bitPattern, text)
                XCTAssertEqual(expected?.1.bitPattern, pair.1.bitPattern, text)
                XCTAssertEqual(expected?.offset, reader.offset, text)
            }
        }
        XCTAssertGreaterThan(read, 50, "edits that keep a plain pair")
    }
}

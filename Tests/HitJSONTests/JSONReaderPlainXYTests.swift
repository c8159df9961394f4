import XCTest

@testable import HitJSON

/// `readPlainXY()`: reads exactly `{"x": n, "y": n}` (either order) and
/// leaves the reader where it was for anything else.
final class JSONReaderPlainXYTests: XCTestCase {
    /// The values read from `text` (then the reader must be just past its
    /// closing brace), or nil (then the reader must not have moved).
    func read(_ text: String) -> (x: Double, y: Double)? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            let xy = reader.readPlainXY()
            let end = (bytes.lastIndex(of: UInt8(ascii: "}")) ?? -1) + 1
            XCTAssertEqual(reader.offset, xy == nil ? 0 : end, text)
            return xy
        }
    }

    func testPlainPointsInEitherOrderWithWhitespace() throws {
        for (text, x, y) in [
            (#"{"x":1,"y":2}"#, 1.0, 2.0),
            (#"{"y":2,"x":1}"#, 1.0, 2.0),
            (" {\n\"x\" :\t-0.5 , \"y\": 1e3 } ", -0.5, 1000.0),
            (#"{"x":123.45,"y":-0}"#, 123.45, -0.0),
        ] {
            let xy = try XCTUnwrap(read(text), text)
            XCTAssertEqual(xy.x, x, text)
            XCTAssertEqual(xy.y.bitPattern, y.bitPattern, text)
        }
    }

    func testAnythingElseIsLeftForTheGeneralPath() {
        for text in [
            #"{"x":1}"#, #"{"x":1,"x":2}"#, #"{"x":1,"y":2,}"#, #"{"x":1,"y":2,"z":3}"#, #"{"\u0078":1,"y":2}"#,
            #"{"x":"1","y":2}"#, #"{"x":01,"y":2}"#, #"{"x":1e999,"y":2}"#, #"{"x":1,"y":2"#, #"{"x":1 "y":2}"#,
            #"{"xx":1,"y":2}"#, #"[1,2]"#, #"{}"#, "", #"{"x":1,"y":2,"pointer":"a","phase":"down"}"#,
        ] {
            XCTAssertNil(read(text), text)
        }
    }

    /// Every truncation of a plain point is refused without moving the reader.
    func testTruncationsAreRefused() {
        let text = #"{ "x": 12.5, "y": -3 }"#
        for n in 0..<text.utf8.count { XCTAssertNil(read(String(text.prefix(n)))) }
    }
}

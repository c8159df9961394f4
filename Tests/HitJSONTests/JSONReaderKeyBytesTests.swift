import TestSupport
import XCTest

@testable import HitJSON

/// `nextKeyBytes()` against `nextKey()`: the same keys (raw bytes that decode
/// to the same string), the same errors at the same offsets, the same
/// position afterwards; byte by byte over truncations and one-byte edits.
/// And `checkpoint`/`rewind(to:)`, which the batch decoder's fast path uses
/// with them.
final class JSONReaderKeyBytesTests: XCTestCase {
    /// Walks every object member of `bytes` (skipping values) one way; a
    /// transcript of keys, end offsets and the error that stopped it.
    func walk(_ buffer: UnsafeBufferPointer<UInt8>, raw: Bool) -> [String] {
        var r = JSONReader(buffer)
        var log: [String] = []
        do throws(JSONSyntaxError) {
            try r.beginObject()
            while true {
                let key: String?
                if raw {
                    if let (bytes, escaped) = try r.nextKeyBytes() {
                        // Unescaped, the bytes are the key; escaped, they decode to it.
                        let text = String(decoding: bytes, as: UTF8.self)
                        key = escaped ? JSONReaderKeyBytesTests.unescape(text) : text
                        XCTAssertEqual(escaped, bytes.contains(UInt8(ascii: "\\")))
                    } else {
                        key = nil
                    }
                } else {
                    key = try r.nextKey()
                }
                guard let key else { break }
                log.append("\(key) @\(r.offset)")
                try r.skipValue()
            }
            try r.finish()
            log.append("end @\(r.offset)")
        } catch {
            log.append("error \(error.offset): \(error.message)")
        }
        return log
    }

    /// Decodes escaped key text by parsing it as a JSON string.
    static func unescape(_ text: String) -> String {
        let quoted = Array(("\"" + text + "\"").utf8)
        return quoted.withUnsafeBufferPointer { b in
            var r = JSONReader(b)
            return (try? r.readString()) ?? "<bad>"
        }
    }

    func assertAgree(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        _ = inEveryLayout(bytes, file: file, line: line) { b -> [String] in
            let raw = walk(b, raw: true)
            let decoded = walk(b, raw: false)
            XCTAssertEqual(raw, decoded, String(decoding: bytes, as: UTF8.self), file: file, line: line)
            return raw
        }
    }

    func testKeysAndErrorsAgreeWithNextKey() {
        for text in [
            #"{}"#, #" { "x" : 1 , "y":2 } "#, #"{"\u0078":1,"a\"b":2,"\\":3,"é":4,"\ud83d\ude00":5}"#,
            #"{"x":1,}"#, #"{"x" 1}"#, #"{x:1}"#, #"{"x":1"y":2}"#, #"{"x"#, #"{"x\u00":1}"#, "{\"\u{1}\":1}",
            #"{"\ud800":1}"#, #"{"\q":1}"#, #"{,"x":1}"#, #"[1]"#,
        ] {
            assertAgree(Array(text.utf8))
        }
    }

    func testEveryTruncationAndOneByteEditAgrees() {
        let body = Array(#"{"x":1,"pointer":"p","\u0070hase":{"a":[1,"\""]}, "é":null}"#.utf8)
        forEachEdit(of: body, replacements: Array(#"{}[],:"\ xu0"#.utf8) + [0x00, 0x80, 0xC3]) { assertAgree($0) }
    }

    /// A reader rewound to a checkpoint at an array element reads that
    /// element and what follows the same way again, failures included, as a
    /// copy of the reader made at the checkpoint does.
    func testRewindReadsTheSameAgain() {
        let text = Array(#"[{"x":1,"y":[2,{"z":"w"}]}, {"x":-0.5e1}, 7, "s", {"bad" 1}]"#.utf8)
        text.withUnsafeBufferPointer { b in
            /// Reads the element here by keys and values, then the rest of the array.
            func rest(_ r: inout JSONReader) -> [String] {
                var seen: [String] = []
                do throws(JSONSyntaxError) {
                    if try r.peek() == .object {
                        try r.beginObject()
                        while let (key, escaped) = try r.nextKeyBytes() {
                            seen.append("\(String(decoding: key, as: UTF8.self)) \(escaped)")
                            try r.skipValue()
                        }
                    } else {
                        try r.skipValue()
                    }
                    seen.append("@\(r.offset) depth \(r.currentDepth)")
                    while try r.nextElement() {
                        try r.skipValue()
                        seen.append("@\(r.offset)")
                    }
                } catch {
                    seen.append("error \(error.offset) \(error.message)")
                }
                return seen
            }
            for k in 0..<5 {
                var r = JSONReader(b)
                try? r.beginArray()
                for _ in 0..<k {
                    _ = try? r.nextElement()
                    try? r.skipValue()
                }
                XCTAssertEqual(try? r.nextElement(), true)
                let mark = r.checkpoint
                let copy = r
                var firstReader = r
                let first = rest(&firstReader)
                XCTAssertTrue(first.last?.hasPrefix("error") ?? false)
                // Rewind from inside the element (after its first member) and from the failure at the end.
                var inside = r
                if (try? inside.peek()) == .object {
                    try? inside.beginObject()
                    _ = try? inside.nextKeyBytes()
                }
                inside.rewind(to: mark)
                XCTAssertEqual(rest(&inside), first, "element \(k), from inside")
                firstReader.rewind(to: mark)
                XCTAssertEqual(rest(&firstReader), first, "element \(k), from the end")
                var c = copy
                XCTAssertEqual(rest(&c), first)
            }
        }
    }
}

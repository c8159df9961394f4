import SceneCodec
import TestSupport
import XCTest

@testable import HitAPI

/// A stream message ending in `,"seq":N}` is read without the reporting
/// decoder (`StreamMessage.plainWithSeq`); whenever it is, the full
/// decoder gives the same query and `seq`.
final class StreamMessageFastPathTests: XCTestCase {
    /// What the fast path gives (nil: it declined) and what the full decoder gives.
    func decodeBoth(_ text: String) -> (fast: (HitQuery, StreamSeq?)?, full: Result<(HitQuery, StreamSeq?), DecodeFailure>) {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { b in
            let fast = StreamMessage.plainWithSeq(b)
            let full = Result { () throws(DecodeFailure) in try StreamMessage.decode(b, fastPath: false) }
            return (fast, full)
        }
    }

    func assertSame(_ text: String, fast expected: Bool, file: StaticString = #filePath, line: UInt = #line) {
        let (fast, full) = decodeBoth(text)
        XCTAssertEqual(fast != nil, expected, "fast path for \(text)", file: file, line: line)
        guard let fast else { return }
        guard case .success(let (query, seq)) = full else {
            return XCTFail("\(text): fast path read what the decoder refuses", file: file, line: line)
        }
        XCTAssertEqual(fast.0, query, text, file: file, line: line)
        XCTAssertEqual(fast.1, seq, text, file: file, line: line)
    }

    func testTheUsualMessagesTakeTheFastPath() {
        assertSame(#"{"x":12.5,"y":120,"pointer":"p3","phase":"hover","trace":false,"seq":17}"#, fast: true)
        assertSame(#"{"x":12.5,"y":120,"trace":false,"seq":1}"#, fast: true)
        assertSame(#"{"x":-1e3,"y":0,"pointer":"a","phase":"down","pointerType":"touch","all":true,"seq":0}"#, fast: true)
        assertSame(#"{"x":1,"y":2,"seq":999999999999999}"#, fast: true)
        assertSame(#"{"y":2,"x":1,"seq":123456789012345}"#, fast: true)
    }

    func testAnythingElseGoesToTheFullDecoder() {
        for text in [
            #"{"x":1,"y":2,"seq":01}"#,  // a leading zero: no JSON number
            #"{"x":1,"y":2,"seq":1234567890123456}"#,  // 16 digits
            #"{"x":1,"y":2,"seq":-1}"#,
            #"{"x":1,"y":2,"seq":1.5}"#,
            #"{"x":1,"y":2,"seq":"a"}"#,
            #"{"x":1,"y":2,"seq":1 }"#,
            #"{"x":1,"y":2, "seq":1}"#.replacingOccurrences(of: ", ", with: ",\n"),
            #"{"seq":2,"x":1,"y":2,"seq":1}"#,  // a duplicate
            #"{"seq":1}"#,
            #"{,"seq":1}"#,
            #"{"x":1,"y":2,,"seq":1}"#,
            #"{"x":1,"y":2} ,"seq":1}"#,
            #"{"x":1,"y":2,"pointer":"a\",\"seq\":1}"}"#,
            #"{"x":1,"y":2,"pointer":"a\"}","seq":1}"#,
            #"{"x":1,"y":2,"phase":"hover","seq":1}"#,  // a phase without a pointer
            #"{"x":1,"y":2,"z":3,"seq":1}"#,
            #"[1,"seq":1}"#,
            #","seq":1}"#,
        ] {
            assertSame(text, fast: false)
        }
        // Declined, but the full decoder still reads it.
        assertSame(#"{"x":1,"y":2,"pointer":"a\",\"seq\":1}","phase":"hover","seq":3}"#, fast: true)
    }

    /// Seeded byte edits of usual messages: wherever the fast path reads
    /// one, the full decoder reads the same.
    func testEditedMessagesAgreeWithTheFullDecoder() {
        let seeds: [String] = [
            #"{"x":12.5,"y":120,"pointer":"p3","phase":"hover","trace":false,"seq":17}"#,
            #"{"x":1,"y":2,"seq":5}"#,
        ]
        let alphabet = Array(#"{}[]",:0123456789-.eExyseqpointerphasehover\ "#.utf8)
        var rng = SplitMix64(seed: 34)
        var fastSeen = 0
        for i in 0..<20_000 {
            var bytes = Array(seeds[i % seeds.count].utf8)
            for _ in 0...(rng.next() % 3) {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
                default: bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard String(validating: bytes, as: UTF8.self) != nil else { continue }
            let (fast, full) = decodeBoth(text)
            guard let fast else { continue }
            fastSeen += 1
            guard case .success(let (query, seq)) = full else { return XCTFail("seed \(i): \(text) read fast, refused in full") }
            XCTAssertEqual(fast.0, query, "seed \(i): \(text)")
            XCTAssertEqual(fast.1, seq, "seed \(i): \(text)")
        }
        XCTAssertGreaterThan(fastSeen, 300)
    }
}

import Foundation
import XCTest

@testable import HitImage

/// zlib and DEFLATE: Python's zlib as the oracle (Tests/Corpus/zlib), hand-made
/// blocks, and every way a stream can be wrong.
final class InflateTests: XCTestCase {
    func inflate(_ stream: [UInt8], size: Int) -> Result<[UInt8], InflateError> {
        var out = [UInt8](repeating: 0xAA, count: size)
        let result = stream.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                Result { () throws(InflateError) -> Int in try Inflate.zlib(input, into: output) }
            }
        }
        return result.map { _ in out }
    }

    func assertInflateError(
        _ stream: [UInt8], size: Int, _ message: String, offset: Int? = nil, file: StaticString = #filePath, line: UInt = #line
    ) {
        switch inflate(stream, size: size) {
        case .success: XCTFail("inflated", file: file, line: line)
        case .failure(let e):
            XCTAssertEqual(e.message, message, file: file, line: line)
            if let offset { XCTAssertEqual(e.offset, offset, file: file, line: line) }
        }
    }

    func testPythonZlibCorpus() throws {
        let dir = corpusDirectory.deletingLastPathComponent().appendingPathComponent("zlib")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".z") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 50)
        var kinds = Set<Int>()
        for name in names {
            let stream = [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
            let content = String(name.prefix { $0 != "-" })
            let raw = [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(content).raw")))
            XCTAssertEqual(try inflate(stream, size: raw.count).get(), raw, name)
            kinds.insert(Int(stream[2] >> 1) & 3)
            // One byte more room than the stream fills is refused, as is one less.
            XCTAssertThrowsError(try inflate(stream, size: raw.count + 1).get(), name)
            if raw.count > 0 { XCTAssertThrowsError(try inflate(stream, size: raw.count - 1).get(), name) }
        }
        XCTAssertEqual(kinds, [0, 1, 2], "stored, fixed and dynamic first blocks")
    }

    func testEveryPrefixOfAStreamIsRefused() throws {
        let dir = corpusDirectory.deletingLastPathComponent().appendingPathComponent("zlib")
        for name in ["text-l9-default-w15", "runs-l6-fixed-w15", "zeros-l0-default-w15", "text-l6-huffman-w15"] {
            let stream = [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(name).z")))
            let raw = [UInt8](try Data(contentsOf: dir.appendingPathComponent("\(name.prefix { $0 != "-" }).raw")))
            for n in Swift.stride(from: 0, to: stream.count, by: max(1, stream.count / 300)) {
                XCTAssertThrowsError(try inflate(Array(stream[..<n]), size: raw.count).get(), "\(name) cut at \(n)")
            }
        }
    }

    func testStoredBlocks() {
        let data = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        XCTAssertEqual(try inflate(PNGBuilder.zlibStored(data), size: data.count).get(), data)
        XCTAssertEqual(try inflate(PNGBuilder.zlibStored([]), size: 0).get(), [])
    }

    func testFixedBlockWithOverlappingMatch() {
        var w = BitWriter()
        w.write(1, bits: 1)  // final
        w.write(1, bits: 2)  // fixed
        for c in "abc".utf8 { w.writeFixed(Int(c)) }
        w.writeFixed(265)  // length 11 + 1 extra bit
        w.write(1, bits: 1)  // length 12
        w.writeCode(2, length: 5)  // distance 3
        w.writeFixed(256)
        let expected = Array("abcabcabcabcabc".utf8)
        XCTAssertEqual(try inflate(zlibWrap(w.bytes, checksumOf: expected), size: expected.count).get(), expected)
    }

    func testHeaderErrors() {
        assertInflateError([], size: 1, "zlib stream is truncated in its header", offset: 0)
        assertInflateError([0x78], size: 1, "zlib stream is truncated in its header", offset: 1)
        assertInflateError([0x77, 0x01], size: 1, "zlib compression method 7 is not deflate (8)", offset: 0)
        assertInflateError([0x88, 0x01], size: 1, "zlib window size 2^16 is larger than 32 KiB", offset: 0)
        assertInflateError([0x78, 0x02], size: 1, "zlib header check bits are wrong", offset: 1)
        assertInflateError([0x78, 0xBB, 0, 0, 0, 0], size: 1, "zlib preset dictionary is not allowed", offset: 1)
    }

    func testBlockErrors() {
        assertInflateError([0x78, 0x01, 0x07], size: 1, "deflate block type 3 is reserved")
        assertInflateError(
            [0x78, 0x01, 0x01, 1, 0, 0xFF, 0xFF, 9], size: 1, "deflate stored block length does not match its complement", offset: 3)
        assertInflateError([0x78, 0x01, 0x01, 5, 0, 0xFA, 0xFF, 9], size: 5, "zlib stream is truncated in a stored block", offset: 8)
        assertInflateError(PNGBuilder.zlibStored([1, 2, 3]), size: 2, "image data inflates past the 2 bytes its header allows", offset: 7)
        assertInflateError(
            PNGBuilder.zlibStored([1, 2, 3]), size: 4, "image data ends after 3 of the 4 bytes its header implies", offset: 10)
        var bad = PNGBuilder.zlibStored([1, 2, 3])
        bad[bad.count - 1] ^= 1
        assertInflateError(bad, size: 3, "zlib Adler-32 checksum does not match the data", offset: 10)
        assertInflateError(Array(bad.dropLast()), size: 3, "zlib stream is truncated before its Adler-32 checksum", offset: 13)
    }

    func testFixedBlockErrors() {
        func fixed(_ body: (inout BitWriter) -> Void) -> [UInt8] {
            var w = BitWriter()
            w.write(1, bits: 1)
            w.write(1, bits: 2)
            body(&w)
            return [0x78, 0x01] + w.bytes + [0, 0, 0, 0]
        }
        assertInflateError(fixed { $0.writeFixed(286) }, size: 9, "deflate literal/length code is invalid")
        assertInflateError(
            fixed {
                $0.writeFixed(65)
                $0.writeFixed(257)
                $0.writeCode(30, length: 5)
            }, size: 9, "deflate distance code is invalid")
        assertInflateError(
            fixed {
                $0.writeFixed(65)
                $0.writeFixed(257)
                $0.writeCode(1, length: 5)
            }, size: 9, "deflate distance 2 reaches before the start of the data")
        assertInflateError(
            fixed {
                $0.writeFixed(257)
                $0.writeCode(0, length: 5)
            }, size: 9, "deflate distance 1 reaches before the start of the data")
        assertInflateError(
            fixed {
                $0.writeFixed(65)
                $0.writeFixed(65)
            }, size: 1, "image data inflates past the 1 bytes its header allows")
        // A fixed block that never ends: the stream runs out.
        assertInflateError(fixed { $0.writeFixed(65) }.dropLast(4), size: 9, "zlib stream is truncated")
    }

    /// Dynamic block headers: HLIT/HDIST ranges, code-length runs, and codes
    /// that are over-subscribed, incomplete or lack an end-of-block code.
    func testDynamicBlockErrors() {
        /// A dynamic block whose code-length code gives symbols 0–18 the lengths in `clLengths`
        /// (in the RFC's order) and then the code-length symbols `symbols` (each written with a
        /// complete 5-bit code: every code-length symbol gets length 5 when clLengths is nil).
        func dynamic(hlit: Int = 0, hdist: Int = 0, _ symbols: [(Int, Int, Int)]) -> [UInt8] {
            var w = BitWriter()
            w.write(1, bits: 1)
            w.write(2, bits: 2)
            w.write(hlit, bits: 5)
            w.write(hdist, bits: 5)
            w.write(15, bits: 4)  // 19 code-length code lengths
            for _ in 0..<19 { w.write(5, bits: 3) }  // symbols 0..18 all length 5: codes 0..18 of 32 → incomplete
            for (symbol, extra, extraBits) in symbols {
                w.writeCode(symbol, length: 5)
                w.write(extra, bits: extraBits)
            }
            return [0x78, 0x01] + w.bytes + [0, 0, 0, 0, 0, 0, 0, 0]
        }
        assertInflateError(dynamic([]), size: 9, "deflate code-length code is incomplete")
        assertInflateError(dynamic(hlit: 30, []), size: 9, "deflate dynamic block has 287 literal/length codes (at most 286)")
        assertInflateError(dynamic(hdist: 30, []), size: 9, "deflate dynamic block has 31 distance codes (at most 30)")
    }

    /// A dynamic block with a complete code-length code (symbols 0–12 of 4 bits,
    /// 13–18 of 5 bits) followed by the code-length symbols `symbols`
    /// (symbol, extra value, extra bits), then `tail` bits written by the caller.
    func dynamicComplete(hlit: Int = 0, hdist: Int = 0, _ symbols: [(Int, Int, Int)], adler: [UInt8] = [0, 0, 0, 1]) -> [UInt8] {
        var w = BitWriter()
        w.write(1, bits: 1)
        w.write(2, bits: 2)
        w.write(hlit, bits: 5)
        w.write(hdist, bits: 5)
        w.write(15, bits: 4)
        for s in [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15] { w.write(s <= 12 ? 4 : 5, bits: 3) }
        for (symbol, extra, extraBits) in symbols {
            if symbol <= 12 { w.writeCode(symbol, length: 4) } else { w.writeCode(26 + symbol - 13, length: 5) }
            w.write(extra, bits: extraBits)
        }
        return [0x78, 0x01] + w.bytes + adler
    }

    /// Code-length symbols for `lengths`, with zero runs as symbol 18.
    func runLengths(_ lengths: [Int]) -> [(Int, Int, Int)] {
        var out: [(Int, Int, Int)] = []
        var i = 0
        while i < lengths.count {
            var run = 0
            while i + run < lengths.count && lengths[i + run] == 0 && run < 138 { run += 1 }
            if run >= 11 {
                out.append((18, run - 11, 7))
                i += run
            } else {
                out.append((lengths[i], 0, 0))
                i += 1
            }
        }
        return out
    }

    func testDynamicCodeLengthErrors() {
        assertInflateError(dynamicComplete([(16, 0, 2)]), size: 9, "deflate code length repeat (16) has no previous length")
        assertInflateError(dynamicComplete([(18, 127, 7), (18, 127, 7)]), size: 9, "deflate code length repeat runs past the 258 lengths")
        assertInflateError(
            dynamicComplete([(1, 0, 0), (16, 3, 2), (17, 7, 3), (18, 127, 7), (18, 127, 7)]), size: 9,
            "deflate code length repeat runs past the 258 lengths")
        assertInflateError(
            dynamicComplete(runLengths([Int](repeating: 0, count: 258))), size: 9, "deflate dynamic block has no end-of-block code")
        var three = [Int](repeating: 0, count: 258)
        three[0] = 1
        three[1] = 1
        three[256] = 1
        assertInflateError(dynamicComplete(runLengths(three)), size: 9, "deflate literal/length code is over-subscribed")
        var two = [Int](repeating: 0, count: 258)
        two[0] = 2
        two[256] = 2
        assertInflateError(dynamicComplete(runLengths(two)), size: 9, "deflate literal/length code is incomplete")
        var badDistances = [Int](repeating: 0, count: 258 + 2)
        badDistances[256] = 1
        badDistances[0] = 1
        badDistances[258] = 2
        badDistances[259] = 3
        assertInflateError(dynamicComplete(hdist: 2, runLengths(badDistances)), size: 9, "deflate distance code is incomplete")
    }

    /// RFC 1951 allows a code with a single one-bit symbol: here only end-of-block.
    func testDynamicBlockWithOnlyEndOfBlock() {
        var lengths = [Int](repeating: 0, count: 258)
        lengths[256] = 1
        var stream = dynamicComplete(runLengths(lengths))
        // The end-of-block code (0, one bit) follows the code lengths: it is already in the
        // trailing zero bits of the last byte, or needs a zero byte; Adler-32 of nothing is 1.
        XCTAssertEqual(try inflate(stream, size: 0).get(), [])
        stream.insert(0, at: stream.count - 4)
        XCTAssertThrowsError(try inflate(stream, size: 0).get())  // that zero byte is not the checksum
    }
}

import RESP
import TestSupport
import XCTest

/// `RESPReader`: a reply read as it arrives, each byte parsed once.
final class RESPReaderTests: XCTestCase {
    /// Feeds `bytes` in `pieces` as `RedisConnection` does: what the reader
    /// consumed is dropped, the rest is passed again with the next piece.
    /// Returns the replies and the error, with the largest number of bytes
    /// ever held unconsumed after a call that returned no reply.
    func feed(_ bytes: [UInt8], pieces: [Int], limits: RESPLimits = RESPLimits()) -> (
        values: [RESPValue], error: RESPParseError?, held: Int
    ) {
        var reader = RESPReader(limits: limits)
        var buffer: [UInt8] = []
        var values: [RESPValue] = []
        var held = 0
        var at = 0
        var k = 0
        while at < bytes.count {
            let n = min(bytes.count - at, max(1, k < pieces.count ? pieces[k] : bytes.count))
            k += 1
            buffer += bytes[at..<(at + n)]
            at += n
            var start = 0
            while start < buffer.count {
                do throws(RESPParseError) {
                    let (value, end) = try buffer.withUnsafeBufferPointer { (b) throws(RESPParseError) in try reader.read(b, from: start) }
                    start = end
                    guard let value else { break }
                    values.append(value)
                } catch {
                    return (values, error, held)
                }
            }
            buffer.removeFirst(start)
            held = max(held, buffer.count)
        }
        return (values, nil, held)
    }

    /// Whole, byte by byte and in random pieces: the same replies.
    func testEverySplitGivesTheSameReplies() throws {
        let stream = RESPParserTests.sample + Array(":1\r\n*2\r\n*0\r\n$3\r\nabc\r\n".utf8) + RESPParserTests.sample
        let whole = feed(stream, pieces: [stream.count])
        XCTAssertEqual(
            whole.values,
            [RESPParserTests.sampleValue, .integer(1), .array([.array([]), .bulk(Array("abc".utf8))]), RESPParserTests.sampleValue])
        XCTAssertNil(whole.error)
        XCTAssertEqual(feed(stream, pieces: Array(repeating: 1, count: stream.count)).values, whole.values)
        var rng = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let pieces = (0..<stream.count).map { _ in 1 + Int(rng.next() % 17) }
            XCTAssertEqual(feed(stream, pieces: pieces).values, whole.values)
        }
    }

    /// An error is the same kind at the same offset (from the reply's first
    /// byte) however the reply was split.
    func testErrorsAreTheSameInEverySplit() {
        var small = RESPLimits()
        small.maxDepth = 2
        for text in ["*2\r\n:1\r\n:x\r\n", "*1\r\n*1\r\n*1\r\n:1\r\n", "*3\r\n$2\r\nab\r\n$2\r\nabX\r\n", ":5\r\n*2\r\n+a\r\n?\r\n"] {
            let bytes = Array(text.utf8)
            let whole = feed(bytes, pieces: [bytes.count], limits: small)
            XCTAssertNotNil(whole.error, text)
            for split in 1..<bytes.count {
                XCTAssertEqual(feed(bytes, pieces: [split], limits: small).error, whole.error, "\(text) split at \(split)")
            }
            XCTAssertEqual(feed(bytes, pieces: Array(repeating: 1, count: bytes.count), limits: small).error, whole.error, text)
        }
    }

    /// Nothing is read twice: what the reader leaves unconsumed between
    /// reads is never more than one element. Parsing again from the reply's
    /// start held all of it, and cost seconds for a million elements.
    func testAnArrayOfManyElementsIsConsumedAsItArrives() {
        let count = 100_000
        let bytes = Array("*\(count)\r\n".utf8) + Array(repeating: Array(":7\r\n".utf8), count: count).joined()
        var rng = SplitMix64(seed: 3)
        let pieces = (0..<bytes.count).map { _ in 1 + Int(rng.next() % 5000) }
        let r = feed(bytes, pieces: pieces)
        XCTAssertEqual(r.values.count, 1)
        XCTAssertEqual(r.values.first, .array(Array(repeating: .integer(7), count: count)))
        XCTAssertLessThan(r.held, 4)  // at most a cut ":7\r"
    }

    /// A reply longer than `maxReplyBytes` is refused as soon as more than
    /// that many of its bytes are here, however its elements nest.
    func testAReplyPastItsByteLimitIsRefusedAsSoonAsItIsLonger() {
        var limits = RESPLimits()
        limits.maxReplyBytes = 100
        // 4 + 3 × 45 bytes.
        let nested = Array(("*3\r\n" + String(repeating: "*10\r\n" + String(repeating: ":1\r\n", count: 10), count: 3)).utf8)
        let expected = RESPParseError(.replyTooLong, at: 100)
        XCTAssertThrowsError(try RESPParser.parse(nested, limits: limits)) { XCTAssertEqual($0 as? RESPParseError, expected) }
        XCTAssertEqual(feed(nested, pieces: Array(repeating: 1, count: nested.count), limits: limits).error, expected)
        // Its first 101 bytes, the rest never sent: refused without waiting.
        XCTAssertEqual(feed(Array(nested[0..<101]), pieces: [60, 41], limits: limits).error, expected)
        // At the limit exactly it is a reply, and the next reply starts afresh.
        limits.maxReplyBytes = nested.count
        let twice = feed(nested + nested, pieces: [nested.count - 3, 50], limits: limits)
        XCTAssertNil(twice.error)
        XCTAssertEqual(twice.values.count, 2)
    }
}

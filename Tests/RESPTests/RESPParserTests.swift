import RESP
import TestSupport
import XCTest

final class RESPParserTests: XCTestCase {
    /// Every kind of value, nested, as one reply.
    static let sample: [UInt8] = Array(
        "*7\r\n+OK\r\n-ERR no such key\r\n:-42\r\n$5\r\nh\r\nl\u{0}\r\n$-1\r\n*-1\r\n*2\r\n$0\r\n\r\n*1\r\n:9223372036854775807\r\n".utf8)
    static let sampleValue: RESPValue = .array([
        .simple("OK"), .error("ERR no such key"), .integer(-42), .bulk(Array("h\r\nl\u{0}".utf8)), .bulk(nil), .array(nil),
        .array([.bulk([]), .array([.integer(Int.max)])]),
    ])

    func parse(_ bytes: [UInt8], limits: RESPLimits = RESPLimits()) throws(RESPParseError) -> (value: RESPValue, end: Int)? {
        try RESPParser.parse(bytes, limits: limits)
    }

    func testWholeSample() throws {
        let r = try XCTUnwrap(try parse(Self.sample))
        XCTAssertEqual(r.value, Self.sampleValue)
        XCTAssertEqual(r.end, Self.sample.count)
    }

    func testEncoderRoundTrips() throws {
        var out: [UInt8] = []
        RESPEncoder.append(Self.sampleValue, to: &out)
        XCTAssertEqual(out, Self.sample)
        XCTAssertEqual(RESPEncoder.command([Array("GET".utf8), Array("k".utf8)]), Array("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n".utf8))
    }

    /// Every proper prefix is "not yet", never a value or an error.
    func testEveryPrefixIsIncomplete() throws {
        for n in 0..<Self.sample.count {
            XCTAssertNil(try parse(Array(Self.sample[0..<n])), "prefix of \(n) bytes")
        }
    }

    /// Split at every offset, as a socket may deliver it: the first part is
    /// incomplete, the whole (with a following value) parses the same.
    func testSplitAtEveryOffsetThenPipelined() throws {
        let two = Self.sample + Array(":1\r\n".utf8)
        for split in 0..<Self.sample.count {
            XCTAssertNil(try parse(Array(two[0..<split])))
            let first = try XCTUnwrap(try parse(two))
            XCTAssertEqual(first.value, Self.sampleValue)
            let second = try XCTUnwrap(try RESPParser.parse(two, from: first.end))
            XCTAssertEqual(second.value, .integer(1))
            XCTAssertEqual(second.end, two.count)
        }
    }

    /// Every one-byte edit (replaced by each interesting byte, dropped,
    /// doubled) gives a value, "not yet", or an error at an offset inside
    /// the input: never a trap, and a value's end is within the bytes.
    func testEveryOneByteEditIsAValueOrAPreciseError() {
        let replacements = Array("+-:$*0123456789\r\n\u{0}xA".utf8) + [0xFF]
        var outcomes = (values: 0, incomplete: 0, errors: 0)
        forEachEdit(of: Self.sample, replacements: replacements) { bytes in
            do throws(RESPParseError) {
                if let r = try parse(bytes) {
                    XCTAssertLessThanOrEqual(r.end, bytes.count)
                    outcomes.values += 1
                } else {
                    outcomes.incomplete += 1
                }
            } catch {
                XCTAssertTrue((0..<max(1, bytes.count)).contains(error.offset), "\(error) for \(bytes.count) bytes")
                outcomes.errors += 1
            }
        }
        XCTAssertGreaterThan(outcomes.values, 0)
        XCTAssertGreaterThan(outcomes.errors, 0)
    }

    func testErrorsNameKindAndOffset() {
        func expect(_ text: String, _ kind: RESPParseError.Kind, at offset: Int, limits: RESPLimits = RESPLimits(), line: UInt = #line) {
            XCTAssertThrowsError(try parse(Array(text.utf8), limits: limits), line: line) { e in
                XCTAssertEqual(e as? RESPParseError, RESPParseError(kind, at: offset), line: line)
            }
        }
        expect("?x\r\n", .unknownType(UInt8(ascii: "?")), at: 0)
        expect("*1\r\n_\r\n", .unknownType(UInt8(ascii: "_")), at: 4)  // RESP3 null: not RESP2
        expect(":12a\r\n", .badInteger, at: 3)
        expect(":\r\n", .badInteger, at: 1)
        expect(":-\r\n", .badInteger, at: 2)
        expect(":9223372036854775808\r\n", .badInteger, at: 19)
        expect(":x", .badInteger, at: 1)  // garbage is an error before its line ends
        expect("$-2\r\n", .negativeLength, at: 1)
        expect("*-5\r\n", .negativeLength, at: 1)
        expect("$3\r\nabcX\r\n", .badLineEnd, at: 7)
        expect("$3\r\nabc\rX", .badLineEnd, at: 8)
        expect("+O\rK\r\n", .badLineEnd, at: 3)
        expect("+O\nK\r\n", .badLineEnd, at: 2)
        var small = RESPLimits()
        small.maxBulkBytes = 4
        small.maxElements = 2
        small.maxDepth = 2
        small.maxLineBytes = 8
        expect("$5\r\n", .bulkTooLong, at: 1, limits: small)
        expect("*3\r\n", .tooManyElements, at: 1, limits: small)
        expect("*1\r\n*1\r\n*1\r\n:1\r\n", .tooDeep, at: 8, limits: small)
        expect("+123456789", .lineTooLong, at: 9, limits: small)
        XCTAssertNoThrow(try parse(Array("$4\r\nabcd\r\n".utf8), limits: small))
        XCTAssertNoThrow(try parse(Array("*1\r\n*1\r\n:1\r\n".utf8), limits: small))
    }

    /// A deep nest of arrays is refused at the limit, not by the stack.
    func testDeepNestingIsBounded() {
        let bytes = Array(String(repeating: "*1\r\n", count: 100_000).utf8)
        XCTAssertThrowsError(try parse(bytes)) { e in
            XCTAssertEqual((e as? RESPParseError)?.kind, .tooDeep)
        }
    }

    /// A hostile element count allocates nothing before its elements come.
    func testHugeCountsAreIncompleteNotAllocated() throws {
        XCTAssertNil(try parse(Array("*1048576\r\n".utf8)))
        XCTAssertNil(try parse(Array("$536870912\r\nabc".utf8)))
    }

    /// Seeded random values round-trip through the encoder and the parser,
    /// whole and split in two at a random offset.
    func testRandomValuesRoundTrip() throws {
        var rng = SplitMix64(seed: 18)
        func value(_ depth: Int) -> RESPValue {
            switch rng.next() % (depth > 3 ? 5 : 7) {
            case 0: return .simple(String(repeating: "s", count: Int(rng.next() % 5)))
            case 1: return .error("ERR \(rng.next() % 100)")
            case 2: return .integer(Int(truncatingIfNeeded: rng.next()))
            case 3: return .bulk((0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            case 4: return .bulk(nil)
            case 5: return .array(nil)
            default: return .array((0..<Int(rng.next() % 4)).map { _ in value(depth + 1) })
            }
        }
        for _ in 0..<2_000 {
            let v = value(0)
            var bytes: [UInt8] = []
            RESPEncoder.append(v, to: &bytes)
            let r = try XCTUnwrap(try parse(bytes))
            XCTAssertEqual(r.value, v)
            XCTAssertEqual(r.end, bytes.count)
            let cut = Int(rng.next() % UInt64(bytes.count))
            XCTAssertNil(try parse(Array(bytes[0..<cut])))
        }
    }
}

import TestSupport
import XCTest

@testable import HitJSON

/// `JSONWriter.appendShortest` (short decimals from their digits, others
/// through `write(to:)` into the writer's bytes)
/// against its oracle `Double.description`, and `number` against its
/// documented form, over awkward and random values.
final class JSONWriterShortestTests: XCTestCase {
    static let twoTo53 = 9_007_199_254_740_992.0

    /// Values at the edges: signed zeros, the extremes, subnormals, integers
    /// near 2^53 and 1e15/1e16, and values with many digits.
    static var edges: [Double] {
        var all: [Double] = [
            0, -0.0, 1, -1, 0.5, -0.5, 0.1, 0.2, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, -1.0 / 7, 120, 120.5, 120.25, 119.6, 120.37,
            1e-5, 1e-7, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 1e300, -1e300, 1e-300, 123_456.789_012_345, 0.000_123_456_789_012_345_67,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude,
            -.leastNonzeroMagnitude, .pi, -.pi, 2.225_073_858_507_201e-308, 4_503_599_627_370_495.5, .ulpOfOne,
        ]
        for k in -3...3 {
            all.append(twoTo53 + Double(k))
            all.append(-(twoTo53 + Double(k)))
            all.append(twoTo53 * 2 + Double(k * 2))
        }
        for e in -30...30 {
            all.append(1.5 * pow(10, Double(e)))
            all.append(-9.999_999_999_999_999 * pow(10, Double(e)))
        }
        return all
    }

    func shortest(_ d: Double) -> String {
        var w = JSONWriter(capacity: 1)  // every write grows the buffer from its smallest
        w.appendShortest(d)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func testShortestIsDescriptionAtTheEdges() {
        for d in Self.edges { XCTAssertEqual(shortest(d), d.description, "\(d.bitPattern)") }
    }

    func testShortestIsDescriptionForRandomBitsAndDecimals() {
        var g = SplitMix64(seed: 33)
        for _ in 0..<20_000 {
            let d = Double(bitPattern: g.next())
            if d.isFinite { XCTAssertEqual(shortest(d), d.description, "\(d.bitPattern)") }
            // Short decimals (client coordinates): k / 10^j.
            let e = Double(Int(g.next() % 1_000_000) - 500_000) / pow(10, Double(g.next() % 8))
            XCTAssertEqual(shortest(e), e.description, "\(e.bitPattern)")
        }
    }

    /// The short-decimal path over every k / 10^j it may take, at its
    /// bounds, and over random values in and around its range; with it,
    /// `appendShortest` is still `description`.
    func testShortDecimalsAreDescription() {
        var values: [Double] = [0.001, -0.001, 0.000_999_999_999_999_9, 99_999.999_999_999, 100_000, 99_999.5, 0.1 + 0.2, 0.3]
        var g = SplitMix64(seed: 10)
        for j in 0...10 {
            let scale = pow(10, Double(j))
            for _ in 0..<3_000 {
                let k = Double(Int(g.next() % 200_000_000_000_000) - 100_000_000_000_000)
                values.append(k / scale)
                values.append(Double(Int(g.next() % 2_000_000) - 1_000_000) / scale)
            }
        }
        for _ in 0..<20_000 {
            values.append(Double.random(in: -120_000...120_000, using: &g))
            values.append(Double.random(in: -2...2, using: &g))
            values.append(Double(Int(g.next() % 200_000_000)) / 1024)  // binary fractions (120.25)
        }
        var taken = 0
        for d in values where d.isFinite {
            XCTAssertEqual(shortest(d), d.description, "\(d.bitPattern)")
            var w = JSONWriter(capacity: 1)
            if w.appendShortDecimal(d) {
                taken += 1
                XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), d.description, "\(d.bitPattern)")
            }
        }
        XCTAssertGreaterThan(taken, 20_000)  // the path was taken, not skipped
    }

    /// `number` writes integral values below 2^53 as integers (`-0` for
    /// -0.0) and the rest as `description`, after whatever came before.
    func testNumberAgainstItsForm() {
        var g = SplitMix64(seed: 53)
        var values = Self.edges
        for _ in 0..<5_000 { values.append(Double(bitPattern: g.next())) }
        for d in values where d.isFinite {
            var w = JSONWriter(capacity: 1)
            w.beginArray()
            w.int(7)
            w.number(d)
            w.endArray()
            let expected: String
            if d.magnitude < Self.twoTo53 && d == d.rounded() {
                expected = d == 0 && d.sign == .minus ? "-0" : String(Int(d))
            } else {
                expected = d.description
            }
            XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), "[7,\(expected)]", "\(d.bitPattern)")
        }
    }

    /// `membersAgain` copies members written before, with the comma the
    /// new place needs, also when the copy makes the buffer grow.
    func testMembersAgainCopiesEarlierMembers() {
        var w = JSONWriter(capacity: 1)
        w.beginObject()
        w.keyText(#""v":"#)
        w.int(1)
        let start = w.memberStart()
        w.keyText(#""x":"#)
        w.number(0.1)
        w.keyText(#","y":"#)
        w.number(-0.0)
        let members = start..<w.count
        w.keyText(#","p":"#)
        w.beginObject()
        w.membersAgain(members)
        w.endObject()
        w.membersAgain(members)
        w.endObject()
        XCTAssertEqual(
            String(decoding: w.bytes, as: UTF8.self), #"{"v":1,"x":0.1,"y":-0,"p":{"x":0.1,"y":-0},"x":0.1,"y":-0}"#)
    }
}

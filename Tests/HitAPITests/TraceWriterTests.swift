import HitJSON
import HitRouting
import TestSupport
import XCTest

@testable import HitAPI

/// `TraceWriter.writeDetail` against its oracle: `TraceDetail.description`
/// written with `JSONWriter.string`, byte for byte, for every kind of
/// detail and numbers, ids and pointers of every awkward kind.
final class TraceWriterTests: XCTestCase {
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 120, 0.5, -0.5, 0.1, 1.65, 1e-5, 123.456, -7.25, 1e15 - 1, 1e15, -1e15, 1e16, 2e20,
        9_007_199_254_740_992, 5e-324, .greatestFiniteMagnitude, .infinity, -.infinity, .nan, 1.0 / 3, 0.001,
    ]
    static let ints = [0, 1, 2, 7, 10, 99, 100, 12345, -1, -42, Int.max, Int.min]
    static let names = ["", "f", "finger-1", #"a"b"#, #"back\slash"#, "tab\there", "nl\n", "\u{1}\u{1f}", "é→✓", "𝄞", "abcdefghijklmnopq"]

    func details() -> [TraceDetail] {
        var all: [TraceDetail] = [.noShape, .emptyRegion, .withinSlop]
        for d in Self.doubles {
            all += [.opacity(d), .determinant(d), .withinStroke(d)]
            all.append(.capturedBy(pointer: "p", down: Point(d, -d)))
        }
        for n in Self.ints {
            all.append(.clippedDescendants(n))
            for rule in FillRule.allCases { all.append(.inHole(rule, contours: n, winding: 0 &- n)) }
            all.append(.maskPixel(column: n, row: 3, alpha: n, minimum: 7))
            all.append(.maskPixel(column: 1, row: n, alpha: 200, minimum: n))
            all.append(.outsideMask(columns: n, rows: 16))
        }
        for reason in [Reason.inside, .insideStroke, .insideSlop, .passThrough, .outside] { all.append(.passedThrough(reason)) }
        for name in Self.names {
            all.append(.capturedBy(pointer: name, down: Point(1.5, 2)))
            for why in [TraceDetail.DropReason.sceneReplaced, .layerRemoved, .replicaLost] {
                all.append(.captureDropped(pointer: name, layer: "layer " + name, why: why))
            }
        }
        return all
    }

    func testEveryDetailIsItsDescriptionAsAJSONString() {
        var rng = SplitMix64(seed: 33)
        var cases = details()
        for _ in 0..<500 {
            let d = Double(bitPattern: rng.next())
            cases += [.opacity(d), .withinStroke(Double(Int64(truncatingIfNeeded: rng.next()) % 100_000) / 64)]
        }
        for detail in cases {
            var expected = JSONWriter(capacity: 16)
            expected.string(detail.description)
            var got = JSONWriter(capacity: 16)
            TraceWriter.writeDetail(detail, to: &got)
            XCTAssertEqual(String(decoding: got.bytes, as: UTF8.self), String(decoding: expected.bytes, as: UTF8.self), "\(detail)")
        }
    }

    func testDecisionAndReasonMembersAreTheirRawValues() {
        for decision in [Decision.hit, .miss, .skip, .captured, .pass] {
            XCTAssertEqual("\(TraceWriter.decisionMember(decision))", #""decision":"\#(decision.rawValue)""#)
        }
        let reasons: [Reason] = [
            .hidden, .transparent, .pointerEventsNone, .singularTransform, .clipped, .childrenOnly, .noShape,
            .inside, .insideStroke, .insideSlop, .outside, .inHole, .captured, .passThrough,
        ]
        for reason in reasons {
            XCTAssertEqual("\(TraceWriter.reasonMember(reason))", #""reason":"\#(reason.rawValue)""#)
            XCTAssertEqual("\(TraceWriter.reasonText(reason))", reason.rawValue)
        }
    }
}

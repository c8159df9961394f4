import TestSupport
import XCTest

@testable import HitAnalysis

/// The one-pass aggregations against exhaustive searches on random label grids.
final class AggregationTests: XCTestCase {
    func randomLabels(_ rng: inout SplitMix64, columns: Int, rows: Int, labels: Int) -> [Int32] {
        // Blobs: a few random rectangles of each label over a background of -1.
        var l = [Int32](repeating: -1, count: columns * rows)
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let a = Int32.random(in: -1..<Int32(labels), using: &rng)
            let i0 = Int.random(in: 0..<columns, using: &rng)
            let j0 = Int.random(in: 0..<rows, using: &rng)
            let i1 = min(columns - 1, i0 + Int.random(in: 0...12, using: &rng))
            let j1 = min(rows - 1, j0 + Int.random(in: 0...12, using: &rng))
            for j in j0...j1 { for i in i0...i1 { l[j * columns + i] = a } }
        }
        return l
    }

    func testClearanceEqualsExhaustiveSearch() {
        var rng = SplitMix64(seed: 7)
        for round in 0..<400 {
            let columns = Int.random(in: 1...20, using: &rng)
            let rows = Int.random(in: 1...20, using: &rng)
            let labels = randomLabels(&rng, columns: columns, rows: rows, labels: 3)
            let got = Clearance.farthest(labels, columns: columns, labelCount: 3)
            for a in Int32(0)..<3 {
                var best = 0
                var at = -1
                for s in labels.indices where labels[s] == a {
                    let (i, j) = (s % columns, s / columns)
                    var d = Int.max
                    for jj in -1...rows {
                        for ii in -1...columns {
                            let inGrid = ii >= 0 && jj >= 0 && ii < columns && jj < rows
                            if inGrid && labels[jj * columns + ii] == a { continue }
                            d = min(d, (ii - i) * (ii - i) + (jj - j) * (jj - j))
                        }
                    }
                    if d > best {
                        best = d
                        at = s
                    }
                }
                XCTAssertEqual(got.d2[Int(a)], best, "round \(round) label \(a) \(columns)x\(rows)")
                XCTAssertEqual(got.sample[Int(a)], at, "round \(round) label \(a)")
                if got.d2[Int(a)] != best { return }
            }
        }
    }

    func testLargestSquareEqualsExhaustiveSearch() {
        var rng = SplitMix64(seed: 8)
        for round in 0..<400 {
            let columns = Int.random(in: 1...20, using: &rng)
            let rows = Int.random(in: 1...20, using: &rng)
            let labels = randomLabels(&rng, columns: columns, rows: rows, labels: 3)
            let got = LargestSquare.find(labels, columns: columns, labelCount: 3)
            for a in Int32(0)..<3 {
                var want = (0, 0, 0)
                search: for k in stride(from: min(columns, rows), through: 1, by: -1) {
                    for j0 in 0...(rows - k) {
                        for i0 in 0...(columns - k) {
                            if (j0..<(j0 + k)).allSatisfy({ j in (i0..<(i0 + k)).allSatisfy { labels[j * columns + $0] == a } }) {
                                want = (k, i0, j0)
                                break search
                            }
                        }
                    }
                }
                XCTAssertEqual(got.side[Int(a)], want.0, "round \(round) label \(a)")
                if want.0 > 0 {
                    XCTAssertEqual(got.i[Int(a)], want.1, "round \(round) label \(a)")
                    XCTAssertEqual(got.j[Int(a)], want.2, "round \(round) label \(a)")
                }
            }
        }
    }
}

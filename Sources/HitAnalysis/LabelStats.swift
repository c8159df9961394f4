/// Per-label aggregates over a labelled sample grid, in one row-major
/// pass each: cell counts and bounding boxes (`LabelStats.count`), the
/// largest all-one-label square (`LargestSquare`) and the sample farthest
/// from every other label (`Clearance`).
///
/// Labels are `Int32` per sample, row-major (`j · columns + i`): `0..<labelCount`
/// for the samples asked about, -1 for the rest (which still count as
/// "another label" for squares and distances).
public struct LabelStats: Sendable {
    /// Samples per label.
    public var count: [Int]
    /// Per label, the least and greatest column and row of its samples.
    public var minI: [Int], minJ: [Int], maxI: [Int], maxJ: [Int]

    /// Counts and boxes of every label.
    /// - Complexity: O(samples + labelCount) time, O(labelCount) memory.
    public static func count(_ labels: [Int32], columns: Int, labelCount: Int) -> LabelStats {
        var s = LabelStats(
            count: Array(repeating: 0, count: labelCount),
            minI: Array(repeating: .max, count: labelCount), minJ: Array(repeating: .max, count: labelCount),
            maxI: Array(repeating: -1, count: labelCount), maxJ: Array(repeating: -1, count: labelCount))
        guard columns > 0 else { return s }
        let rows = labels.count / columns
        labels.withUnsafeBufferPointer { l in
            for j in 0..<rows {
                let base = j * columns
                for i in 0..<columns {
                    let a = Int(l[base + i])
                    guard a >= 0 else { continue }
                    if s.count[a] == 0 { s.minJ[a] = j }
                    s.count[a] += 1
                    if i < s.minI[a] { s.minI[a] = i }
                    if i > s.maxI[a] { s.maxI[a] = i }
                    s.maxJ[a] = j
                }
            }
        }
        return s
    }
}

/// The largest square of k × k cells all of one label, per label, by
/// dynamic programming: the side of the largest such square whose
/// bottom-right cell is (i, j) is 1 + the least of its left, upper and
/// upper-left neighbours' (0 for a neighbour of another label or outside
/// the grid).
public enum LargestSquare {
    /// Per label: `side` (cells; 0 for a label without samples) and the
    /// top-left cell of the first largest square in row-major order.
    /// - Complexity: O(samples + labelCount) time; memory two rows of
    ///   `Int32` and O(labelCount).
    public static func find(_ labels: [Int32], columns: Int, labelCount: Int) -> (side: [Int], i: [Int], j: [Int]) {
        var side = Array(repeating: 0, count: labelCount)
        var ti = Array(repeating: 0, count: labelCount)
        var tj = Array(repeating: 0, count: labelCount)
        guard columns > 0 else { return (side, ti, tj) }
        let rows = labels.count / columns
        var previous = [Int32](repeating: 0, count: columns)
        var current = previous
        labels.withUnsafeBufferPointer { l in
            for j in 0..<rows {
                let base = j * columns
                for i in 0..<columns {
                    let a = l[base + i]
                    guard a >= 0 else {
                        current[i] = 0
                        continue
                    }
                    var k: Int32 = 1
                    if i > 0 && j > 0 {
                        let left = l[base + i - 1] == a ? current[i - 1] : 0
                        let up = l[base - columns + i] == a ? previous[i] : 0
                        let diagonal = l[base - columns + i - 1] == a ? previous[i - 1] : 0
                        k = 1 + min(left, up, diagonal)
                    }
                    current[i] = k
                    // Squares of equal side come in row-major order of their
                    // bottom-right cell, which is that of their top-left one.
                    if Int(k) > side[Int(a)] {
                        side[Int(a)] = Int(k)
                        ti[Int(a)] = i - Int(k) + 1
                        tj[Int(a)] = j - Int(k) + 1
                    }
                }
                swap(&previous, &current)
            }
        }
        return (side, ti, tj)
    }
}

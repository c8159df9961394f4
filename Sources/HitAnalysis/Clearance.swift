/// Per label, the sample farthest from every sample of another label, by
/// an exact Euclidean distance transform (Meijster, Roerdink and Hesselink
/// 2000) over labelled samples. Distances are squared, in cells, between
/// sample centres, and exact (integers). The grid is ringed by samples of
/// no label (the ring just outside it counts as "another label").
///
/// For a sample of label L the nearest sample of another label is, along
/// its column, just past the run of L that holds it (phase 1, `g`); and
/// along its row the candidates reduce to the columns of its row-run of
/// L, each with its `g`, and the two cells just past the run (distance 0
/// there): any column farther out is farther than those. So phase 2 runs
/// Meijster's lower envelope over each row-run with its two ends, and the
/// whole transform is O(samples) for every label at once.
public enum Clearance {
    /// Per label: the greatest squared distance (cells²; 0 for a label
    /// without samples) and the first sample (row-major number) that has it.
    /// - Complexity: O(samples + labelCount) time; memory 4 bytes a sample
    ///   (`g`) plus O(columns + labelCount).
    public static func farthest(_ labels: [Int32], columns: Int, labelCount: Int) -> (d2: [Int], sample: [Int]) {
        var best = Array(repeating: 0, count: labelCount)
        var at = Array(repeating: -1, count: labelCount)
        guard columns > 0, !labels.isEmpty else { return (best, at) }
        let rows = labels.count / columns
        // Phase 1: g = rows to the nearest sample of another label in the column (ring included).
        var g = [UInt32](repeating: 1, count: labels.count)
        labels.withUnsafeBufferPointer { l in
            g.withUnsafeMutableBufferPointer { g in
                for j in 1..<max(rows, 1) {
                    let base = j * columns
                    for i in 0..<columns where l[base + i] == l[base - columns + i] {
                        g[base + i] = g[base - columns + i] &+ 1
                    }
                }
                // The last row is one from the ring below; then upwards.
                for i in 0..<columns { g[(rows - 1) * columns + i] = 1 }
                var below = [UInt32](repeating: 1, count: columns)
                for j in stride(from: rows - 2, through: 0, by: -1) {
                    let base = j * columns
                    for i in 0..<columns {
                        below[i] = l[base + i] == l[base + columns + i] ? below[i] &+ 1 : 1
                        if below[i] < g[base + i] { g[base + i] = below[i] }
                    }
                }
            }
        }
        // Phase 2, per row-run of one label, with its two ends at distance 0.
        var f = [Int](repeating: 0, count: columns + 2)
        var s = [Int](repeating: 0, count: columns + 2)
        var t = s
        var d2 = s
        labels.withUnsafeBufferPointer { l in
            g.withUnsafeBufferPointer { g in
                for j in 0..<rows {
                    let base = j * columns
                    var a = 0
                    while a < columns {
                        let label = l[base + a]
                        var b = a
                        while b + 1 < columns && l[base + b + 1] == label { b += 1 }
                        if label >= 0 {
                            let m = b - a + 3  // the run, and one cell past each end
                            f[0] = 0
                            f[m - 1] = 0
                            for u in 1..<(m - 1) {
                                let d = Int(g[base + a + u - 1])
                                f[u] = d * d
                            }
                            envelope(f, m, &s, &t, into: &d2)
                            for u in 1..<(m - 1) where d2[u] > best[Int(label)] {
                                best[Int(label)] = d2[u]
                                at[Int(label)] = base + a + u - 1
                            }
                        }
                        a = b + 1
                    }
                }
            }
        }
        return (best, at)
    }

    /// Meijster's phase 2 over `m` positions with squared column distances
    /// `f`: `out[u]` becomes `min over v of (u − v)² + f[v]` for u < m.
    /// `s` and `t` are scratch of at least m slots.
    /// - Complexity: O(m).
    static func envelope(_ f: [Int], _ m: Int, _ s: inout [Int], _ t: inout [Int], into out: inout [Int]) {
        @inline(__always) func dist(_ x: Int, _ i: Int) -> Int { (x - i) * (x - i) + f[i] }
        @inline(__always) func sep(_ i: Int, _ u: Int) -> Int {
            let num = u * u - i * i + f[u] - f[i]
            let den = 2 * (u - i)
            // Floor division (the numerator may be negative).
            let q = num / den
            return (num % den != 0 && (num < 0) != (den < 0)) ? q - 1 : q
        }
        var q = 0
        s[0] = 0
        t[0] = 0
        for u in 1..<m {
            while q >= 0 && dist(t[q], s[q]) > dist(t[q], u) { q -= 1 }
            if q < 0 {
                q = 0
                s[0] = u
            } else {
                let w = 1 + sep(s[q], u)
                if w < m {
                    q += 1
                    s[q] = u
                    t[q] = w
                }
            }
        }
        for u in stride(from: m - 1, through: 0, by: -1) {
            out[u] = dist(u, s[q])
            if u == t[q] { q -= 1 }
        }
    }
}

import HitRouting

/// The sample grid every whole-scene answer is computed over (SPEC §12):
/// for a region `x, y, width, height` (scene coordinates, y-down) and a
/// spacing `resolution` r, the samples are the points
/// `(x + (i + ½)·r, y + (j + ½)·r)` for `0 ≤ i < columns = ⌈width / r⌉`,
/// `0 ≤ j < rows = ⌈height / r⌉`; sample (i, j) stands for its *cell*, the
/// r × r square around it. Samples are numbered row-major, `j · columns + i`.
///
/// A grid exists only when every number it can produce is finite: its
/// cells' edges, their total area (`samples · r²`) and the distances
/// between its samples.
public struct SampleGrid: Sendable, Equatable {
    public let x: Double, y: Double, width: Double, height: Double
    public let resolution: Double
    public let columns: Int, rows: Int

    /// The number of samples, `columns · rows`.
    public var count: Int { columns * rows }

    /// The area of one cell, r².
    public var cellArea: Double { resolution * resolution }

    /// The centre of sample (i, j).
    @inlinable public func sample(_ i: Int, _ j: Int) -> Point {
        Point(x + (Double(i) + 0.5) * resolution, y + (Double(j) + 0.5) * resolution)
    }

    /// The centre of sample `s` (row-major number).
    @inlinable public func sample(_ s: Int) -> Point {
        let j = s / columns
        return sample(s - j * columns, j)
    }

    /// The area of `cells` cells, `cells · r²`.
    @inlinable public func area(_ cells: Int) -> Double { Double(cells) * cellArea }

    /// The grid's region as a box.
    public var region: Box { Box(minX: x, minY: y, maxX: x + width, maxY: y + height) }

    /// The bounding box of cells `i0...i1 × j0...j1`, as `x, y, width, height`.
    public func cellBox(_ i0: Int, _ j0: Int, _ i1: Int, _ j1: Int) -> (x: Double, y: Double, width: Double, height: Double) {
        (
            x + Double(i0) * resolution, y + Double(j0) * resolution,
            Double(i1 - i0 + 1) * resolution, Double(j1 - j0 + 1) * resolution
        )
    }

    /// The columns whose samples may lie within `[lo, hi]` (scene x),
    /// clamped to the grid, one wider on each side than the arithmetic
    /// says (callers test each sample exactly); empty when none.
    /// Never traps, whatever the bounds (infinite, NaN, huge).
    public func columns(from lo: Double, to hi: Double) -> Range<Int> {
        Self.span(lo, hi, origin: x, resolution: resolution, count: columns)
    }

    /// `columns(from:to:)` for rows (scene y).
    public func rows(from lo: Double, to hi: Double) -> Range<Int> {
        Self.span(lo, hi, origin: y, resolution: resolution, count: rows)
    }

    private static func span(_ lo: Double, _ hi: Double, origin: Double, resolution: Double, count: Int) -> Range<Int> {
        guard count > 0, lo <= hi else { return 0..<0 }
        let a = ((lo - origin) / resolution - 0.5).rounded(.down) - 1
        let b = ((hi - origin) / resolution - 0.5).rounded(.up) + 1
        let first = a.isNaN ? 0 : Int(max(0, min(a, Double(count))))
        let last = b.isNaN ? count - 1 : Int(max(-1, min(b, Double(count - 1))))
        return first <= last ? first..<(last + 1) : 0..<0
    }
}

/// Why an analysis was refused: a parameter (named as in the query) that
/// is not acceptable, or more routing work than the caller allows.
public enum AnalysisError: Error, Equatable, Sendable {
    /// `parameter` is the query parameter to blame; `message` says why.
    case invalid(parameter: String, message: String)
    /// Routing and testing the samples read more than `limit` (`Walk.work`).
    case tooMuchWork(limit: Int)
}

/// The grid a request asks for (each field nil when not given).
public struct GridRequest: Sendable, Equatable {
    public var x: Double?, y: Double?, width: Double?, height: Double?
    public var resolution: Double?

    public init(x: Double? = nil, y: Double? = nil, width: Double? = nil, height: Double? = nil, resolution: Double? = nil) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.resolution = resolution
    }

    /// The samples a default or given region holds at most.
    public static let defaultMaxSamples = 4_194_304

    /// The default resolution's divisor: the region's larger side ÷ 512.
    public static let defaultDivisions = 512.0

    /// The grid for this request over `defaultRegion` (a scene's summary
    /// bounds, or the union of two; nil when there is nothing in it).
    ///
    /// - The region is `x, y, width, height` when all four are given (a
    ///   part of them is refused, naming the first missing); else
    ///   `defaultRegion`, or the empty region at the origin.
    /// - `resolution` must be a finite number > 0; by default the region's
    ///   larger side ÷ 512 (1 for an empty region, the least positive
    ///   number when that division underflows).
    /// - More than `maxSamples` samples, or cells whose edges, own area
    ///   or total area are not finite, are refused naming `resolution` (or
    ///   `width` / `height` when the region itself ends beyond the finite
    ///   range). A region of zero width or height has no samples, whatever
    ///   the resolution.
    /// - Complexity: O(1); never traps.
    public func grid(defaultRegion: Box?, maxSamples: Int) throws(AnalysisError) -> SampleGrid {
        let given = [("x", x), ("y", y), ("width", width), ("height", height)]
        var rx = 0.0
        var ry = 0.0
        var rw = 0.0
        var rh = 0.0
        if given.contains(where: { $0.1 != nil }) {
            if let missing = given.first(where: { $0.1 == nil }) {
                throw .invalid(parameter: missing.0, message: "x, y, width and height are given together")
            }
            for (name, value) in given where !(value!.isFinite) {
                throw .invalid(parameter: name, message: "must be a finite number")
            }
            rx = x!
            ry = y!
            rw = width!
            rh = height!
            if !(rw >= 0) { throw .invalid(parameter: "width", message: "must be a finite number >= 0") }
            if !(rh >= 0) { throw .invalid(parameter: "height", message: "must be a finite number >= 0") }
        } else if let b = defaultRegion, !b.isEmpty {
            rx = b.minX
            ry = b.minY
            rw = b.width
            rh = b.height
        }
        if !(rx + rw).isFinite { throw .invalid(parameter: "width", message: "the region ends beyond the finite range") }
        if !(ry + rh).isFinite { throw .invalid(parameter: "height", message: "the region ends beyond the finite range") }
        let r: Double
        if let resolution {
            guard resolution.isFinite, resolution > 0 else {
                throw .invalid(parameter: "resolution", message: "must be a finite number > 0")
            }
            r = resolution
        } else {
            let side = max(rw, rh)
            let d = side / Self.defaultDivisions
            r = side == 0 ? 1 : (d > 0 ? d : .leastNonzeroMagnitude)
        }
        guard (r * r).isFinite else {
            throw .invalid(parameter: "resolution", message: "gives cells whose area lies beyond the finite range")
        }
        let limit = Double(max(0, maxSamples))
        var c = (rw / r).rounded(.up)
        var k = (rh / r).rounded(.up)
        if c == 0 || k == 0 {
            c = 0
            k = 0
        }
        guard c <= limit, k <= limit else {
            throw .invalid(parameter: "resolution", message: "gives more than \(maxSamples) samples over the region")
        }
        let columns = Int(c)
        let rows = Int(k)
        let (count, overflow) = columns.multipliedReportingOverflow(by: rows)
        guard !overflow, count <= maxSamples else {
            throw .invalid(parameter: "resolution", message: "gives \(columns) × \(rows) samples, more than \(maxSamples)")
        }
        if count > 0 {
            let edges = [
                rx + Double(columns) * r, ry + Double(rows) * r, Double(columns) * r, Double(rows) * r,
                Double(count) * (r * r),
            ]
            guard edges.allSatisfy(\.isFinite) else {
                throw .invalid(parameter: "resolution", message: "gives cells whose edges or area lie beyond the finite range")
            }
        }
        return SampleGrid(x: rx, y: ry, width: rw, height: rh, resolution: r, columns: count > 0 ? columns : 0, rows: count > 0 ? rows : 0)
    }
}

/// A `mask` shape (SPEC §2.2) as submitted, with its image decoded: an
/// alpha plane of `columns × rows` pixels laid over the rectangle
/// `x, y, width, height` (local units, y-down). Pixel (i, j) covers
/// `[x + i·width/columns, x + (i+1)·width/columns) × [y + j·height/rows, …)`.
public struct Mask: Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// In [0, 1]; nil means the default, 0.5.
    public var threshold: Double?
    /// How the image was given, kept to return the scene as submitted.
    public var source: Source
    /// The decoded alpha channel (shared with the compiled region, not copied).
    public var image: AlphaPlane

    /// The image's form in the request.
    public enum Source: Sendable, Equatable {
        /// `png`: the base64 text exactly as given.
        case png(String)
        /// `alpha` with `columns` and `rows`: the bytes are `image.alpha`;
        /// the base64 text is their canonical encoding (strict decoding
        /// accepts nothing else), so it is not kept.
        case alpha
    }

    public init(x: Double, y: Double, width: Double, height: Double, threshold: Double? = nil, source: Source, image: AlphaPlane) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.threshold = threshold
        self.source = source
        self.image = image
    }

    /// The threshold with its default applied.
    public var effectiveThreshold: Double { threshold ?? 0.5 }

    /// The smallest alpha value that counts as opaque: the least integer
    /// `a` with `a ≥ threshold × 255`, compared exactly on the threshold's
    /// double value (no rounding of the product), so `0.5` gives 128 and
    /// `Double(k) / 255` gives `k` or `k + 1` as its exact value says.
    /// 0 (threshold 0) makes every pixel opaque.
    public static func minimumOpaqueAlpha(threshold t: Double) -> Int {
        guard t > 0 else { return 0 }
        guard t < 1 else { return 255 }
        // a − t·255 with one rounding has the sign of the exact difference.
        var a = Int((t * 255).rounded(.up))
        while a > 0 && Double(a - 1).addingProduct(-t, 255) >= 0 { a -= 1 }
        while a < 255 && Double(a).addingProduct(-t, 255) < 0 { a += 1 }
        return a
    }
}

/// One byte of alpha per pixel, row-major, top row first: what a mask
/// keeps of its image. `alpha.count == columns × rows`.
public struct AlphaPlane: Sendable, Equatable {
    public let columns: Int
    public let rows: Int
    public let alpha: [UInt8]

    /// Nil unless `alpha` holds exactly `columns × rows` bytes (both ≥ 1).
    public init?(columns: Int, rows: Int, alpha: [UInt8]) {
        guard columns >= 1, rows >= 1, columns.multipliedReportingOverflow(by: rows) == (alpha.count, false) else { return nil }
        self.columns = columns
        self.rows = rows
        self.alpha = alpha
    }
}

extension Scene {
    /// The bytes the scene's masks hold once compiled: each alpha plane
    /// (one byte a pixel, shared by the model and the compiled region) and,
    /// where a stroke or slop needs it, its summed-area table (4 bytes per
    /// `(columns + 1) × (rows + 1)` entry). A store counts them beside the
    /// JSON, which can be far smaller (a PNG compresses).
    /// - Complexity: O(layers).
    public var maskBytes: Int {
        var total = 0
        var stack: [[Layer]] = [layers]
        while let level = stack.popLast() {
            for layer in level {
                total += layer.ownMaskBytes
                if let children = layer.children, !children.isEmpty { stack.append(children) }
            }
        }
        return total
    }
}

extension Layer {
    /// The bytes the masks of this layer's own `shape` and `hitShape` hold
    /// once compiled, children not included (see `Scene.maskBytes`): what a
    /// patch of the layer adds or frees.
    /// - Complexity: O(1).
    public var ownMaskBytes: Int {
        let slopped = !(hitSlop?.edges.isZero ?? true)
        return Self.maskBytes(shape, slopped: slopped) + Self.maskBytes(hitShape, slopped: slopped)
    }

    private static func maskBytes(_ shape: Shape?, slopped: Bool) -> Int {
        guard let shape, case .mask(let m) = shape.geometry else { return 0 }
        let table = slopped || (shape.stroke ?? 0) > 0 ? 4 * (m.image.columns + 1) * (m.image.rows + 1) : 0
        return m.image.alpha.count + table
    }
}

import HitJSON
import HitRouting

/// One problem in a request body: where (an RFC 6901 JSON Pointer into the
/// body) and what.
public struct ValidationIssue: Sendable, Equatable, CustomStringConvertible {
    public var pointer: String
    public var message: String

    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    public var description: String { "\(pointer.isEmpty ? "(root)" : pointer): \(message)" }
}

/// Why a body could not be decoded.
public enum DecodeFailure: Error, Sendable, Equatable {
    /// Not JSON at all (400): where parsing stopped.
    case syntax(JSONSyntaxError)
    /// JSON, but not a valid document (422): every problem found.
    case invalid([ValidationIssue])
}

/// Per-scene limits enforced while decoding (SPEC §6).
public struct SceneLimits: Sendable {
    /// Layers in the whole tree. Default 250,000.
    public var maxLayers = 250_000
    /// Nesting depth of layers (a top-level layer is depth 1). Default 64.
    public var maxDepth = 64
    /// Vertices per shape (points, path elements; compounds add up their members). Default 100,000.
    public var maxVertices = 100_000
    /// Nesting of compound shapes inside compound shapes. Default 16.
    public var maxCompoundDepth = 16
    /// Pixels per mask shape (`columns × rows`, or a PNG's width × height). Default 16,777,216.
    public var maxMaskPixels = 16_777_216
    /// Mask pixels in one document, all its masks together (a scene, or a
    /// patched layer): each is an alpha plane of a byte a pixel, decoded
    /// before the store can weigh the scene, and a PNG of 16 million
    /// pixels of one value compresses to a few kilobytes. Default 33,554,432.
    public var maxSceneMaskPixels = 33_554_432

    public init() {}
}

extension ValidationIssue {
    /// The issue of a scene whose computed numbers are not all finite:
    /// the pointer of the field that makes them so. Its layer path is
    /// `/layers/i/children/j…` from the scene's root; for a layer patch
    /// (one layer as the document) the path is empty.
    public init(_ problem: NumericProblem) {
        var pointer = JSONPointer()
        for (depth, position) in problem.layerPath.enumerated() {
            pointer = pointer.appending(depth == 0 ? "layers" : "children").appending(position)
        }
        for token in problem.field {
            switch token {
            case .key(let k): pointer = pointer.appending(k)
            case .index(let i): pointer = pointer.appending(i)
            }
        }
        self.init(pointer: pointer.description, message: problem.message)
    }
}

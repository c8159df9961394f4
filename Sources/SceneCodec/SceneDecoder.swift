import HitJSON
import HitRouting

/// Decodes a scene body (SPEC §2) straight into the core's model, checking
/// every rule and limit on the way and reporting every problem with a JSON
/// Pointer (SPEC §4.4).
///
///     let scene = try SceneDecoder.decode(bytes, limits: SceneLimits())
///
/// Memory stays proportional to the scene (no intermediate tree); layers
/// nested beyond `maxDepth` are skipped iteratively, so no input can
/// exhaust the stack.
///
/// - Complexity: O(body size).
public enum SceneDecoder {
    /// Decodes a whole scene document.
    /// - Throws: `DecodeFailure.syntax` for malformed JSON, `.invalid` with
    ///   every problem otherwise.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, limits: SceneLimits) throws(DecodeFailure) -> Scene {
        var state = SceneDecoding(bytes, limits: limits)
        return try state.run { s in try s.scene() }
    }

    /// Decodes one layer object that may not have `children` (a merge-patched layer).
    public static func decodeLayer(_ bytes: UnsafeBufferPointer<UInt8>, limits: SceneLimits) throws(DecodeFailure) -> Layer {
        var state = SceneDecoding(bytes, limits: limits)
        return try state.run { s in try s.layer(depth: 1, allowChildren: false) ?? Layer(id: "") }
    }
}

/// The decoding pass: a `DocumentDecoder` plus what a scene needs across
/// layers (ids seen, layers counted).
package struct SceneDecoding: DecodingPass {
    package var d: DocumentDecoder
    package let limits: SceneLimits
    package var ids: Set<String> = []
    package var layerCount = 0
    /// Pixels of the masks decoded so far (`SceneLimits.maxSceneMaskPixels`).
    package var maskPixels = 0
    /// Reused while reading each `points` array.
    package var scratchPoints: [Point] = []

    package init(_ bytes: UnsafeBufferPointer<UInt8>, limits: SceneLimits) {
        d = DocumentDecoder(bytes)
        self.limits = limits
    }

    package mutating func scene() throws -> Scene {
        var scene = Scene()
        guard try d.beginObject() else { return scene }
        var seen = d.borrowKeys()
        defer { d.returnKeys(seen) }
        while let key = try d.nextMember(&seen) {
            switch key {
            case "id":
                scene.id = try d.identifier(maxLength: 128, extraAllowed: "._-")
                if let id = scene.id, !SceneID.isValid(id) {
                    try d.issue("must not be \"\(id)\" (no URL can name it)")
                    scene.id = nil
                }
            case "width": scene.width = try d.nonNegative()
            case "height": scene.height = try d.nonNegative()
            case "layers": scene.layers = try layers(depth: 1)
            default: try d.unknown(key, in: "a scene")
            }
        }
        if !seen.contains("layers") { try d.issue("is required", [.key("layers")]) }
        return scene
    }

    /// An array of layers at nesting `depth` (1 for the top level).
    package mutating func layers(depth: Int) throws -> [Layer] {
        guard try d.reader.peek() == .array else {
            try d.mismatch("an array of layers")
            return []
        }
        if depth > limits.maxDepth {
            try d.issue("layers nest deeper than \(limits.maxDepth) levels")
            try d.reader.skipValue()
            return []
        }
        try d.reader.beginArray()
        var out: [Layer] = []
        var index = 0
        while try d.reader.nextElement() {
            d.push(index)
            if let layer = try layer(depth: depth, allowChildren: true) { out.append(layer) }
            d.pop()
            index += 1
        }
        return out
    }

    /// One layer object; nil when the value is not an object.
    package mutating func layer(depth: Int, allowChildren: Bool) throws -> Layer? {
        layerCount += 1
        if layerCount > limits.maxLayers {
            try d.issue("the scene has more than \(limits.maxLayers) layers")
            throw DocumentDecoder.Abort()
        }
        var layer = Layer(id: "")
        guard try d.beginObject() else { return nil }
        var seen = d.borrowKeys()
        defer { d.returnKeys(seen) }
        while let key = try d.nextMember(&seen) {
            switch key {
            case "id":
                if let id = try d.identifier(maxLength: 128, extraAllowed: "._:-") {
                    if !ids.insert(id).inserted { try d.issue("duplicate id \"\(id)\"") }
                    layer.id = id
                }
            case "action":
                if let a = try d.string() {
                    if a.unicodeScalars.count > 256 { try d.issue("must be at most 256 characters") } else { layer.action = a }
                }
            case "shape": layer.shape = try shape(compoundDepth: 0)
            case "hitShape": layer.hitShape = try shape(compoundDepth: 0)
            case "hitSlop": layer.hitSlop = try hitSlop()
            case "transform": layer.transform = try transform()
            case "zIndex": layer.zIndex = try d.number()
            case "pointerEvents": layer.pointerEvents = try d.enumeration(PointerEvents.self)
            case "hidden": layer.hidden = try d.bool()
            case "opacity":
                if let o = try d.number() {
                    if o < 0 || o > 1 { try d.issue("must be a number in [0, 1]") } else { layer.opacity = o }
                }
            case "clipChildren": layer.clipChildren = try d.bool()
            case "draggable": layer.draggable = try d.bool()
            case "passThrough": layer.passThrough = try d.bool()
            case "color":
                if let c = try d.string() {
                    if c.utf8.count > 256 { try d.issue("must be at most 256 bytes") } else { layer.color = c }
                }
            case "children" where allowChildren:
                layer.children = try layers(depth: depth + 1)
            default:
                try d.unknown(key, in: allowChildren ? "a layer" : "a layer patch (id and children cannot be patched)")
            }
        }
        if !seen.contains("id") { try d.issue("is required", [.key("id")]) }
        if layer.clipChildren == true && layer.shape == nil && layer.hitShape == nil {
            try d.issue("clipChildren requires a shape or hitShape", [.key("clipChildren")])
        }
        return layer
    }
}

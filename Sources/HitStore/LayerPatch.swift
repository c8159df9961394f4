import HitJSON
import HitRouting
import SceneCodec

/// A JSON merge patch (RFC 7396) of one layer's own fields, checked and
/// ready to apply: what `PATCH /scenes/{id}/layers/{layerId}` submits.
/// Every backend applies it the same way (`apply(to:version:)`), so the
/// journal can replay it and a remote store can run it.
public struct LayerPatch: Sendable {
    public let layerID: String
    /// The merge patch, an object without `id` or `children`.
    public let patch: JSONValue
    /// The patch as submitted (what a journal record or Redis keeps).
    public let json: [UInt8]
    /// The request's `If-Match`, nil when absent.
    public let ifMatch: String?
    let limits: SceneLimits
    /// Bytes of JSON the patched scene may come to (what an upload may
    /// carry, `--max-body-bytes`): a patch that grows a scene past it
    /// is `tooLarge`, since no upload could have made that scene. `.max` for
    /// replay (what was accepted once is loaded again).
    public let maxSceneBytes: Int

    /// How applying the patch changes what its scene weighs.
    public struct WeightChange: Sendable, Equatable {
        /// Bytes of JSON: the patched layer as the merge renders it (without
        /// children) less the replaced layer so rendered.
        public var json: Int
        /// Bytes of decoded masks (`Layer.ownMaskBytes` after less before).
        public var masks: Int
        /// What the scene's weight against `--max-store-bytes` moves by.
        public var total: Int { json + masks }
    }

    /// Parses and checks a submitted patch: `invalidScene` for malformed
    /// JSON, `invalidPatch` for one that is not an object or touches `id`
    /// or `children`.
    public init(layerID: String, json: [UInt8], ifMatch: String?, limits: SceneLimits, maxSceneBytes: Int = .max) throws(StoreError) {
        let patch: JSONValue
        do {
            patch = try JSONValue.parse(json)
        } catch {
            throw StoreError.invalidScene(.syntax(error))
        }
        guard case .object(let members) = patch else {
            throw StoreError.invalidPatch(
                "a layer patch must be a JSON object", [ValidationIssue(pointer: "", message: "must be an object")])
        }
        let forbidden = members.map(\.0).filter { $0 == "id" || $0 == "children" }
        if !forbidden.isEmpty {
            throw StoreError.invalidPatch(
                "id and children cannot be patched", forbidden.map { ValidationIssue(pointer: "/\($0)", message: "cannot be patched") })
        }
        self.layerID = layerID
        self.patch = patch
        self.json = json
        self.ifMatch = ifMatch
        self.limits = limits
        self.maxSceneBytes = maxSceneBytes
    }

    /// `tooLarge` unless a scene of `sceneBytes` bytes of JSON, grown by this
    /// patch (`growth` > 0), stays within `maxSceneBytes`. The pointer
    /// names the patch's largest member, what grew the layer.
    public func checkSceneSize(_ sceneBytes: Int, growth: Int) throws(StoreError) {
        guard growth > 0, sceneBytes > maxSceneBytes else { return }
        var culprit = ""
        if case .object(let members) = patch {
            var largest = -1
            for (key, value) in members {
                let size = value.encoded.count
                if size > largest {
                    largest = size
                    culprit = JSONPointer([key]).description
                }
            }
        }
        throw StoreError.tooLarge(
            "the patched scene would come to \(sceneBytes) bytes of JSON, more than the \(maxSceneBytes) an upload may carry (--max-body-bytes); no upload could make that scene",
            [ValidationIssue(pointer: culprit, message: "grows the scene's JSON by \(growth) bytes, past \(maxSceneBytes)")])
    }

    /// Applies the patch to `live`, whose current version is `version`.
    ///
    /// `admit` is called once the patch is checked, before `live` changes,
    /// with the change of the scene's weight (the bytes a store counts
    /// against `--max-store-bytes`, `WeightChange`): the patched layer's
    /// JSON less the replaced layer's, both without children as the merge
    /// renders them, and the exact change of the layer's mask bytes.
    /// Patching one layer again and again thus moves the weight with what
    /// the scene holds, never adding up. What `admit` throws refuses the
    /// patch (a store that is `full`, `tooLarge`, a failed journal append) with `live`
    /// unchanged.
    /// - Returns: the patched layer (without children), and the layers the
    ///   change read (`LiveScene.replaceLayer`): what replaying it costs.
    /// - Throws: `notFound` for no such layer, `preconditionFailed` for an
    ///   `If-Match` mismatch, `invalidScene` or `notFinite` for an invalid
    ///   result, or what `admit` throws; then `live` is unchanged.
    /// - Complexity: O(the layer's fields + its subtree + depth), weighing
    ///   included (both renderings are made by the merge anyway).
    public func apply(
        to live: inout LiveScene, version: Int, sceneID: String,
        admit: (WeightChange) throws(StoreError) -> Void = { (_: WeightChange) throws(StoreError) in }
    ) throws(StoreError) -> (layer: Layer, work: Int) {
        guard let n = live.compiled.indexByID[layerID].map(Int.init) else {
            throw StoreError.notFound("scene \"\(sceneID)\" has no layer \"\(layerID)\"")
        }
        if let ifMatch, !SceneVersion.etag(ifMatch, matches: version) {
            throw StoreError.preconditionFailed("If-Match \(ifMatch) does not match the scene's version \"\(version)\"")
        }
        let original = live.model.layer(at: live.compiled.modelPath(of: n))
        var w = JSONWriter()
        SceneEncoder.write(original, children: false, to: &w)
        // `try!`: the bytes are the writer's own rendering of a decoded
        // layer (valid JSON, nested no deeper than the decoder allowed).
        let merged = try! JSONValue.parse(w.bytes).merging(patch: patch).encoded
        let patched: Layer
        do throws(DecodeFailure) {
            patched = try merged.withUnsafeBufferPointer { (buffer) throws(DecodeFailure) -> Layer in
                try SceneDecoder.decodeLayer(buffer, limits: limits)
            }
        } catch {
            throw StoreError.invalidScene(error)
        }
        // Checked before the change: a refused patch leaves the scene as it was (SPEC §1).
        if let problem = live.numericProblem(replacingLayer: n, with: patched) {
            throw StoreError.notFinite(problem, inPatch: true)
        }
        try admit(WeightChange(json: merged.count - w.bytes.count, masks: patched.ownMaskBytes - original.ownMaskBytes))
        let work = live.replaceLayer(n, with: patched)
        return (patched, work)
    }
}

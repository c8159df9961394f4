import HitJSON
import HitRouting

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

    /// Parses and checks a submitted patch: 400 malformed JSON, 422 not an
    /// object or touching `id` or `children`.
    public init(layerID: String, json: [UInt8], ifMatch: String?, limits: SceneLimits) throws(Problem) {
        let patch: JSONValue
        do {
            patch = try JSONValue.parse(json)
        } catch {
            throw Problem.invalidScene(.syntax(error))
        }
        guard case .object(let members) = patch else {
            throw Problem(422, "invalid-scene", "Invalid patch", "a layer patch must be a JSON object",
                          issues: [ValidationIssue(pointer: "", message: "must be an object")])
        }
        let forbidden = members.map(\.0).filter { $0 == "id" || $0 == "children" }
        if !forbidden.isEmpty {
            throw Problem(422, "invalid-scene", "Invalid patch", "id and children cannot be patched",
                          issues: forbidden.map { ValidationIssue(pointer: "/\($0)", message: "cannot be patched") })
        }
        self.layerID = layerID
        self.patch = patch
        self.json = json
        self.ifMatch = ifMatch
        self.limits = limits
    }

    /// Applies the patch to `live`, whose current version is `version`.
    /// - Returns: the patched layer (without children).
    /// - Throws: 404 no such layer, 412 `If-Match` mismatch, 422 invalid
    ///   result; then `live` is unchanged.
    /// - Complexity: O(the layer's fields + its subtree + depth).
    public func apply(to live: inout LiveScene, version: Int, sceneID: String) throws(Problem) -> Layer {
        guard let n = live.compiled.indexByID[layerID].map(Int.init) else {
            throw Problem.notFound("scene \"\(sceneID)\" has no layer \"\(layerID)\"")
        }
        if let ifMatch, !Application.etag(ifMatch, matches: version) {
            throw Problem(412, "precondition-failed", "Precondition failed",
                          "If-Match \(ifMatch) does not match the scene's version \"\(version)\"")
        }
        let original = live.model.layer(at: live.compiled.modelPath(of: n))
        var w = JSONWriter()
        SceneEncoder.write(original, children: false, to: &w)
        // `try!`: the bytes are the writer's own rendering of a decoded
        // layer (valid JSON, nested no deeper than the decoder allowed).
        let merged = try! JSONValue.parse(w.bytes).merging(patch: patch)
        let patched: Layer
        do throws(DecodeFailure) {
            patched = try merged.encoded.withUnsafeBufferPointer { (buffer) throws(DecodeFailure) -> Layer in
                try SceneDecoder.decodeLayer(buffer, limits: limits)
            }
        } catch {
            throw Problem.invalidScene(error)
        }
        // Checked before the change: a refused patch leaves the scene as it was.
        if let problem = live.numericProblem(replacingLayer: n, with: patched) {
            throw Problem.invalidScene(problem, title: "Invalid patch")
        }
        live.replaceLayer(n, with: patched)
        return patched
    }
}

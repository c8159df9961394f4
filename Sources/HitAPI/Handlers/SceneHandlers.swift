import HTTPServer
import HitJSON
import HitRouting
import HitStore
import SceneCodec

/// SPEC §4.1: creating, reading, replacing, listing, deleting and patching scenes.
extension Application {
    /// The scenes `grant` reaches (a tenant key's listing holds its prefix's only).
    func listScenes(_ grant: Grant = .all, _ placement: Placement) throws(Problem) -> Step {
        guard runsHere(RunWhere.Work(kind: .listScenes), placement) else {
            return .worker { [self] () throws(Problem) in try listScenes(grant) }
        }
        return .done(try listScenes(grant))
    }

    private func listScenes(_ grant: Grant) throws(Problem) -> HTTPResponse {
        var scenes = try stored { () throws(StoreError) in try store.summaries() }
        if grant.scenePrefix != nil { scenes.removeAll { !grant.reaches($0.id) } }
        return json(200) { w in
            w.beginObject()
            w.field("scenes")
            w.beginArray()
            for s in scenes { SceneEncoder.writeSummary(s, to: &w) }
            w.endArray()
            w.endObject()
        }
    }

    /// A tenant key's scene gets an id of its prefix when the body names
    /// none (the prefix and 16 random hex digits), and 403 when the body
    /// names another.
    func createScene(_ request: HTTPRequest, grant: Grant = .all, _ placement: Placement) throws(Problem) -> Step {
        guard runsHere(RunWhere.Work(kind: .writeScene, bodyBytes: request.body.count), placement) else {
            return .worker { [self] () throws(Problem) in try createScene(request, grant: grant) }
        }
        return .done(try createScene(request, grant: grant))
    }

    private func createScene(_ request: HTTPRequest, grant: Grant) throws(Problem) -> HTTPResponse {
        var upload = try upload(request)
        if let prefix = grant.scenePrefix {
            if let id = upload.scene.id {
                guard grant.reaches(id) else { throw Application.outsideTenant(grant) }
            } else {
                var generator = SystemRandomNumberGenerator()
                let suffix = String(generator.next() as UInt64, radix: 16)
                upload.scene.id = prefix + String(repeating: "0", count: 16 - suffix.count) + suffix
            }
        }
        let snapshot = try stored { () throws(StoreError) in try store.create(upload) }
        var h = HTTPHeaders()
        h.set("Location", "/scenes/\(snapshot.id)")
        h.set("ETag", etag(snapshot.version))
        return summary(snapshot, status: 201, headers: h)
    }

    func putScene(_ id: String, _ request: HTTPRequest, _ placement: Placement) throws(Problem) -> Step {
        guard runsHere(RunWhere.Work(kind: .writeScene, bodyBytes: request.body.count), placement) else {
            return .worker { [self] () throws(Problem) in try putScene(id, request) }
        }
        return .done(try putScene(id, request))
    }

    private func putScene(_ id: String, _ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        guard Route.isSceneID(id) else {
            throw Problem(
                422, "invalid-scene", "Invalid scene", "the scene id in the path must match [A-Za-z0-9._-]{1,128} and not be . or ..")
        }
        let upload = try upload(request)
        if let bodyID = upload.scene.id, bodyID != id {
            throw Problem(
                422, "invalid-scene", "Invalid scene", "the body's id differs from the path's",
                issues: [ValidationIssue(pointer: "/id", message: "is \"\(bodyID)\" but the path says \"\(id)\"")])
        }
        let (snapshot, created) = try stored { () throws(StoreError) in try store.put(upload, id: id) }
        if !created { streams.sceneChanged(id) }
        var h = HTTPHeaders()
        h.set("ETag", etag(snapshot.version))
        if created { h.set("Location", "/scenes/\(id)") }
        return summary(snapshot, status: created ? 201 : 200, headers: h)
    }

    func getScene(_ id: String, _ placement: Placement) throws(Problem) -> Step {
        let held = store.residentSnapshot(id)
        // The document is written from the model, O(its size).
        guard runsHere(RunWhere.Work(kind: .readScene, snapshot: held, namesScene: true), placement) else {
            return .worker { [self] () throws(Problem) in try getScene(id, held: held) }
        }
        return .done(try getScene(id, held: held))
    }

    private func getScene(_ id: String, held: SceneSnapshot?) throws(Problem) -> HTTPResponse {
        let s = try snapshot(id, held: held)
        var h = HTTPHeaders()
        h.set("ETag", etag(s.version))
        return json(200, headers: h, capacity: 4096) { w in
            SceneEncoder.write(s.live.model, id: s.id, version: s.version, to: &w)
        }
    }

    func deleteScene(_ id: String, _ placement: Placement) throws(Problem) -> Step {
        // Freeing the scene is O(its size).
        guard runsHere(RunWhere.Work(kind: .writeScene, snapshot: store.residentSnapshot(id)), placement) else {
            return .worker { [self] () throws(Problem) in try deleteScene(id) }
        }
        return .done(try deleteScene(id))
    }

    private func deleteScene(_ id: String) throws(Problem) -> HTTPResponse {
        guard try stored({ () throws(StoreError) in try store.delete(id) }) else { throw Problem.notFound("no scene \"\(id)\"") }
        streams.sceneDeleted(id)
        return HTTPResponse(status: 204)
    }

    /// JSON merge patch (RFC 7396) of one layer's fields other than `id` and
    /// `children`, honouring `If-Match`.
    func patchLayer(_ id: String, _ layerID: String, _ request: HTTPRequest, _ placement: Placement) throws(Problem) -> Step {
        // A small body can rescale a subtree or re-sort its siblings: O(layers).
        let work = RunWhere.Work(kind: .writeScene, snapshot: store.residentSnapshot(id), bodyBytes: request.body.count)
        guard runsHere(work, placement) else {
            return .worker { [self] () throws(Problem) in try patchLayer(id, layerID, request) }
        }
        return .done(try patchLayer(id, layerID, request))
    }

    private func patchLayer(_ id: String, _ layerID: String, _ request: HTTPRequest) throws(Problem) -> HTTPResponse {
        let limits = configuration.scene
        let maxSceneBytes = configuration.server.limits.maxBodyBytes
        let patch = try stored { () throws(StoreError) in
            try LayerPatch(
                layerID: layerID, json: request.body, ifMatch: request.headers["If-Match"], limits: limits,
                maxSceneBytes: maxSceneBytes)
        }
        let (snapshot, patched) = try stored { () throws(StoreError) in try store.patch(id, patch) }
        streams.sceneChanged(id)
        var h = HTTPHeaders()
        h.set("ETag", etag(snapshot.version))
        return json(200, headers: h) { w in SceneEncoder.write(patched, children: false, to: &w) }
    }

    // MARK: - Helpers

    /// Layers from which reading, patching or deleting a scene leaves the
    /// event loop (`RunWhere`): writing, patching or freeing it costs O(its
    /// size), about 1 ms at this size and tens of milliseconds at 250,000
    /// layers, which would hold up every connection of the loop.
    static let bigSceneLayers = 2_000

    /// Decodes the body as a scene, then releases the body (see
    /// `HTTPRequest.releaseBody()`): a big body's memory goes before the
    /// scene is compiled, so the two do not peak together, unless the store
    /// keeps the submitted JSON (a journal writes it as given).
    private func upload(_ request: HTTPRequest) throws(Problem) -> SceneUpload {
        let limits = configuration.scene
        let scene = try withBody(request) { (buffer) throws(Problem) -> Scene in
            do throws(DecodeFailure) {
                return try SceneDecoder.decode(buffer, limits: limits)
            } catch {
                throw Problem.invalidScene(error)
            }
        }
        let jsonBytes = request.body.count
        let weight = jsonBytes + scene.maskBytes  // a small PNG can decode to many pixels
        if capabilities.keepsSubmittedJSON { return SceneUpload(scene: scene, json: request.body, weight: weight, jsonBytes: jsonBytes) }
        request.releaseBody()
        return SceneUpload(scene: scene, weight: weight, jsonBytes: jsonBytes)
    }

    private func summary(_ s: SceneSnapshot, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        json(status, headers: headers) { w in SceneEncoder.writeSummary(SceneSummary(s), to: &w) }
    }

    func etag(_ version: Int) -> String { "\"\(version)\"" }

    /// Whether an `If-Match` value (a list of entity tags, or `*`) matches `version`.
    static func etag(_ header: String, matches version: Int) -> Bool {
        SceneVersion.etag(header, matches: version)
    }
}

extension Route {
    /// `[A-Za-z0-9._-]{1,128}`, but not `.` or `..`, which no URL can name
    /// (clients resolve them as path segments).
    static func isSceneID(_ s: String) -> Bool { SceneID.isValid(s) }
}

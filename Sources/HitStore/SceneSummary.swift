import HitRouting

/// What `GET /scenes` says of one scene (SPEC §4.1): id, version, layer
/// count and bounds (scene coordinates; nil when nothing has area).
public struct SceneSummary: Sendable, Equatable {
    public var id: String
    public var version: Int
    public var layers: Int
    public var bounds: Box?

    public init(id: String, version: Int, layers: Int, bounds: Box?) {
        self.id = id
        self.version = version
        self.layers = layers
        self.bounds = bounds
    }

    public init(_ snapshot: SceneSnapshot) {
        self.init(id: snapshot.id, version: snapshot.version, compiled: snapshot.compiled)
    }

    public init(id: String, version: Int, compiled: borrowing CompiledScene) {
        self.init(id: id, version: version, layers: compiled.layerCount, bounds: compiled.bounds)
    }
}

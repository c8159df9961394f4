import RESPClient

extension SceneStoring {
    /// A store in this process is always at its latest version.
    public func snapshot(_ id: String, minVersion: Int) throws(StoreError) -> SceneSnapshot? {
        try snapshot(id)
    }

    /// Nothing to report: only this process writes the scenes.
    public func observeChanges(_ observer: @escaping @Sendable (SceneChange) -> Void) {}

    /// None: only a shared store keeps a cache.
    public var cacheStats: CacheStats? { nil }

    /// None: only a remote store exchanges with a server.
    public var remoteStatistics: RedisStatistics? { nil }
}

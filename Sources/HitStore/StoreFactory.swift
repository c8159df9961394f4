import HitJournal
import RESPClient
import SceneCodec

/// Which backend holds the scenes, and its settings: what ``StoreFactory``
/// builds a store from.
public struct StoreConfiguration: Sendable {
    public enum Backend: Sendable {
        /// Scenes in this process only.
        case memory
        /// Scenes in memory, every change journaled (`--data-dir`).
        case journal(JournalOptions)
        /// Scenes in Redis, shared by replicas (`--store redis://…`); the
        /// password is never logged.
        case redis(url: String, password: String?, cacheBytes: Int)
    }

    public var backend: Backend = .memory
    /// Scenes, pointers, captures and bytes a store holds at most.
    public var limits = SceneStore.Limits()
    /// What a scene document read back (from Redis) may hold.
    public var sceneLimits = SceneLimits()
    /// The longest reply a Redis exchange may carry, in bytes.
    public var maxBulkBytes = 512 << 20

    public init(backend: Backend = .memory) { self.backend = backend }
}

/// Why no store could be made.
public struct StoreSetupError: Error, Sendable {
    /// What went wrong, for a person.
    public var message: String
    /// The backend's own error number, when it has one (`EWOULDBLOCK`:
    /// another process holds the journal's directory).
    public var errno: Int32?
}

/// The one place a backend is chosen: the executable and the tests build
/// their store here.
public enum StoreFactory {
    /// Scenes in this process only: what ``make(_:log:)`` builds for
    /// `.memory`, and what an application given no store holds.
    public static func memory(limits: SceneStore.Limits = SceneStore.Limits()) -> any SceneStoring {
        SceneStore(limits: limits)
    }

    /// A store for `configuration`, not yet started (``SceneStoring/start()``).
    /// A journal locks its directory here, so a second process fails now.
    /// - Parameter log: where a backend writes what it does (recovery,
    ///   snapshots); never given a credential.
    public static func make(
        _ configuration: StoreConfiguration, log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(StoreSetupError) -> any SceneStoring {
        switch configuration.backend {
        case .memory:
            return memory(limits: configuration.limits)
        case .journal(let options):
            do {
                return try JournalStore(options: options, limits: configuration.limits, log: log)
            } catch {
                throw StoreSetupError(message: "cannot use --data-dir \(options.directory): \(error)", errno: error.errno)
            }
        case .redis(let url, let password, let cacheBytes):
            guard let endpoint = RedisEndpoint(url: url, password: password) else {
                throw StoreSetupError(message: "--store \(url) is not a redis:// URL", errno: nil)
            }
            return RedisSceneStore(
                endpoint, cacheBytes: cacheBytes, limits: configuration.limits, sceneLimits: configuration.sceneLimits,
                maxBulkBytes: configuration.maxBulkBytes)
        }
    }
}

import Glibc
import HTTPServer
import Synchronization

/// Who may do what (SPEC §8): open to everyone without a key file, else
/// `Authorization: Bearer <key>` with a key of the file and a scope large
/// enough for the request (and, for a tenant's key, scenes of its prefix).
///
/// The keys in force are one immutable ``APIKeys`` behind an atomic
/// pointer: a request reads it with one load (no lock, no reference count,
/// so no cache line written by every loop), and ``reload()`` swaps in a
/// new one. A replaced key set is kept until the access control itself is
/// freed (a reader may still hold it): each reload keeps the old set's few
/// hundred bytes, which SIGHUP's rarity makes nothing.
public final class AccessControl: Sendable {
    /// The key file, or nil when the service is open.
    public let file: String?
    /// An `Unmanaged<KeySet>` opaque pointer as bits; 0 when open.
    private let current = Atomic<Int>(0)
    private let reloads = Mutex(ReloadCounts())
    /// Replaced key sets (`current`'s earlier values), freed in `deinit`.
    private let replaced = Mutex<[Int]>([])

    final class KeySet: Sendable {
        let keys: APIKeys
        /// Which publication this is (1, 2, …): an admission names it.
        let generation: UInt32
        init(_ keys: APIKeys, generation: UInt32) {
            self.keys = keys
            self.generation = generation
        }
    }
    /// Key sets published so far.
    private let published = Atomic<UInt32>(0)

    struct ReloadCounts {
        var succeeded = 0
        var failed = 0
    }

    /// Everyone may do everything.
    public static let open = AccessControl(openService: ())

    /// This is ``open``: no key can ever be put in force (no file to
    /// reload, none given), so ``authorize(_:needs:)`` needs no load at all.
    private let alwaysOpen: Bool

    private init(openService: ()) {
        file = nil
        alwaysOpen = true
    }

    /// Keys from `file`. - Throws: ``KeyFileError`` naming the file and line.
    public init(file: String) throws(KeyFileError) {
        self.file = file
        alwaysOpen = false
        publish(try AccessControl.read(file))
    }

    /// Keys given directly (tests, or a caller that read them itself).
    public init(keys: APIKeys) {
        file = nil
        alwaysOpen = false
        publish(keys)
    }

    deinit {
        let sets = replaced.withLock { $0 } + [current.load(ordering: .acquiring)]
        for bits in sets where bits != 0 {
            Unmanaged<KeySet>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
        }
    }

    /// Whether any request may be made without a key.
    public var isOpen: Bool { current.load(ordering: .acquiring) == 0 }

    /// Whether the service is open for good (no key file, so no reload can
    /// put keys in force): every request is authorized without a look.
    var isAlwaysOpen: Bool { alwaysOpen }

    /// Keys in force (0 when open).
    public var keyCount: Int { withKeys { $0?.count ?? 0 } }

    /// Successful and failed reloads so far.
    public var reloadCounts: (succeeded: Int, failed: Int) {
        reloads.withLock { ($0.succeeded, $0.failed) }
    }

    /// Reads the key file again and puts its keys in force. On failure the
    /// keys in force stay (a typo must not lock everyone out or let everyone
    /// in) and the error says why.
    @discardableResult
    public func reload() -> Result<Int, KeyFileError> {
        guard let file else { return .failure(KeyFileError(message: "no key file to reload")) }
        do {
            let keys = try AccessControl.read(file)
            publish(keys)
            reloads.withLock { $0.succeeded += 1 }
            return .success(keys.count)
        } catch {
            reloads.withLock { $0.failed += 1 }
            return .failure(error)
        }
    }

    private func publish(_ keys: APIKeys) {
        let generation = published.add(1, ordering: .relaxed).newValue
        let set = Unmanaged.passRetained(KeySet(keys, generation: generation))  // released in deinit: see the type's note
        let old = current.exchange(Int(bitPattern: set.toOpaque()), ordering: .acquiringAndReleasing)
        if old != 0 { replaced.withLock { $0.append(old) } }
    }

    @inline(__always)
    private func withKeys<R>(_ body: (APIKeys?) -> R) -> R {
        withKeySet { keys, _ in body(keys) }
    }

    /// The keys in force and their set's generation (0 when open).
    @inline(__always)
    private func withKeySet<R>(_ body: (APIKeys?, UInt32) -> R) -> R {
        let bits = current.load(ordering: .acquiring)
        guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return body(nil, 0) }
        return Unmanaged<KeySet>.fromOpaque(pointer)._withUnsafeGuaranteedRef { body($0.keys, $0.generation) }
    }

    /// What `request` may do, after checking that its scope is at least `needed`.
    /// Open service: ``Grant/all``, with no header looked at.
    /// - Throws: 401 without a (Bearer) key, 401 `invalid_token` for a key
    ///   not in the file, 403 `insufficient_scope` for too small a scope.
    @inline(__always)
    func authorize(_ request: HTTPRequest, needs needed: Scope?) throws(Problem) -> Grant {
        if alwaysOpen { return .all }  // the open service's hit path: one load of a constant
        return try authorizeByKey(request, needs: needed)
    }

    private func authorizeByKey(_ request: HTTPRequest, needs needed: Scope?) throws(Problem) -> Grant {
        try authorizeKey(request, needs: needed).grant
    }

    /// ``authorize(_:needs:)`` of a head, and the admission that lets its
    /// request (``HTTPRequest/admission``, the same request once its body is
    /// read) skip the key lookup: the key's index and the key set's
    /// generation, 0 when no key was looked up.
    func authorizeHead(_ head: HTTPRequest, needs needed: Scope?) throws(Problem) -> (grant: Grant, admission: UInt64) {
        if alwaysOpen { return (.all, 0) }
        return try authorizeKey(head, needs: needed)
    }

    /// A request whose head was admitted with its key (`admission` names
    /// the key and the key set then in force) takes that key's grant
    /// without a second lookup, while that key set is still in force;
    /// otherwise the key is looked up in the keys in force.
    private func authorizeKey(_ request: HTTPRequest, needs needed: Scope?) throws(Problem) -> (grant: Grant, admission: UInt64) {
        guard let needed else { return (.all, 0) }
        let admitted = request.admission
        let held: (grant: Grant, admission: UInt64)? = withKeySet { keys, generation in
            guard let keys else { return (.all, 0) }
            if admitted != 0, UInt32(truncatingIfNeeded: admitted >> 32) == generation {
                let index = Int(truncatingIfNeeded: admitted & 0xFFFF_FFFF) - 1
                if index >= 0, index < keys.count { return (keys.grant(at: index), admitted) }
            }
            // The field's bytes where the parser noted them: no string, no scan.
            var found: (grant: Grant, admission: UInt64)?
            request.headers.withAuthorization { value in
                guard let value, let token = AccessControl.bearerToken(value), let index = keys.index(of: token) else { return }
                found = (keys.grant(at: index), UInt64(generation) << 32 | UInt64(index + 1))
            }
            return found
        }
        guard let held else {
            throw AccessControl.unauthorized(request)
        }
        try AccessControl.require(needed, held: held.grant.scope)
        return held
    }

    /// 403 unless `held` covers `needed`.
    static func require(_ needed: Scope, held: Scope) throws(Problem) {
        guard held < needed else { return }
        var p = Problem(
            403, "insufficient-scope", "Insufficient scope",
            "this needs a key of scope \(needed.name) (or larger); the key given has scope \(held.name)")
        p.headers.set("WWW-Authenticate", "Bearer realm=\"hitroute\", error=\"insufficient_scope\", scope=\"\(needed.name)\"")
        throw p
    }

    /// The scope of a `Bearer` credential, or nil. A value of another scheme
    /// is no credential at all (RFC 6750 §3.1), distinguished by the caller.
    static func grant(ofAuthorization value: UnsafeBufferPointer<UInt8>, keys: APIKeys) -> Grant? {
        guard let token = bearerToken(value) else { return nil }
        return keys.grant(of: token)
    }

    /// The token of `Bearer <token>` (scheme case-insensitive, spaces
    /// around the token dropped), or nil for another scheme.
    /// - Complexity: O(value.count); allocates nothing.
    static func bearerToken(_ value: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let scheme: StaticString = "bearer"
        let n = scheme.utf8CodeUnitCount
        guard value.count > n, value[n] == UInt8(ascii: " ") else { return nil }
        for i in 0..<n where value[i] | 0x20 != scheme.utf8Start[i] { return nil }
        var lo = n
        var hi = value.count
        while lo < hi, value[lo] == UInt8(ascii: " ") { lo += 1 }
        while hi > lo, value[hi - 1] == UInt8(ascii: " ") { hi -= 1 }
        return UnsafeBufferPointer(rebasing: value[lo..<hi])
    }

    /// 401: `invalid_token` when a Bearer credential was sent, plain otherwise.
    static func unauthorized(_ request: HTTPRequest) -> Problem {
        let sentBearer = request.headers.withFirstValue("Authorization") { value in
            value.map { bearerToken($0) != nil } ?? false
        }
        if sentBearer {
            var p = Problem(401, "invalid-token", "Invalid API key", "the key given is not one of this service's keys")
            p.headers.set("WWW-Authenticate", "Bearer realm=\"hitroute\", error=\"invalid_token\"")
            return p
        }
        var p = Problem(
            401, "unauthorized", "Unauthorized",
            "this request needs an API key: send Authorization: Bearer <key>")
        p.headers.set("WWW-Authenticate", "Bearer realm=\"hitroute\"")
        return p
    }

    /// A key file's keys. - Throws: a message naming the file (and line).
    static func read(_ path: String) throws(KeyFileError) -> APIKeys {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw KeyFileError(message: "\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw KeyFileError(message: "\(path): cannot read: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > 1 << 20 { throw KeyFileError(message: "\(path): larger than 1 MiB") }
        }
        do {
            return try APIKeys(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw KeyFileError(message: "\(path): \(error.message)")
        }
    }
}

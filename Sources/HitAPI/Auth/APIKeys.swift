/// The API keys of a key file (SPEC §8): one `<scope> <key>` per line,
/// optionally followed by `scenes=<prefix>` (a tenant's key: it sees only
/// the scenes whose id starts with the prefix), `#` starting a comment
/// line, blank lines ignored; keys are at least 16 visible ASCII
/// characters, each listed once.
///
/// ```
/// # dashboards
/// read     r3ad-0nly-k3y-for-graphs
/// write    9f2c…                     scenes=team-a-
/// ```
///
/// A lookup hashes the presented bytes (SipHash, keyed with this process's
/// random seed, so where a key lands says nothing an outsider can use) into
/// a table of the keys' hashes, and compares the one key found there with
/// the presented bytes in time that depends on the lengths only, never on
/// where the bytes differ. A presented key that hashes to no key's slot is
/// compared with nothing.
public struct APIKeys: Sendable {
    struct Key: Sendable {
        let scope: Scope
        let bytes: [UInt8]
        /// `scenes=<prefix>`: the only scene ids this key reaches; nil for all.
        let scenePrefix: String?
    }

    let keys: [Key]
    /// Open addressing over `keys`: each slot 0 (empty) or a key's index + 1,
    /// at the slot of its hash (`slotMask` of it) or after it.
    private let slots: [Int32]
    /// Each key's full hash, by index.
    private let hashes: [Int]
    private let slotMask: Int

    /// The shortest key accepted.
    public static let minimumLength = 16
    /// The longest `scenes=` prefix: a generated id (prefix and 16 hex
    /// digits) must still be a valid id.
    public static let maximumPrefixLength = 96

    /// How many keys there are.
    public var count: Int { keys.count }

    /// Parses a key file's text.
    /// - Throws: a message naming the line at fault (never the key).
    public init(parsing text: String) throws(KeyFileError) {
        var keys: [Key] = []
        var lines: [[UInt8]: Int] = [:]
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = line.first, !first.hasPrefix("#") else { continue }
            let lineNumber = number + 1
            guard line.count == 2 || line.count == 3 else {
                throw KeyFileError(
                    message: "line \(lineNumber): expected `<scope> <key> [scenes=<prefix>]` (scopes: read, interact, write)")
            }
            guard let scope = Scope(name: String(first)) else {
                throw KeyFileError(message: "line \(lineNumber): unknown scope \"\(first.prefix(32))\" (scopes: read, interact, write)")
            }
            let key = Array(line[1].utf8)
            guard key.count >= APIKeys.minimumLength else {
                throw KeyFileError(message: "line \(lineNumber): the key is shorter than \(APIKeys.minimumLength) characters")
            }
            guard key.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
                throw KeyFileError(message: "line \(lineNumber): a key is visible ASCII characters only")
            }
            if let earlier = lines[key] {
                throw KeyFileError(message: "line \(lineNumber): the same key as line \(earlier)")
            }
            var prefix: String?
            if line.count == 3 {
                let option = line[2]
                guard option.hasPrefix("scenes=") else {
                    throw KeyFileError(message: "line \(lineNumber): the third word must be scenes=<prefix>")
                }
                let value = String(option.dropFirst("scenes=".count))
                guard !value.isEmpty, value.utf8.count <= APIKeys.maximumPrefixLength, value.utf8.allSatisfy(APIKeys.isIDByte) else {
                    throw KeyFileError(
                        message: "line \(lineNumber): a scenes= prefix is 1 to \(APIKeys.maximumPrefixLength) of A-Z a-z 0-9 . _ -")
                }
                prefix = value
            }
            lines[key] = lineNumber
            keys.append(Key(scope: scope, bytes: key, scenePrefix: prefix))
        }
        self.keys = keys
        var size = 4
        while size < 2 * keys.count { size <<= 1 }
        var slots = [Int32](repeating: 0, count: size)
        var hashes: [Int] = []
        hashes.reserveCapacity(keys.count)
        for (index, key) in keys.enumerated() {
            let hash = key.bytes.withUnsafeBufferPointer(APIKeys.hash)
            hashes.append(hash)
            var slot = hash & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(index + 1)
        }
        self.slots = slots
        self.hashes = hashes
        self.slotMask = size - 1
    }

    /// What `token` may do, or nil when it is no key of the file.
    /// - Complexity: O(token length) to hash it, then O(1) expected slots
    ///   (the table is at most half full) and one constant-time comparison
    ///   with the key whose hash equals the token's, if any.
    public func grant(of token: UnsafeBufferPointer<UInt8>) -> Grant? {
        index(of: token).map(grant(at:))
    }

    /// The index in ``keys`` of the key `token` is, or nil: one hash of
    /// the presented bytes, then one constant-time comparison.
    func index(of token: UnsafeBufferPointer<UInt8>) -> Int? {
        let hash = APIKeys.hash(token)
        var slot = hash & slotMask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return nil }
            if hashes[entry - 1] == hash {
                let equal = keys[entry - 1].bytes.withUnsafeBufferPointer { APIKeys.constantTimeEqual($0, token) }
                return equal ? entry - 1 : nil
            }
            slot = (slot + 1) & slotMask
        }
    }

    /// The grant of the key at `index` (an index ``index(of:)`` gave).
    @inline(__always)
    func grant(at index: Int) -> Grant {
        let key = keys[index]
        return Grant(scope: key.scope, scenePrefix: key.scenePrefix)
    }

    /// The scope of `token`, or nil when it is no key of the file.
    public func scope(of token: UnsafeBufferPointer<UInt8>) -> Scope? { grant(of: token)?.scope }

    /// SipHash-1-3 of `bytes`, seeded per process (`Hasher`).
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }

    /// `[A-Za-z0-9._-]`.
    static func isIDByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }

    /// Whether `a` and `b` are equal, looking at every byte of the longer
    /// one whatever the contents: in time that depends on the lengths only
    /// (of equal lengths, eight bytes at a time).
    static func constantTimeEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count, let x = a.baseAddress, let y = b.baseAddress else { return unequalLengthsEqual(a, b) }
        let n = a.count
        var difference: UInt64 = 0
        var i = 0
        while i &+ 8 <= n {
            difference |= UnsafeRawPointer(x + i).loadUnaligned(as: UInt64.self) ^ UnsafeRawPointer(y + i).loadUnaligned(as: UInt64.self)
            i &+= 8
        }
        while i < n {
            difference |= UInt64(x[i] ^ y[i])
            i &+= 1
        }
        return difference == 0
    }

    /// ``constantTimeEqual(_:_:)`` of buffers whose lengths may differ (or
    /// that are empty): every byte of the longer is looked at.
    private static func unequalLengthsEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        let n = max(a.count, b.count)
        var i = 0
        while i < n {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
            i += 1
        }
        return difference == 0
    }
}

/// What a request's credentials allow: a scope, and for a tenant's key the
/// prefix every scene id it reaches starts with.
public struct Grant: Sendable, Equatable {
    public var scope: Scope
    /// nil: every scene.
    public var scenePrefix: String?

    /// Everything (the open service; a request that needs no key).
    public static let all = Grant(scope: .write, scenePrefix: nil)

    /// Whether scene `id` is within reach.
    @inline(__always)
    func reaches(_ id: String) -> Bool {
        guard let scenePrefix else { return true }
        return id.utf8.starts(with: scenePrefix.utf8)
    }
}

/// A key file that cannot be used, with the reason.
public struct KeyFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

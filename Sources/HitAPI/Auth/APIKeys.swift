/// The API keys of a key file (SPEC §8): one `<scope> <key>` per line, `#`
/// starting a comment line, blank lines ignored; keys are at least 16
/// visible ASCII characters, each listed once.
///
/// ```
/// # dashboards
/// read     r3ad-0nly-k3y-for-graphs
/// write    9f2c…
/// ```
/// A lookup compares the presented key with every key, each in time that
/// depends on the lengths only, never on where the bytes differ.
public struct APIKeys: Sendable {
    struct Key: Sendable {
        let scope: Scope
        let bytes: [UInt8]
    }

    let keys: [Key]

    /// The shortest key accepted.
    public static let minimumLength = 16

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
            guard line.count == 2 else {
                throw KeyFileError(message: "line \(lineNumber): expected `<scope> <key>` (scopes: read, interact, write)")
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
            lines[key] = lineNumber
            keys.append(Key(scope: scope, bytes: key))
        }
        self.keys = keys
    }

    /// The scope of `token`, or nil when it is no key of the file.
    /// - Complexity: O(keys × max(key length, token length)), whatever matches.
    public func scope(of token: UnsafeBufferPointer<UInt8>) -> Scope? {
        var found = -1
        for key in keys {
            let equal = key.bytes.withUnsafeBufferPointer { APIKeys.constantTimeEqual($0, token) }
            // Every key is compared; the match only selects a value.
            found = equal ? key.scope.rawValue : found
        }
        return found < 0 ? nil : Scope(rawValue: found)
    }

    /// Whether `a` and `b` are equal, looking at every byte of the longer
    /// one whatever the contents.
    static func constantTimeEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
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

/// A key file that cannot be used, with the reason.
public struct KeyFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

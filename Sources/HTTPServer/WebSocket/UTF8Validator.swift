/// Checks UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
/// U+10FFFF) incrementally: a text message's fragments are fed as they
/// arrive, and a sequence may be split between two of them.
///
/// ```swift
/// var v = UTF8Validator()
/// v.feed([0xE2, 0x82])   // true: a valid start
/// v.feed([0xAC])         // true; v.isComplete == true ("€")
/// ```
struct UTF8Validator {
    /// Continuation bytes still expected for the current character.
    private var pending = 0
    /// The range the next continuation byte must fall in (narrower than
    /// 0x80...0xBF right after E0, ED, F0 and F4).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    /// Whether the bytes so far end on a character boundary.
    var isComplete: Bool { pending == 0 }

    /// Feeds the next bytes. False at the first byte that cannot continue
    /// valid UTF-8 (the validator is then spent).
    /// - Complexity: O(n); ASCII eight bytes at a time.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let n = bytes.count
        var k = 0
        while k < n {
            if pending == 0 {
                // ASCII runs, a word at a time.
                while k + 8 <= n, bytes.loadUnaligned(fromByteOffset: k, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    k += 8
                }
                guard k < n else { break }
                let b = bytes[k]
                k += 1
                switch b {
                case 0x00...0x7F: continue
                case 0xC2...0xDF:
                    pending = 1
                    low = 0x80
                    high = 0xBF
                case 0xE0:
                    pending = 2
                    low = 0xA0
                    high = 0xBF
                case 0xE1...0xEC, 0xEE...0xEF:
                    pending = 2
                    low = 0x80
                    high = 0xBF
                case 0xED:
                    pending = 2
                    low = 0x80
                    high = 0x9F
                case 0xF0:
                    pending = 3
                    low = 0x90
                    high = 0xBF
                case 0xF1...0xF3:
                    pending = 3
                    low = 0x80
                    high = 0xBF
                case 0xF4:
                    pending = 3
                    low = 0x80
                    high = 0x8F
                default: return false
                }
            } else {
                let b = bytes[k]
                k += 1
                guard b >= low && b <= high else { return false }
                pending -= 1
                low = 0x80
                high = 0xBF
            }
        }
        return true
    }

    /// ``feed(_:)`` over an array.
    mutating func feed(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { feed($0) }
    }
}

/// Byte-level scanning of the request line and of field sections (the
/// header block, and a chunked body's trailers).
extension HTTPRequestParser {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20

    /// Byte `index` (0…4) of `"HTTP/"`.
    @inline(__always)
    static func httpSlash(_ index: Int) -> UInt8 {
        switch index {
        case 0: return UInt8(ascii: "H")
        case 1, 2: return UInt8(ascii: "T")
        case 3: return UInt8(ascii: "P")
        default: return UInt8(ascii: "/")
        }
    }

    /// Scans request-line and header bytes; appends them to `head`.
    mutating func parseHead(_ input: UnsafeRawBufferPointer) -> (consumed: Int, step: Step) {
        let n = input.count
        let base = consumed
        // A new message: the last head's request is usually gone by now and
        // the buffer is emptied in place (else the request keeps it, and
        // `head` gets a new one).
        if base == 0, !head.isEmpty { head.removeAll(keepingCapacity: true) }
        let lineLimit = limits.maxRequestLineBytes
        var i = 0
        scan: while i < n {
            switch state {
            case .requestStart:
                if base + i >= lineLimit { return (i, fail(.requestLineTooLong, at: base + i)) }
                let b = input[i]
                if ByteClass.isToken(b) {
                    methodStart = base + i
                    state = .method
                } else if b == Self.cr {
                    state = .leadingLF
                } else if b == Self.lf {
                    return (i, fail(.invalidLineEnding, at: base + i))
                } else {
                    return (i, fail(.invalidMethod, at: base + i))
                }
                i += 1

            case .leadingLF:
                guard input[i] == Self.lf else { return (i, fail(.invalidLineEnding, at: base + i)) }
                state = .requestStart
                i += 1

            case .method:
                let end = min(n, methodStart + lineLimit - base)
                while i < end, ByteClass.isToken(input[i]) { i += 1 }
                if i == n { break scan }
                if i == end { return (i, fail(.requestLineTooLong, at: base + i)) }
                guard input[i] == Self.sp else { return (i, fail(.invalidMethod, at: base + i)) }
                methodEnd = base + i
                if methodEnd - methodStart == 4 {  // POST, the hit's method, too: one load, not a loop
                    methodIsHead =
                        methodStart >= base
                        ? UInt32(littleEndian: input.loadUnaligned(fromByteOffset: methodStart - base, as: UInt32.self)) == Self.headWord
                        : methodBytesAreHEAD(input, base: base)
                }
                targetStart = base + i + 1
                state = .target
                i += 1

            case .target:
                let end = min(n, methodStart + lineLimit - base)
                while i < end, ByteClass.isTarget(input[i]) { i += 1 }
                if i == n { break scan }
                if i == end { return (i, fail(.requestLineTooLong, at: base + i)) }
                guard input[i] == Self.sp, base + i > targetStart else {
                    return (i, fail(.invalidTarget, at: base + i))
                }
                targetEnd = base + i
                state = .version(index: 0)
                i += 1

            case .version(let index):
                if index == 0, i + 9 <= n, base + i + 8 - methodStart <= lineLimit,
                    let minor = Self.version1(input, at: i)
                {
                    // `HTTP/1.x` and its CR at hand: one word, not eight states.
                    versionMajor = 1
                    versionMinor = minor
                    state = .requestLineLF
                    i += 9
                    continue
                }
                let b = input[i]
                if b != Self.cr, base + i - methodStart >= lineLimit {
                    return (i, fail(.requestLineTooLong, at: base + i))
                }
                switch index {
                case 0...4:
                    guard b == Self.httpSlash(index) else { return (i, fail(.invalidVersion, at: base + i)) }
                case 5, 7:
                    guard b &- UInt8(ascii: "0") < 10 else { return (i, fail(.invalidVersion, at: base + i)) }
                    if index == 5 { versionMajor = b &- UInt8(ascii: "0") } else { versionMinor = b &- UInt8(ascii: "0") }
                case 6:
                    guard b == UInt8(ascii: ".") else { return (i, fail(.invalidVersion, at: base + i)) }
                default:
                    guard b == Self.cr else { return (i, fail(.invalidVersion, at: base + i)) }
                }
                state = index == 8 ? .requestLineLF : .version(index: index + 1)
                i += 1

            case .requestLineLF:
                guard input[i] == Self.lf else { return (i, fail(.invalidLineEnding, at: base + i)) }
                guard versionMajor == 1 else { return (i, fail(.unsupportedVersion, at: targetEnd + 1)) }
                i += 1
                sectionStart = base + i
                fieldCount = 0
                state = .fieldLineStart

            case .fieldLineStart, .fieldName, .fieldValue, .fieldLF, .sectionEndLF:
                let (next, outcome) = scanFields(input, from: i, base: base)
                i = next
                switch outcome {
                case .needMore:
                    break scan
                case .failed(let event):
                    return (i, event)
                case .end:
                    head.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<i]))
                    consumed = base + i
                    return (i, finishHead())
                }

            default:
                preconditionFailure("parseHead in state \(state)")
            }
        }
        head.append(contentsOf: input)
        consumed = base + n
        return (n, .needMoreData)
    }

    enum FieldScan {
        case needMore
        /// The empty line ending the section was consumed.
        case end
        case failed(Step)
    }

    /// Scans field lines until the section's empty line. In the header
    /// block the lines are recorded in `fields`; trailers are only
    /// validated. Both are bounded by `maxHeaderBytes` and `maxHeaderCount`.
    mutating func scanFields(_ input: UnsafeRawBufferPointer, from start: Int, base: Int) -> (Int, FieldScan) {
        let n = input.count
        let limitIndex = sectionStart + limits.maxHeaderBytes - base
        var i = start
        while i < n {
            if i >= limitIndex { return (i, .failed(fail(.headerTooLarge, at: base + i))) }
            let end = min(n, limitIndex)
            switch state {
            case .fieldLineStart:
                let b = input[i]
                if ByteClass.isToken(b) {
                    if fieldCount >= limits.maxHeaderCount {
                        return (i, .failed(fail(.headerTooLarge, at: base + i)))
                    }
                    lineStart = base + i
                    state = .fieldName
                } else if b == Self.cr {
                    state = .sectionEndLF
                } else if ByteClass.isWhitespace(b) {
                    return (i, .failed(fail(.obsoleteLineFolding, at: base + i)))
                } else if b == Self.lf {
                    return (i, .failed(fail(.invalidLineEnding, at: base + i)))
                } else {
                    return (i, .failed(fail(.invalidFieldName, at: base + i)))
                }
                i += 1

            case .fieldName:
                while i < end, ByteClass.isToken(input[i]) { i += 1 }
                if i == end { continue }
                let b = input[i]
                if b == UInt8(ascii: ":") {
                    nameEnd = base + i
                    valueStart = -1
                    state = .fieldValue
                    i += 1
                } else if ByteClass.isWhitespace(b) {
                    return (i, .failed(fail(.whitespaceBeforeColon, at: base + i)))
                } else {
                    return (i, .failed(fail(.invalidFieldName, at: base + i)))
                }

            case .fieldValue:
                let segment = i
                i = ByteClass.fieldValueEnd(input, from: i, to: end)
                // The value runs from its first to its last visible byte
                // (OWS around it is not the value), over however many reads.
                var lo = segment
                var hi = i
                while hi > lo, ByteClass.isWhitespace(input[hi - 1]) { hi -= 1 }
                if hi > lo {
                    if valueStart < 0 {
                        while ByteClass.isWhitespace(input[lo]) { lo += 1 }
                        valueStart = base + lo
                    }
                    valueEnd = base + hi
                }
                if i == end { continue }
                let b = input[i]
                if b == Self.cr {
                    state = .fieldLF
                    i += 1
                } else if b == Self.lf {
                    return (i, .failed(fail(.invalidLineEnding, at: base + i)))
                } else {
                    return (i, .failed(fail(.invalidFieldValue, at: base + i)))
                }

            case .fieldLF:
                guard input[i] == Self.lf else { return (i, .failed(fail(.invalidLineEnding, at: base + i))) }
                if !inTrailers {
                    let empty = valueStart < 0
                    fields.append(
                        FieldRange(
                            nameStart: Int32(lineStart), nameEnd: Int32(nameEnd),
                            valueStart: Int32(empty ? nameEnd + 1 : valueStart),
                            valueEnd: Int32(empty ? nameEnd + 1 : valueEnd)))
                }
                fieldCount += 1
                state = .fieldLineStart
                i += 1

            case .sectionEndLF:
                guard input[i] == Self.lf else { return (i, .failed(fail(.invalidLineEnding, at: base + i))) }
                return (i + 1, .end)

            default:
                preconditionFailure("scanFields in state \(state)")
            }
        }
        return (i, .needMore)
    }

    /// `HTTP/1.` as the low seven bytes of a little-endian word (computed:
    /// a `static let` would cost a lazy-initialisation check per request).
    static var http1Word: UInt64 { 0x002E_312F_5054_5448 }

    /// The minor version when the nine bytes at `i` are `HTTP/1.` DIGIT CR,
    /// else nil (the version states then take the bytes one by one).
    @inline(__always)
    static func version1(_ input: UnsafeRawBufferPointer, at i: Int) -> UInt8? {
        let word = UInt64(littleEndian: input.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let minor = UInt8(truncatingIfNeeded: word >> 56) &- UInt8(ascii: "0")
        guard word & 0x00FF_FFFF_FFFF_FFFF == http1Word, minor < 10, input[i + 8] == cr else { return nil }
        return minor
    }

    /// `HEAD`'s four bytes read as one little-endian word.
    static let headWord = UInt32(0x48) | UInt32(0x45) << 8 | UInt32(0x41) << 16 | UInt32(0x44) << 24

    /// Whether the method `methodStart..<methodEnd` (four bytes, the first
    /// ones received before `base` and so in `head`) is `HEAD`.
    private func methodBytesAreHEAD(_ input: UnsafeRawBufferPointer, base: Int) -> Bool {
        var k = 0
        for b in "HEAD".utf8 {
            let offset = methodStart + k
            guard (offset < base ? head[offset] : input[offset - base]) == b else { return false }
            k += 1
        }
        return true
    }
}

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
                i = ByteClass.tokenEnd(input, from: i, to: end)
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
                i = ByteClass.targetEnd(input, from: i, to: end)
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
                notes = FieldNotes()
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
    /// block the fields ``finishHead()`` reads are noted in `notes`;
    /// trailers are only validated. Both are bounded by `maxHeaderBytes` and
    /// `maxHeaderCount`.
    mutating func scanFields(_ input: UnsafeRawBufferPointer, from start: Int, base: Int) -> (Int, FieldScan) {
        let n = input.count
        let limitIndex = sectionStart + limits.maxHeaderBytes - base
        let end = min(n, limitIndex)
        var i = start
        while i < n {
            if i >= limitIndex { return (i, .failed(fail(.headerTooLarge, at: base + i))) }
            // A line read whole goes through the cases below in order
            // (`fallthrough`), with one dispatch on the state.
            switch state {
            case .fieldLineStart:
                let b = input[i]
                if ByteClass.isToken(b) {
                    if fieldCount >= limits.maxHeaderCount {
                        return (i, .failed(fail(.headerTooLarge, at: base + i)))
                    }
                    lineStart = base + i
                    state = .fieldName
                    i += 1
                    fallthrough
                } else if b == Self.cr {
                    state = .sectionEndLF
                    i += 1
                    continue
                } else if ByteClass.isWhitespace(b) {
                    return (i, .failed(fail(.obsoleteLineFolding, at: base + i)))
                } else if b == Self.lf {
                    return (i, .failed(fail(.invalidLineEnding, at: base + i)))
                } else {
                    return (i, .failed(fail(.invalidFieldName, at: base + i)))
                }

            case .fieldName:
                i = ByteClass.tokenEnd(input, from: i, to: end)
                if i == end { continue }
                let b = input[i]
                guard b == UInt8(ascii: ":") else {
                    if ByteClass.isWhitespace(b) {
                        return (i, .failed(fail(.whitespaceBeforeColon, at: base + i)))
                    }
                    return (i, .failed(fail(.invalidFieldName, at: base + i)))
                }
                nameEnd = base + i
                valueStart = -1
                if !inTrailers { lineKind = noteName(input, base: base, colon: i) }
                state = .fieldValue
                i += 1
                fallthrough

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
                guard b == Self.cr else {
                    if b == Self.lf { return (i, .failed(fail(.invalidLineEnding, at: base + i))) }
                    return (i, .failed(fail(.invalidFieldValue, at: base + i)))
                }
                state = .fieldLF
                i += 1
                fallthrough

            case .fieldLF:
                if i == end { continue }
                guard input[i] == Self.lf else { return (i, .failed(fail(.invalidLineEnding, at: base + i))) }
                if !inTrailers {
                    let empty = valueStart < 0
                    notes.note(
                        lineKind, nameStart: lineStart,
                        valueStart: empty ? nameEnd + 1 : valueStart, valueEnd: empty ? nameEnd + 1 : valueEnd)
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

    /// Notes what the name of the field line being scanned tells (its
    /// colon is at `colon`, the name begins at `lineStart`), and returns
    /// its kind.
    @inline(__always)
    mutating func noteName(_ input: UnsafeRawBufferPointer, base: Int, colon: Int) -> FieldKind {
        if lineStart >= base { return noteName(input.baseAddress! + (lineStart - base), count: base + colon - lineStart) }
        return noteSplitName(input, base: base, colon: colon)
    }

    /// ``noteName(_:base:colon:)`` for a name that began in an earlier
    /// read: its first bytes are in `head`.
    @inline(never)
    mutating func noteSplitName(_ input: UnsafeRawBufferPointer, base: Int, colon: Int) -> FieldKind {
        var name = Array(head[lineStart..<base])
        name.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<colon]))
        return name.withUnsafeBytes { noteName($0.baseAddress!, count: $0.count) }
    }

    /// Notes an `Origin` field and `watchedField` (as ``finishHead()``
    /// would on reading the line again), and returns the kind of the field
    /// named by the `count` token bytes at `name`.
    @inline(__always)
    mutating func noteName(_ name: UnsafeRawPointer, count: Int) -> FieldKind {
        let kind = Self.fieldKind(name, count: count)
        if kind == .origin { notes.sawOrigin = true }
        if Self.isWatched(kind, name, count: count, watchedField) { notes.sawWatchedField = true }
        return kind
    }

    /// Whether the field of `kind` named by the `count` bytes at `name` is
    /// `watched` (lowercase; empty for none). Only a name the parser reads
    /// for nothing else (`.other`, or `Content-Type`, noted only for the
    /// headers) can be.
    @inline(__always)
    static func isWatched(_ kind: FieldKind, _ name: UnsafeRawPointer, count: Int, _ watched: [UInt8]) -> Bool {
        guard kind == .other || kind == .contentType, count == watched.count else { return false }
        let bytes = UnsafeBufferPointer(start: name.assumingMemoryBound(to: UInt8.self), count: count)
        return watched.withUnsafeBufferPointer { asciiEqualsLowercased(bytes, $0) }
    }

    /// The kind of the field named by the `count` token bytes at `name`,
    /// ASCII case-insensitively: a name's words, each byte with bit 5 set,
    /// against the lowercase names' (among token bytes only letters
    /// become letters that way, and only `-` stays `-`).
    @inline(__always)
    static func fieldKind(_ name: UnsafeRawPointer, count: Int) -> FieldKind {
        @inline(__always)
        func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: name.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) | 0x2020_2020_2020_2020
        }
        @inline(__always)
        func half(_ offset: Int) -> UInt32 {
            UInt32(littleEndian: name.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) | 0x2020_2020
        }
        switch count {
        case 4:
            return half(0) == 0x7473_6F68 ? .host : .other  // "host"
        case 6:
            let a = half(0)
            let b = half(2)
            if a == 0x6769_726F, b == 0x6E69_6769 { return .origin }  // "orig", "igin"
            if a == 0x6570_7865, b == 0x7463_6570 { return .expect }  // "expe", "pect"
            return .other
        case 10:  // "connecti", "nnection"
            return word(0) == 0x6974_6365_6E6E_6F63 && word(2) == 0x6E6F_6974_6365_6E6E ? .connection : .other
        case 12:
            let a = word(0)
            let b = word(4)
            if a == 0x2D74_6E65_746E_6F63, b == 0x6570_7974_2D74_6E65 { return .contentType }  // "content-", "ent-type"
            if a == 0x7365_7571_6572_2D78, b == 0x6469_2D74_7365_7571 { return .requestID }  // "x-reques", "quest-id"
            return .other
        case 13:  // "authoriz", "rization"
            return word(0) == 0x7A69_726F_6874_7561 && word(5) == 0x6E6F_6974_617A_6972 ? .authorization : .other
        case 14:  // "content-", "t-length"
            return word(0) == 0x2D74_6E65_746E_6F63 && word(6) == 0x6874_676E_656C_2D74 ? .contentLength : .other
        case 17:  // "transfer", "encoding" (its `-` is the byte between)
            return word(0) == 0x7265_6673_6E61_7274 && word(9) == 0x676E_6964_6F63_6E65
                && name.load(fromByteOffset: 8, as: UInt8.self) == UInt8(ascii: "-") ? .transferEncoding : .other
        default:
            return .other
        }
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

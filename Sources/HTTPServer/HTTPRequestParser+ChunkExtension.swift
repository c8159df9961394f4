/// Chunk extensions (RFC 9112 §7.1.1), checked byte by byte and ignored:
///
///     chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
///     chunk-ext-name = token
///     chunk-ext-val  = token / quoted-string
///
/// A chunk line whose extension leaves this grammar (an unterminated
/// quoted string, a bare `=`, a control byte) is a framing error: the
/// body's framing can no longer be trusted, so it is a 400 and the
/// connection closes, before any byte of the chunk is read.
extension HTTPRequestParser {
    /// Where in `chunk-ext` the parser is; the `;` that opens an extension
    /// has been read when `.chunkExtension` is entered (at `.beforeName`).
    enum ChunkExtensionStep: UInt8 {
        case beforeName, name, afterName, beforeValue, token, quoted, quotedPair, afterValue
    }

    /// Scans extension bytes from `start` up to `end` (the chunk line's
    /// limit, or the input's end), stopping after the CR that ends the line.
    /// - Returns: the index after the last byte consumed, and whether the
    ///   line's CR was reached (`true`), more is needed (`false`), or the
    ///   byte at the returned index breaks the grammar (`nil`).
    mutating func scanChunkExtension(_ input: UnsafeRawBufferPointer, from start: Int, to end: Int) -> (Int, Bool?) {
        var i = start
        var step = chunkExtensionStep
        defer { chunkExtensionStep = step }
        while i < end {
            let b = input[i]
            let space = b == Self.sp || b == 0x09
            switch step {
            case .beforeName:
                if ByteClass.isToken(b) { step = .name } else if !space { return (i, nil) }
            case .name, .token:
                if ByteClass.isToken(b) { break }
                if b == UInt8(ascii: ";") {
                    step = .beforeName
                } else if b == UInt8(ascii: "="), step == .name {
                    step = .beforeValue
                } else if b == Self.cr {
                    return (i + 1, true)
                } else if space {
                    step = step == .name ? .afterName : .afterValue
                } else {
                    return (i, nil)
                }
            case .afterName, .afterValue:
                if b == UInt8(ascii: ";") {
                    step = .beforeName
                } else if b == UInt8(ascii: "="), step == .afterName {
                    step = .beforeValue
                } else if b == Self.cr {
                    return (i + 1, true)
                } else if !space {
                    return (i, nil)
                }
            case .beforeValue:
                if b == UInt8(ascii: "\"") {
                    step = .quoted
                } else if ByteClass.isToken(b) {
                    step = .token
                } else if !space {
                    return (i, nil)
                }
            case .quoted:
                // qdtext: HTAB, SP, %x21, %x23-5B, %x5D-7E, obs-text.
                if b == UInt8(ascii: "\"") {
                    step = .afterValue
                } else if b == UInt8(ascii: "\\") {
                    step = .quotedPair
                } else if !(space || (b >= 0x21 && b != 0x7F)) {
                    return (i, nil)
                }
            case .quotedPair:
                // HTAB, SP, VCHAR, obs-text.
                guard space || (b >= 0x21 && b != 0x7F) else { return (i, nil) }
                step = .quoted
            }
            i += 1
        }
        return (i, false)
    }
}

/// Body framing: `Content-Length` bodies, and chunked bodies with chunk
/// extensions (validated, ignored) and trailers (validated, discarded).
extension HTTPRequestParser {
    /// Consumes body bytes until the message completes.
    mutating func parseBody(_ input: UnsafeRawBufferPointer) -> (consumed: Int, step: Step) {
        let n = input.count
        let base = consumed
        var i = 0
        while i < n {
            switch state {
            case .body(let remaining):
                let take = min(remaining, n - i)
                appendBody(UnsafeRawBufferPointer(rebasing: input[i..<(i + take)]), of: remaining)
                i += take
                if remaining == take {
                    consumed = base + i
                    return (i, completeMessage())
                }
                state = .body(remaining: remaining - take)

            case .chunkSize:
                if base + i - chunkLineStart >= limits.maxChunkLineBytes {
                    return (i, fail(.invalidChunkExtension, at: base + i))
                }
                let b = input[i]
                if let digit = ByteClass.hexValue(b) {
                    chunkDigits += 1
                    guard chunkSizeValue <= (Int.max - 15) >> 4 else {
                        return (i, fail(.bodyTooLarge, at: base + i))
                    }
                    chunkSizeValue = chunkSizeValue * 16 + digit
                    if chunkSizeValue > limits.maxBodyBytes - body.count {
                        return (i, fail(.bodyTooLarge, at: base + i))
                    }
                } else if chunkDigits == 0 {
                    return (i, fail(.invalidChunkSize, at: base + i))
                } else if b == UInt8(ascii: ";") {
                    chunkExtensionStep = .beforeName
                    state = .chunkExtension
                } else if ByteClass.isWhitespace(b) {
                    state = .chunkSizeWhitespace
                } else if b == Self.cr {
                    state = .chunkSizeLF
                } else if b == Self.lf {
                    return (i, fail(.invalidLineEnding, at: base + i))
                } else {
                    return (i, fail(.invalidChunkSize, at: base + i))
                }
                i += 1

            case .chunkSizeWhitespace:
                // BWS is allowed only before a chunk extension's ";", and
                // counts toward the chunk line's limit like any other byte.
                if base + i - chunkLineStart >= limits.maxChunkLineBytes {
                    return (i, fail(.invalidChunkExtension, at: base + i))
                }
                let b = input[i]
                if b == UInt8(ascii: ";") {
                    chunkExtensionStep = .beforeName
                    state = .chunkExtension
                } else if !ByteClass.isWhitespace(b) {
                    return (i, fail(.invalidChunkSize, at: base + i))
                }
                i += 1

            case .chunkExtension:
                let end = min(n, chunkLineStart + limits.maxChunkLineBytes - base)
                let (next, ended) = scanChunkExtension(input, from: i, to: end)
                i = next
                guard let ended else { return (i, fail(.invalidChunkExtension, at: base + i)) }
                if ended {
                    state = .chunkSizeLF
                } else if i >= end, i < n {
                    // At the line's limit (never past it: every state
                    // before this one checks the limit first).
                    return (i, fail(.invalidChunkExtension, at: base + i))
                }

            case .chunkSizeLF:
                guard input[i] == Self.lf else { return (i, fail(.invalidLineEnding, at: base + i)) }
                i += 1
                if chunkSizeValue == 0 {
                    inTrailers = true
                    sectionStart = base + i
                    fieldCount = 0
                    state = .fieldLineStart
                } else {
                    state = .chunkData(remaining: chunkSizeValue)
                }

            case .chunkData(let remaining):
                let take = min(remaining, n - i)
                appendBody(UnsafeRawBufferPointer(rebasing: input[i..<(i + take)]), of: remaining)
                i += take
                state = remaining == take ? .chunkDataCR : .chunkData(remaining: remaining - take)

            case .chunkDataCR:
                guard input[i] == Self.cr else { return (i, fail(.invalidChunkTerminator, at: base + i)) }
                state = .chunkDataLF
                i += 1

            case .chunkDataLF:
                guard input[i] == Self.lf else { return (i, fail(.invalidChunkTerminator, at: base + i)) }
                i += 1
                chunkLineStart = base + i
                chunkSizeValue = 0
                chunkDigits = 0
                state = .chunkSize

            case .fieldLineStart, .fieldName, .fieldValue, .fieldLF, .sectionEndLF:
                let (next, outcome) = scanFields(input, from: i, base: base)
                i = next
                switch outcome {
                case .needMore:
                    break
                case .failed(let event):
                    return (i, event)
                case .end:
                    consumed = base + i
                    return (i, completeMessage())
                }

            default:
                preconditionFailure("parseBody in state \(state)")
            }
        }
        consumed = base + n
        return (n, .needMoreData)
    }

    /// Appends body bytes, the first of `remaining` announced ones (the
    /// rest of the body, or of the chunk).
    private mutating func appendBody(_ bytes: UnsafeRawBufferPointer, of remaining: Int) {
        growBody(toAppend: bytes.count, of: remaining)
        prefaultAhead(of: bytes.count)
        body.append(contentsOf: bytes)
    }

    /// Makes room for `take` more body bytes out of `remaining` announced
    /// ones (the rest of the body, or of the chunk). Grows by doubling until
    /// it holds a sixteenth of the announced total, then to that total
    /// exactly: a big upload fills one buffer of its own size after copying
    /// at most a quarter of itself on the way (a fresh buffer also costs a
    /// page fault per 4 KiB written), a client gets room for at most
    /// sixteen times what it sent (or the first MiB, see `Framing`), and
    /// many small chunks cost amortised O(1) each.
    private mutating func growBody(toAppend take: Int, of remaining: Int) {
        guard body.count + take > body.capacity else { return }
        let total = body.count + remaining
        let doubled = max(body.count + take, 2 * body.capacity)
        body.reserveCapacity((body.count + take) * 16 >= total && total >= doubled / 2 ? total : doubled)
        prefaulted = body.count  // a new buffer: the copy wrote that much of it
    }

    /// Before `take` more bytes are written into a big body's buffer, has
    /// the kernel back the next stretch of it (up to `prefaultStride` past
    /// them) in one call, instead of trapping on each 4 KiB page as the
    /// copy first writes it: about a quarter less time to receive a 77 MB
    /// body into a fresh server. Memory is backed at most `prefaultStride`
    /// ahead of what arrived, and one call stays short (64 pages) for the
    /// other connections of the loop. A hint: on kernels without it,
    /// nothing happens.
    private mutating func prefaultAhead(of take: Int) {
        let end = body.count + take
        guard end > prefaulted, body.capacity >= HTTPRequestParser.prefaultStride else { return }
        let upTo = min(body.capacity, end + HTTPRequestParser.prefaultStride)
        body.withUnsafeMutableBufferPointer { buffer in
            let base = UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped)
            Syscall.prefault(UnsafeMutableRawBufferPointer(start: base + prefaulted, count: upTo - prefaulted))
        }
        prefaulted = upTo
    }
}

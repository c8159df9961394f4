import Glibc

/// Bytes waiting to be sent on one connection, in order.
///
/// Small writes (response heads, small bodies) are coalesced into one
/// owned chunk whose storage is recycled once sent, so a steady stream of
/// small responses allocates nothing. Large bodies are queued as their own
/// chunk without copying. ``write(to:)`` sends with one `send`, or one
/// `sendmsg` of two iovecs when a head precedes a large body.
struct OutboundBuffer {
    /// Bodies at least this large are queued by reference, not copied.
    static let copyThreshold = 16 * 1024
    /// Owned storage larger than this is freed rather than recycled.
    static let recycleLimit = 256 * 1024

    private struct Chunk {
        var bytes: [UInt8]
        var owned: Bool
    }

    private var chunks: [Chunk] = []
    private var first = 0
    private var offset = 0
    private var spare: [UInt8] = []
    /// Bytes not yet sent.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Bytes held in memory: those not yet sent, and the sent part of the
    /// chunk being sent (freed with it).
    var held: Int { count + offset }

    /// Appends bytes written by `body` into the coalescing chunk.
    @inline(__always)
    mutating func appendOwned(_ body: (inout [UInt8]) -> Void) {
        if chunks.count == first || !chunks[chunks.count - 1].owned {
            var storage: [UInt8] = []
            swap(&storage, &spare)
            if storage.capacity == 0 { storage.reserveCapacity(2048) }
            chunks.append(Chunk(bytes: storage, owned: true))
        }
        let last = chunks.count - 1
        let before = chunks[last].bytes.count
        body(&chunks[last].bytes)
        count += chunks[last].bytes.count - before
    }

    /// Appends `bytes`: copied when small, queued by reference when large.
    mutating func append(_ bytes: [UInt8]) {
        if bytes.count < Self.copyThreshold {
            appendOwned { $0.append(contentsOf: bytes) }
        } else {
            chunks.append(Chunk(bytes: bytes, owned: false))
            count += bytes.count
        }
    }

    /// Sends as much as the socket accepts right now.
    mutating func write(to fd: Int32) -> IOResult {
        guard count > 0 else { return .done(0) }
        let result: IOResult
        let offset = self.offset
        if chunks.count - first >= 2 {
            result = chunks[first].bytes.withUnsafeBytes { a in
                chunks[first + 1].bytes.withUnsafeBytes { b in
                    var vectors = (
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: a.baseAddress! + offset), iov_len: a.count - offset),
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: b.baseAddress!), iov_len: b.count)
                    )
                    return withUnsafeMutableBytes(of: &vectors) { raw in
                        var message = msghdr()
                        message.msg_iov = raw.baseAddress!.assumingMemoryBound(to: iovec.self)
                        message.msg_iovlen = 2
                        return Syscall.nonBlocking("sendmsg") { sendmsg(fd, &message, Int32(MSG_NOSIGNAL)) }
                    }
                }
            }
        } else {
            result = chunks[first].bytes.withUnsafeBytes { a in
                Syscall.nonBlocking("send") {
                    send(fd, a.baseAddress! + offset, a.count - offset, Int32(MSG_NOSIGNAL))
                }
            }
        }
        if case .done(let n) = result { consume(n) }
        return result
    }

    private mutating func consume(_ sent: Int) {
        count -= sent
        if count == 0, chunks.count == first + 1, chunks[first].owned,
            chunks[first].bytes.capacity <= Self.recycleLimit
        {
            // The usual case: one response head and body, sent whole. Its
            // chunk stays, empty, to coalesce the next response into.
            chunks[first].bytes.removeAll(keepingCapacity: true)
            offset = 0
            return
        }
        var left = sent
        while left > 0 {
            let available = chunks[first].bytes.count - offset
            if left < available {
                offset += left
                return
            }
            left -= available
            recycle(first)
            first += 1
            offset = 0
        }
        if first == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            first = 0
        }
    }

    private mutating func recycle(_ index: Int) {
        guard chunks[index].owned, chunks[index].bytes.capacity <= Self.recycleLimit,
            chunks[index].bytes.capacity > spare.capacity
        else {
            chunks[index].bytes = []
            return
        }
        swap(&spare, &chunks[index].bytes)
        spare.removeAll(keepingCapacity: true)
        chunks[index].bytes = []
    }
}

/// A growing byte buffer that owns its storage outright (it cannot be
/// copied), so an append is a capacity check and a store: no reference
/// counting and no uniqueness check per byte, which an array would make.
/// ``finish()`` hands the bytes out as an array (one copy, once).
///
/// With a `limit` the buffer never holds more than `limit` bytes plus one
/// write: an append that would pass it sets ``overflowed`` and writing goes
/// on over the start of the buffer (the text is garbage from then on; the
/// caller checks ``overflowed`` before using it).
///
/// The JSON writer (`HitJSON.JSONWriter`) and the SVG writer
/// (`HitRender.SVGWriter`) are both this buffer with their own grammar on top.
public struct ByteBuffer: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var written = 0
    @usableFromInline var capacity: Int
    /// The most the buffer may hold (`Int.max`: no bound).
    @usableFromInline let limit: Int
    /// Whether an append would have passed `limit`.
    public private(set) var overflowed = false

    /// An empty buffer reserving `capacity` bytes (at least `minimum`, at
    /// most `limit`).
    public init(capacity: Int, minimum: Int = 16, limit: Int = .max) {
        self.limit = max(limit, minimum)
        self.capacity = min(max(capacity, minimum), self.limit)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Bytes written.
    public var count: Int { written }

    /// The bytes written, as an array; the buffer is gone afterwards.
    /// - Complexity: O(count), one copy.
    public consuming func finish() -> [UInt8] {
        // Not `Array(unsafeUninitializedCapacity:)`: that calls unspecialised
        // code in the standard library, which looks the array's type up
        // each time (about 500 instructions); this copy is specialised.
        Array(UnsafeBufferPointer(start: base, count: written))
    }

    /// Runs `body` over the bytes written so far.
    @inlinable @inline(__always)
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: written))
    }

    /// Room for `n` more bytes; returns where they go. Call `advance(n)`
    /// after writing them.
    @inlinable @inline(__always)
    public mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(written &+ n > capacity) { grow(n) }
        return base + written
    }

    /// Counts `n` bytes written at `reserve(n)`'s pointer.
    @inlinable @inline(__always)
    public mutating func advance(_ n: Int) {
        written &+= n
    }

    /// Makes room for `n` more bytes: doubles the storage (or more), up to
    /// `limit`; past `limit`, notes the overflow and starts over at 0.
    /// - Complexity: O(count), amortised O(1) per byte.
    @usableFromInline
    mutating func grow(_ n: Int) {
        if written &+ n > limit {
            overflowed = true
            written = 0
            if n <= capacity { return }
        }
        let newCapacity = min(max(capacity * 2, written + n), max(limit, n))
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: written)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        advance(1)
    }

    /// Appends `bytes`.
    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        ByteBuffer.copy(source, to: reserve(bytes.count), count: bytes.count)
        advance(bytes.count)
    }

    /// Copies `count` bytes from `source` to `target` (regions that do not
    /// overlap). Up to 32 bytes, the length of most JSON keys, ids, numbers
    /// and a trace's members (`"reason":"pointer-events-none"`), move as
    /// loads and stores of overlapping words (byte by byte below 4)
    /// instead of a call to `memcpy`.
    /// - Complexity: O(count).
    @inlinable @inline(__always)
    public static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        if count > 32 {
            target.update(from: source, count: count)
        } else if count > 16 {
            // The first 16 bytes and the last 16, overlapping.
            let a = from.loadUnaligned(as: UInt64.self)
            let b = from.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let c = from.loadUnaligned(fromByteOffset: count &- 16, as: UInt64.self)
            let d = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            to.storeBytes(of: a, as: UInt64.self)
            to.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            to.storeBytes(of: c, toByteOffset: count &- 16, as: UInt64.self)
            to.storeBytes(of: d, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 8 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: count &- 4, as: UInt32.self)
        } else {
            var i = 0
            while i < count {
                target[i] = source[i]
                i &+= 1
            }
        }
    }

    /// Appends a copy of the bytes written at `range` (offsets from the
    /// start, as ``count`` gave them). After an overflow nothing is copied
    /// (the text is garbage by then).
    /// - Complexity: O(range.count).
    @inlinable @inline(__always)
    public mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= written, "a range of the bytes written")
        let n = range.count
        let target = reserve(n)  // may move the storage: the source is read after
        if !overflowed { ByteBuffer.copy(base + range.lowerBound, to: target, count: n) }
        advance(n)
    }

    /// Appends text known when the program is built.
    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        if text.hasPointerRepresentation {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        } else {
            text.withUTF8Buffer { append($0) }
        }
    }
}

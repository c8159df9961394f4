/// Growable bytes at a stable address: a frame's unmasked payload, or a
/// fragmented message being assembled. A pointer from ``bytes`` stays
/// valid until the next call that changes the buffer.
///
/// Nothing is allocated until the first byte; ``reset()`` frees storage
/// past ``keepCapacity`` so an idle stream that once took a large message
/// goes back to holding little.
final class WebSocketPayloadBuffer {
    private var storage: UnsafeMutableRawPointer?
    private(set) var capacity = 0
    private(set) var count = 0
    /// Storage kept across messages: 4 KiB.
    static let keepCapacity = 4096

    init() {}

    deinit { storage?.deallocate() }

    /// The bytes held.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// Appends `input`, unmasked with `mask` starting at key byte `phase`
    /// (0–3), when given. Returns the key phase after the last byte.
    /// - Complexity: O(input), eight bytes at a time when unmasking.
    @discardableResult
    func append(_ input: UnsafeRawBufferPointer, mask: UInt32?, phase: Int) -> Int {
        let n = input.count
        guard n > 0 else { return phase }
        reserve(count + n)
        let destination = storage! + count
        count += n
        guard let mask else {
            destination.copyMemory(from: input.baseAddress!, byteCount: n)
            return phase
        }
        // The key as bytes in wire order, rotated to start at `phase`.
        let shift = UInt32(phase * 8)
        let rotated = phase == 0 ? mask : (mask << shift | mask >> (32 - shift))
        let keyBytes = rotated.bigEndian  // in memory: wire order
        let word = UInt64(keyBytes) | UInt64(keyBytes) << 32
        var k = 0
        while k + 8 <= n {
            let value = input.loadUnaligned(fromByteOffset: k, as: UInt64.self) ^ word
            destination.storeBytes(of: value, toByteOffset: k, as: UInt64.self)
            k += 8
        }
        withUnsafeBytes(of: keyBytes) { key in
            while k < n {
                destination.storeBytes(of: input[k] ^ key[k & 3], toByteOffset: k, as: UInt8.self)
                k += 1
            }
        }
        return (phase + n) & 3
    }

    /// Empties the buffer, freeing storage past ``keepCapacity``.
    func reset() {
        count = 0
        if capacity > Self.keepCapacity {
            storage?.deallocate()
            storage = nil
            capacity = 0
        }
    }

    private func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        let grown = max(needed, capacity * 2, 256)
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        if let storage {
            fresh.copyMemory(from: storage, byteCount: count)
            storage.deallocate()
        }
        storage = fresh
        capacity = grown
    }
}

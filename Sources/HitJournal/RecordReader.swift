/// Reads records one after another from the bytes of a journal segment or
/// a snapshot file, and says precisely where and why it stops.
///
/// Pure: no I/O, no traps on any input (every length is checked before it
/// is used). A torn tail — what a crash in the middle of an append leaves:
/// an incomplete record at the end, or zeros where the file system grew the
/// file before the data reached it — is told apart from damage: a record
/// that is complete but fails its checks, or anything wrong that is
/// followed by more data.
public enum RecordReader {
    public enum Step: Sendable, Equatable {
        /// A record, and the offset of the next one.
        case record(JournalRecord, next: Int)
        /// The bytes end exactly here.
        case end
        /// An incomplete last record (or a zero-filled tail) starts here:
        /// cut it off.
        case tornTail(reason: String)
        /// A damaged record starts here.
        case damaged(reason: String)
    }

    /// The record at `offset` of `bytes`.
    /// - Complexity: O(the record's size).
    public static func next(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Step {
        let n = bytes.count
        guard offset >= 0, offset <= n else { return .damaged(reason: "offset \(offset) is outside the file") }
        if offset == n { return .end }
        let rest = n - offset
        if rest < 12 {
            return allZero(bytes, from: offset)
                ? .tornTail(reason: "zero-filled tail") : .tornTail(reason: "incomplete record head (\(rest) of 12 bytes)")
        }
        let length = Int(u32(bytes, offset))
        let bodyCRC = u32(bytes, offset + 4)
        let headCRC = u32(bytes, offset + 8)
        if CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 8)])) != headCRC {
            if allZero(bytes, from: offset) { return .tornTail(reason: "zero-filled tail") }
            return .damaged(reason: "record head checksum mismatch")
        }
        guard length >= 10, length <= JournalRecord.maxBodyBytes else {
            return .damaged(reason: "record length \(length) out of range")
        }
        if length > rest - 12 {
            return .tornTail(reason: "incomplete record (\(rest - 12) of \(length) body bytes)")
        }
        let end = offset + 12 + length
        let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 12)..<end])
        if CRC32C.checksum(body) != bodyCRC {
            // A whole last record that fails its checksum is what a crash
            // leaves when the file grew before its data was written.
            return end == n ? .tornTail(reason: "last record checksum mismatch") : .damaged(reason: "record checksum mismatch")
        }
        switch decodeBody(body) {
        case .success(let record): return .record(record, next: end)
        case .failure(let why): return .damaged(reason: why.message)
        }
    }

    /// Where the record at `offset` ends, when its head is intact (its own
    /// checksum holds, its length is in range and inside `bytes`), whatever
    /// its body holds: how a reader steps over a record with a damaged body.
    public static func end(ofRecordAt offset: Int, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard offset >= 0, bytes.count - offset >= 12 else { return nil }
        let length = Int(u32(bytes, offset))
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 8)])) == u32(bytes, offset + 8),
            length >= 10, length <= JournalRecord.maxBodyBytes, length <= bytes.count - offset - 12
        else { return nil }
        return offset + 12 + length
    }

    public static func next(_ bytes: [UInt8], at offset: Int) -> Step {
        bytes.withUnsafeBytes { next($0, at: offset) }
    }

    struct Malformed: Error { let message: String }

    /// A checksummed body: kind, id, version, payload.
    static func decodeBody(_ b: UnsafeRawBufferPointer) -> Result<JournalRecord, Malformed> {
        guard let kind = JournalRecord.Kind(rawValue: b[0]) else { return .failure(Malformed(message: "unknown record kind \(b[0])")) }
        let idLength = Int(b[1])
        let version = u64(b, 2)
        guard 10 + idLength <= b.count else { return .failure(Malformed(message: "scene id runs past the record")) }
        let idBytes = UnsafeRawBufferPointer(rebasing: b[10..<(10 + idLength)])
        let fileLevel = kind.rawValue >= JournalRecord.Kind.header.rawValue
        guard fileLevel ? idLength == 0 : (idLength >= 1 && idLength <= 128 && idBytes.allSatisfy(isIDByte)) else {
            return .failure(Malformed(message: "invalid scene id"))
        }
        let sceneID = String(decoding: idBytes, as: UTF8.self)
        var p = UnsafeRawBufferPointer(rebasing: b[(10 + idLength)...])
        guard version <= JournalRecord.maxVersion else { return .failure(Malformed(message: "version out of range")) }
        let body: JournalRecord.Body
        switch kind {
        case .upload:
            guard !p.isEmpty else { return .failure(Malformed(message: "upload without JSON")) }
            body = .upload(json: Array(p))
        case .delete:
            guard p.isEmpty else { return .failure(Malformed(message: "delete with a payload")) }
            body = .delete
        case .patch, .drag:
            guard p.count >= 2 else { return .failure(Malformed(message: "layer id length missing")) }
            let layerLength = Int(p[0]) | Int(p[1]) << 8
            guard layerLength >= 1, 2 + layerLength <= p.count else { return .failure(Malformed(message: "layer id runs past the record")) }
            let layerBytes = UnsafeRawBufferPointer(rebasing: p[2..<(2 + layerLength)])
            guard let layer = String(validating: layerBytes, as: UTF8.self) else {
                return .failure(Malformed(message: "layer id is not UTF-8"))
            }
            p = UnsafeRawBufferPointer(rebasing: p[(2 + layerLength)...])
            if kind == .patch {
                guard !p.isEmpty else { return .failure(Malformed(message: "patch without JSON")) }
                body = .patch(layer: layer, json: Array(p))
            } else {
                guard p.count == 16 else { return .failure(Malformed(message: "drag translation is \(p.count) bytes, not 16")) }
                let tx = Double(bitPattern: u64(p, 0))
                let ty = Double(bitPattern: u64(p, 8))
                guard tx.isFinite, ty.isFinite else { return .failure(Malformed(message: "drag translation not finite")) }
                body = .drag(layer: layer, tx: tx, ty: ty)
            }
        case .header:
            guard p.count == 9, p[0] == 1 || p[0] == 2 else { return .failure(Malformed(message: "invalid file header")) }
            body = .header(fileType: p[0], sequence: u64(p, 1))
        case .snapshotEnd:
            guard p.count == 8 else { return .failure(Malformed(message: "invalid snapshot end")) }
            body = .snapshotEnd(scenes: u64(p, 0))
        case .snapshotIndex:
            guard p.count >= 8 else { return .failure(Malformed(message: "invalid snapshot index")) }
            let count = u64(p, 0)
            // Each entry takes at least 18 bytes: the count cannot promise more than the payload holds.
            guard count <= UInt64(p.count / 18) else { return .failure(Malformed(message: "snapshot index count past its record")) }
            var entries: [JournalRecord.IndexEntry] = []
            entries.reserveCapacity(Int(count))
            var i = 8
            for _ in 0..<count {
                guard i + 17 <= p.count else { return .failure(Malformed(message: "snapshot index entry runs past the record")) }
                let offset = u64(p, i)
                let v = u64(p, i + 8)
                let n = Int(p[i + 16])
                guard n >= 1, i + 17 + n <= p.count else {
                    return .failure(Malformed(message: "snapshot index entry runs past the record"))
                }
                let id = UnsafeRawBufferPointer(rebasing: p[(i + 17)..<(i + 17 + n)])
                guard id.allSatisfy(isIDByte) else { return .failure(Malformed(message: "invalid scene id in the snapshot index")) }
                entries.append(JournalRecord.IndexEntry(offset: offset, version: v, sceneID: String(decoding: id, as: UTF8.self)))
                i += 17 + n
            }
            guard i == p.count else { return .failure(Malformed(message: "bytes after the snapshot index")) }
            body = .snapshotIndex(entries: entries)
        case .snapshotFooter:
            guard p.count == 16 else { return .failure(Malformed(message: "invalid snapshot footer")) }
            body = .snapshotFooter(scenes: u64(p, 0), index: u64(p, 8))
        }
        return .success(JournalRecord(sceneID: sceneID, version: version, body: body))
    }

    static func isIDByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
    }

    static func allZero(_ b: UnsafeRawBufferPointer, from offset: Int) -> Bool {
        var i = offset
        while i < b.count {
            if b[i] != 0 { return false }
            i += 1
        }
        return true
    }

    static func u32(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        b.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian
    }

    static func u64(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt64 {
        b.loadUnaligned(fromByteOffset: i, as: UInt64.self).littleEndian
    }
}

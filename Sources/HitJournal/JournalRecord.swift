/// One record of a journal segment or a snapshot file (SPEC §9).
///
/// On disk, little-endian:
///
/// ```
/// offset  size  field
///  0      4     body length B (bytes from offset 12 on)
///  4      4     CRC-32C of the body
///  8      4     CRC-32C of bytes 0..<8 (guards the length, so a damaged
///               length is told apart from a torn tail)
/// 12      1     kind
/// 13      1     scene id length L (0 only for file-level kinds)
/// 14      8     version
/// 22      L     scene id, [A-Za-z0-9._-]
/// 22+L    …     payload, by kind:
///               upload   the JSON submitted by POST or PUT (a snapshot: the
///                        scene's JSON), decoded at replay exactly as an upload
///               delete   nothing (version: the deleted scene's last one)
///               patch    u16 layer id length, layer id, the JSON merge patch
///               drag     u16 layer id length, layer id, f64 tx, f64 ty: the
///                        layer's translation after the step (absolute, so
///                        steps coalesce by overwriting and replay is exact)
///               header   u8 file type (1 journal, 2 snapshot), u64 sequence
///               snapshotEnd  u64 number of scenes in the snapshot (the
///                        last record of a snapshot of format 1)
///               snapshotIndex  u64 entries, then per scene record: u64
///                        offset in the file, u64 version, u8 id length, id
///               snapshotFooter  u64 number of scenes, u64 offset of the
///                        index record: the last record of a snapshot of
///                        format 2, always ``footerBytes`` long, so a reader
///                        finds it from the file's end
/// ```
///
/// Pure: no I/O.
public struct JournalRecord: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case upload = 1
        case delete = 2
        case patch = 3
        case drag = 4
        case header = 0x10
        case snapshotEnd = 0x11
        case snapshotIndex = 0x12
        case snapshotFooter = 0x13
    }

    /// Where one scene's record sits in a snapshot of format 2.
    public struct IndexEntry: Sendable, Equatable {
        /// Byte offset of the record in the snapshot file.
        public var offset: UInt64
        public var version: UInt64
        public var sceneID: String

        public init(offset: UInt64, version: UInt64, sceneID: String) {
            self.offset = offset
            self.version = version
            self.sceneID = sceneID
        }
    }

    public enum Body: Sendable, Equatable {
        case upload(json: [UInt8])
        case delete
        case patch(layer: String, json: [UInt8])
        case drag(layer: String, tx: Double, ty: Double)
        case header(fileType: UInt8, sequence: UInt64)
        case snapshotEnd(scenes: UInt64)
        case snapshotIndex(entries: [IndexEntry])
        case snapshotFooter(scenes: UInt64, index: UInt64)
    }

    public var sceneID: String
    /// At most ``maxVersion``; a record past it is damage (RecordReader).
    public var version: UInt64
    public var body: Body

    /// The largest version a record may carry: 2^62. A store writes
    /// versions from 1 up, one per change, and refuses a change past this
    /// one (SceneStore.version(after:)), so every file it writes reads back;
    /// and no version up to it can overflow `Int` when one is added.
    public static let maxVersion: UInt64 = 1 << 62

    public init(sceneID: String, version: UInt64, body: Body) {
        self.sceneID = sceneID
        self.version = version
        self.body = body
    }

    public var kind: Kind {
        switch body {
        case .upload: return .upload
        case .delete: return .delete
        case .patch: return .patch
        case .drag: return .drag
        case .header: return .header
        case .snapshotEnd: return .snapshotEnd
        case .snapshotIndex: return .snapshotIndex
        case .snapshotFooter: return .snapshotFooter
        }
    }

    /// Whether the record belongs to the file rather than to a scene (no scene id).
    public var isFileLevel: Bool { kind.rawValue >= Kind.header.rawValue }

    /// Bytes of an encoded `snapshotFooter` record.
    public static let footerBytes = headBytes + 16

    /// Bytes of the fixed head: length, two CRCs, kind, id length, version.
    public static let headBytes = 22
    /// The largest body a reader accepts (a bigger length is damage).
    public static let maxBodyBytes = 1 << 30
    /// Byte offset of the drag's translation within an encoded drag record
    /// (for coalescing in place), given the ids' lengths.
    static func dragTranslationOffset(idBytes: Int, layerBytes: Int) -> Int { headBytes + idBytes + 2 + layerBytes }

    /// Appends the encoded record to `out`.
    /// - Precondition (by construction, not checked at run time beyond
    ///   clamping): ids are at most 255 and 65,535 bytes.
    public func encode(into out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: 12))
        out.append(kind.rawValue)
        let id = Array(sceneID.utf8.prefix(255))
        out.append(UInt8(id.count))
        Self.put64(version, &out)
        out.append(contentsOf: id)
        switch body {
        case .upload(let json): out.append(contentsOf: json)
        case .delete: break
        case .patch(let layer, let json):
            Self.putLayer(layer, &out)
            out.append(contentsOf: json)
        case .drag(let layer, let tx, let ty):
            Self.putLayer(layer, &out)
            Self.put64(tx.bitPattern, &out)
            Self.put64(ty.bitPattern, &out)
        case .header(let type, let sequence):
            out.append(type)
            Self.put64(sequence, &out)
        case .snapshotEnd(let n): Self.put64(n, &out)
        case .snapshotIndex(let entries):
            Self.put64(UInt64(entries.count), &out)
            for e in entries {
                Self.put64(e.offset, &out)
                Self.put64(e.version, &out)
                let id = Array(e.sceneID.utf8.prefix(255))
                out.append(UInt8(id.count))
                out.append(contentsOf: id)
            }
        case .snapshotFooter(let scenes, let index):
            Self.put64(scenes, &out)
            Self.put64(index, &out)
        }
        Self.seal(&out, at: start)
    }

    public var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Writes the length and both CRCs of the record starting at `start`
    /// and running to the end of `out` (after its body was edited in place).
    static func seal(_ out: inout [UInt8], at start: Int) {
        let length = UInt32(out.count - start - 12)
        let bodyCRC = out.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[(start + 12)...])) }
        put32(length, &out, at: start)
        put32(bodyCRC, &out, at: start + 4)
        let headCRC = out.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<(start + 8)])) }
        put32(headCRC, &out, at: start + 8)
    }

    /// Rewrites the translation of the drag record at `start` (the last
    /// record of `out`) and its version, then reseals it: coalescing.
    static func rewriteDrag(_ out: inout [UInt8], at start: Int, translationAt offset: Int, version: UInt64, tx: Double, ty: Double) {
        var v = version
        var x = tx.bitPattern
        var y = ty.bitPattern
        withUnsafeBytes(of: &v) { b in for k in 0..<8 { out[start + 14 + k] = b[k] } }
        withUnsafeBytes(of: &x) { b in for k in 0..<8 { out[start + offset + k] = b[k] } }
        withUnsafeBytes(of: &y) { b in for k in 0..<8 { out[start + offset + 8 + k] = b[k] } }
        seal(&out, at: start)
    }

    private static func putLayer(_ layer: String, _ out: inout [UInt8]) {
        let bytes = Array(layer.utf8.prefix(65_535))
        out.append(UInt8(bytes.count & 0xFF))
        out.append(UInt8(bytes.count >> 8))
        out.append(contentsOf: bytes)
    }

    static func put64(_ v: UInt64, _ out: inout [UInt8]) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
    }

    static func put32(_ v: UInt32, _ out: inout [UInt8], at i: Int) {
        for k in 0..<4 { out[i + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }
}

import Glibc

/// The names of a data directory's files (SPEC §9):
///
/// - `journal-<seq>.hrj`: a journal segment, records appended in order;
/// - `snapshot-<seq>.hrs`: every scene as it stood when segment `<seq>`
///   began; recovery loads the newest snapshot, then replays the segments
///   from its sequence on;
/// - `MANIFEST`: the files above that make up the journal (`JournalManifest`);
/// - `*.tmp`: a snapshot or manifest being written (removed at start);
/// - `*.damaged-*`: what `--repair` moved aside;
/// - `set-aside-<seq>.hrj`: the journal records of scenes that `--repair`
///   lost (a header, then the records, as in a segment), not replayed;
/// - `LOCK`: held with `flock` by the process using the directory.
///
/// Sequences are 16 decimal digits, so names sort in order.
public enum JournalFiles {
    public static func segmentName(_ seq: UInt64) -> String { "journal-\(digits(seq)).hrj" }
    public static func snapshotName(_ seq: UInt64) -> String { "snapshot-\(digits(seq)).hrs" }
    public static func setAsideName(_ seq: UInt64) -> String { "set-aside-\(digits(seq)).hrj" }

    /// The sequence in a segment's or a snapshot's name.
    public static func sequence(of name: String, prefix: String, suffix: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard middle.count == 16, middle.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(middle)
    }

    public static func segments(in names: [String]) -> [UInt64] {
        names.compactMap { sequence(of: $0, prefix: "journal-", suffix: ".hrj") }.sorted()
    }

    public static func snapshots(in names: [String]) -> [UInt64] {
        names.compactMap { sequence(of: $0, prefix: "snapshot-", suffix: ".hrs") }.sorted()
    }

    static func digits(_ n: UInt64) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 16 - s.count)) + s
    }

    /// The header record every file starts with.
    public static func header(type: UInt8, sequence: UInt64) -> [UInt8] {
        JournalRecord(sceneID: "", version: 0, body: .header(fileType: type, sequence: sequence)).encoded
    }

    /// Creates segment `seq` in `dir` with its header, synced, and syncs the
    /// directory so that the file's name survives a crash.
    /// - Returns: the descriptor (appending) and the bytes written.
    public static func createSegment(_ dir: String, _ seq: UInt64, io: any FileIO) throws(JournalIOError) -> (
        fd: Int32, path: String, bytes: Int
    ) {
        let path = dir + "/" + segmentName(seq)
        let fd = try Files.openAppend(path, create: true)
        let head = header(type: 1, sequence: seq)
        if let failed = io.writeSynced(fd, head) {
            close(fd)
            Files.remove(path)
            throw JournalIOError(failed.call, path, failed.errno)
        }
        try Files.fsyncDirectory(dir)
        return (fd, path, head.count)
    }
}

/// Writes a snapshot file (format 2): header, one upload record per scene,
/// an index record (each scene record's offset, version and id) and a
/// fixed-size footer (scene count, the index's offset); then `fsync`,
/// `rename` into place, `fsync` of the directory. Until the rename, the
/// previous snapshot and the segments stay the truth. The index lets a
/// reader step over a damaged record, even one whose length is damaged,
/// and name the scene it held (`SnapshotTrailer`).
public struct SnapshotWriter: ~Copyable {
    let dir: String
    let sequence: UInt64
    let tmpPath: String
    let fd: Int32
    let io: any FileIO
    var buffer: [UInt8] = []
    var scenes: UInt64 = 0
    var index: [JournalRecord.IndexEntry] = []
    public private(set) var bytes = 0

    public init(dir: String, sequence: UInt64, io: any FileIO = PosixFileIO()) throws(JournalIOError) {
        self.dir = dir
        self.sequence = sequence
        self.io = io
        tmpPath = dir + "/" + JournalFiles.snapshotName(sequence) + ".tmp"
        fd = try Files.openTruncate(tmpPath)
        buffer = JournalFiles.header(type: 2, sequence: sequence)
    }

    /// Adds one scene (its JSON, decoded at load as an upload).
    public mutating func add(sceneID: String, version: Int, json: [UInt8]) throws(JournalIOError) {
        let v = UInt64(max(0, version))
        index.append(JournalRecord.IndexEntry(offset: UInt64(bytes + buffer.count), version: v, sceneID: sceneID))
        JournalRecord(sceneID: sceneID, version: v, body: .upload(json: json)).encode(into: &buffer)
        scenes += 1
        if buffer.count >= 1 << 20 { try drain() }
    }

    private mutating func drain() throws(JournalIOError) {
        let e = buffer.withUnsafeBytes { io.write(fd, $0) }
        if e != 0 { throw JournalIOError("write", tmpPath, e) }
        bytes += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Ends, syncs and renames the snapshot into place.
    /// - Returns: the final path.
    public consuming func commit() throws(JournalIOError) -> String {
        defer { close(fd) }
        let indexOffset = UInt64(bytes + buffer.count)
        JournalRecord(sceneID: "", version: 0, body: .snapshotIndex(entries: index)).encode(into: &buffer)
        JournalRecord(sceneID: "", version: 0, body: .snapshotFooter(scenes: scenes, index: indexOffset)).encode(into: &buffer)
        do throws(JournalIOError) {
            try drain()
            let e = io.fsync(fd)
            if e != 0 { throw JournalIOError("fsync", tmpPath, e) }
            let path = dir + "/" + JournalFiles.snapshotName(sequence)
            try Files.rename(tmpPath, path)
            try Files.fsyncDirectory(dir)
            return path
        } catch {
            Files.remove(tmpPath)
            throw error
        }
    }

    /// Gives up: closes and removes the temporary file.
    public consuming func abandon() {
        close(fd)
        Files.remove(tmpPath)
    }
}

/// The end of a snapshot of format 2, read from the file's last bytes
/// without reading what precedes it: the footer (fixed size, its own
/// checksums) and the index it points to.
///
/// Pure: no I/O, no traps on any input.
public struct SnapshotTrailer: Sendable, Equatable {
    /// Scene records the footer says the snapshot holds.
    public var scenes: UInt64
    /// Where the index record starts (the scene records end there).
    public var indexOffset: Int
    /// The index, or nil when its record is damaged.
    public var entries: [JournalRecord.IndexEntry]?

    /// The trailer of `bytes`, or nil when the file does not end with an
    /// intact footer (a snapshot of format 1, or a damaged footer).
    /// - Complexity: O(the index's size).
    public static func read(_ b: UnsafeRawBufferPointer) -> SnapshotTrailer? {
        let at = b.count - JournalRecord.footerBytes
        guard at > 0, case .record(let r, let next) = RecordReader.next(b, at: at), next == b.count,
            case .snapshotFooter(let scenes, let index) = r.body, index < UInt64(at)
        else { return nil }
        var out = SnapshotTrailer(scenes: scenes, indexOffset: Int(index), entries: nil)
        if case .record(let ir, let inext) = RecordReader.next(b, at: Int(index)), inext == at,
            case .snapshotIndex(let entries) = ir.body, UInt64(entries.count) == scenes,
            zip(entries, entries.dropFirst()).allSatisfy({ $0.offset < $1.offset }), entries.last.map({ $0.offset < index }) ?? true
        {
            out.entries = entries
        }
        return out
    }

    public static func read(_ bytes: [UInt8]) -> SnapshotTrailer? {
        bytes.withUnsafeBytes { read($0) }
    }
}

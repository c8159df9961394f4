import Glibc

/// The files that make up a data directory's journal (SPEC §9), in the
/// spirit of Redis 7's AOF manifest: the base snapshot, if any, and every
/// segment to replay after it, in order. A listed file that is missing at
/// start is damage, as a damaged record is.
///
/// On disk, `MANIFEST`, ASCII text, one entry a line, `\n` after each:
///
/// ```
/// hitroute-manifest 1
/// snapshot snapshot-0000000000000003.hrs
/// segment journal-0000000000000003.hrj
/// segment journal-0000000000000004.hrj
/// crc32c 9a3c0e11
/// ```
///
/// At most one `snapshot` line, before the `segment` lines; segment
/// sequences strictly increase and none is below the snapshot's; the last
/// line is the CRC-32C of every byte before it, 8 lowercase hex digits.
/// Rewritten whole (temporary file, `fsync`, `rename`, `fsync` of the
/// directory) whenever the set changes: at start, at every snapshot.
public struct JournalManifest: Sendable, Equatable {
    /// The base snapshot's sequence.
    public var snapshot: UInt64?
    /// The segments' sequences, ascending.
    public var segments: [UInt64]

    public static let fileName = "MANIFEST"
    static let firstLine = "hitroute-manifest 1"

    public init(snapshot: UInt64?, segments: [UInt64]) {
        self.snapshot = snapshot
        self.segments = segments
    }

    /// The file names it lists, snapshot first.
    public var fileNames: [String] {
        (snapshot.map { [JournalFiles.snapshotName($0)] } ?? []) + segments.map(JournalFiles.segmentName)
    }

    public var encoded: [UInt8] {
        var text = Self.firstLine + "\n"
        if let s = snapshot { text += "snapshot \(JournalFiles.snapshotName(s))\n" }
        for s in segments { text += "segment \(JournalFiles.segmentName(s))\n" }
        var bytes = Array(text.utf8)
        bytes += Array("crc32c \(Self.hex(CRC32C.checksum(bytes)))\n".utf8)
        return bytes
    }

    /// Parses a manifest; the error says what is wrong with it.
    /// Pure: no I/O, no traps on any input.
    public static func parse(_ bytes: [UInt8]) -> Result<JournalManifest, ManifestError> {
        guard bytes.last == 0x0A else { return .failure(ManifestError("does not end with a newline")) }
        let body = bytes.dropLast()
        guard let cut = body.lastIndex(of: 0x0A) else { return .failure(ManifestError("has no checksum line")) }
        let checked = bytes[..<(cut + 1)]
        let crcLine = String(decoding: bytes[(cut + 1)..<(bytes.count - 1)], as: UTF8.self)
        guard crcLine == "crc32c \(hex(CRC32C.checksum(checked)))" else { return .failure(ManifestError("checksum mismatch")) }
        let lines = String(decoding: checked, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard lines.first == Substring(firstLine) else { return .failure(ManifestError("unknown first line")) }
        var m = JournalManifest(snapshot: nil, segments: [])
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return .failure(ManifestError("malformed line \"\(line)\"")) }
            let name = String(parts[1])
            switch parts[0] {
            case "snapshot":
                guard m.snapshot == nil, m.segments.isEmpty,
                    let seq = JournalFiles.sequence(of: name, prefix: "snapshot-", suffix: ".hrs")
                else { return .failure(ManifestError("misplaced or malformed snapshot line \"\(line)\"")) }
                m.snapshot = seq
            case "segment":
                guard let seq = JournalFiles.sequence(of: name, prefix: "journal-", suffix: ".hrj"),
                    seq > (m.segments.last ?? 0) || m.segments.isEmpty, seq >= (m.snapshot ?? 0)
                else { return .failure(ManifestError("misplaced or malformed segment line \"\(line)\"")) }
                m.segments.append(seq)
            default:
                return .failure(ManifestError("malformed line \"\(line)\""))
            }
        }
        return .success(m)
    }

    /// Writes the manifest into `dir` atomically: `MANIFEST.tmp`, `fsync`,
    /// `rename`, `fsync` of the directory.
    public func write(to dir: String, io: any FileIO) throws(JournalIOError) {
        let tmp = dir + "/" + Self.fileName + ".tmp"
        let fd = try Files.openTruncate(tmp)
        let failed = io.writeSynced(fd, encoded)
        close(fd)
        if let failed {
            Files.remove(tmp)
            throw JournalIOError(failed.call, tmp, failed.errno)
        }
        do throws(JournalIOError) {
            try Files.rename(tmp, dir + "/" + Self.fileName)
        } catch {
            Files.remove(tmp)
            throw error
        }
        try Files.fsyncDirectory(dir)
    }

    static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }
}

/// Why a manifest does not parse.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

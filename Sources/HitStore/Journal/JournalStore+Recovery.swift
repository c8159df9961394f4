import Glibc
import HitBase
import HitJSON
import HitJournal
import HitRouting
import SceneCodec

/// Why the store could not start: the file and offset at fault.
public struct RecoveryError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var offset: Int
    public var reason: String

    public var description: String {
        "\(file) at offset \(offset): \(reason); start with --repair to keep the valid prefix and move the rest aside"
    }
}

/// SPEC §9 recovery: the newest snapshot, then every segment from its
/// sequence on, in order.
extension JournalStore {
    /// Limits for replay: what was accepted once is loaded again, even if
    /// the limits were lowered since. Each is past the most its flag can be
    /// set to (`JournalStoreTests` checks), and finite where a count is read
    /// as a double against it (mask columns and rows).
    static var replayLimits: SceneLimits {
        var l = SceneLimits()
        l.maxLayers = .max
        l.maxDepth = 1 << 16
        l.maxVertices = .max
        l.maxCompoundDepth = 1 << 16
        l.maxMaskPixels = 1 << 50
        l.maxSceneMaskPixels = 1 << 50
        return l
    }

    /// Loads the store, opens a new segment, and takes writes. Logs what it
    /// cuts, repairs and how fast it went.
    /// - Throws: `RecoveryError` naming file and offset of a damaged record
    ///   (without `--repair`), or an I/O error.
    public func recover() throws {
        let start = MonotonicClock.seconds()
        var names = try Files.list(directory)
        for name in names where name.hasSuffix(".tmp") { Files.remove(path(name)) }
        names = try Files.list(directory)
        var snapshots = JournalFiles.snapshots(in: names)
        let segments = JournalFiles.segments(in: names)
        var progress = Progress(total: names.reduce(0) { $0 + (Files.size(path($1)) ?? 0) }, say: say)

        // The newest snapshot that loads; an older one only through --repair.
        var base: UInt64 = 0
        while let seq = snapshots.popLast() {
            let name = JournalFiles.snapshotName(seq)
            do {
                try loadSnapshot(name, sequence: seq, progress: &progress)
                base = seq
                break
            } catch let error as RecoveryError {
                guard options.repair else { throw error }
                try moveAside(name, from: error.offset, reason: error.reason, whole: true)
                for id in memory.all().map(\.id) { _ = memory.restoreDelete(id) }
            }
        }
        for seq in segments where seq < base { Files.remove(path(JournalFiles.segmentName(seq))) }
        for seq in snapshots { Files.remove(path(JournalFiles.snapshotName(seq))) }

        // The segments, in order; damage stops replay (or, with --repair, everything after it moves aside).
        let live = segments.filter { $0 >= base }
        var stoppedAt: Int?
        for (k, seq) in live.enumerated() {
            if let s = stoppedAt {
                try moveAside(
                    JournalFiles.segmentName(seq), from: 0, reason: "follows the damage in \(JournalFiles.segmentName(live[s]))",
                    whole: true)
                continue
            }
            let name = JournalFiles.segmentName(seq)
            do {
                try replaySegment(name, sequence: seq, isLast: k == live.count - 1, progress: &progress)
            } catch let error as RecoveryError {
                guard options.repair else { throw error }
                try moveAside(name, from: error.offset, reason: error.reason, whole: false)
                stoppedAt = k
            }
        }

        // What the next start replays again (a segment moved aside has no size under its name).
        // Their patches weigh what replaying them cost, as the live store weighs them.
        let sizes = live.reduce(0) { $0 + (Files.size(path(JournalFiles.segmentName($1))) ?? 0) }
        earlierSegmentBytes.store(sizes &+ replayedCost.load(ordering: .relaxed), ordering: .relaxed)

        // A new segment for this run's appends.
        let next = max(base, live.last ?? 0, snapshots.last ?? 0) + 1
        let (fd, p, bytes) = try JournalFiles.createSegment(directory, next, io: io)
        segment.withLock { $0 = next }
        log.writer.withLock { $0 = JournalWriter(fd: fd, path: p, existingBytes: bytes, mode: options.fsync, io: io) }
        log.status.withLock { $0 = .ready }
        loaded.store(true, ordering: .releasing)
        let seconds = MonotonicClock.seconds() - start
        let mb = Double(progress.done) / 1e6
        say(
            "journal: recovered \(memory.all().count) scenes from \(directory) (\(format(mb)) MB in \(format(seconds)) s, \(format(mb / max(seconds, 1e-9))) MB/s); appending to \(JournalFiles.segmentName(next)) with --fsync \(options.fsync.rawValue)"
        )
        startMaintenance()
    }

    /// Progress lines for big stores: at most one every two seconds.
    struct Progress {
        let total: Int
        let say: @Sendable (String) -> Void
        var done = 0
        var lastReport = MonotonicClock.seconds()

        mutating func advance(to bytes: Int, in file: String) {
            done = bytes
            guard total >= 64 << 20 else { return }
            let now = MonotonicClock.seconds()
            if now - lastReport >= 2 {
                lastReport = now
                say("journal: recovery at \(done >> 20) of \(total >> 20) MiB (\(file))")
            }
        }
    }

    private func loadSnapshot(_ name: String, sequence: UInt64, progress: inout Progress) throws {
        let bytes = try Files.read(path(name))
        let base = progress.done
        var offset = 0
        var scenes: UInt64 = 0
        try bytes.withUnsafeBytes { (b) throws in
            guard case .record(let head, let next) = RecordReader.next(b, at: 0),
                head.body == .header(fileType: 2, sequence: sequence)
            else { throw RecoveryError(file: path(name), offset: 0, reason: "not a snapshot header for sequence \(sequence)") }
            offset = next
            while true {
                switch RecordReader.next(b, at: offset) {
                case .record(let r, let next):
                    switch r.body {
                    case .upload(let json):
                        let scene = try decode(json, file: name, offset: offset)
                        memory.restore(r.sceneID, scene: scene, version: Int(r.version), json: json.count)
                        scenes += 1
                    case .snapshotEnd(let n):
                        guard n == scenes, next == b.count else {
                            throw RecoveryError(
                                file: path(name), offset: offset,
                                reason: "snapshot end says \(n) scenes, \(scenes) read, \(b.count - next) bytes after it")
                        }
                        progress.advance(to: base + b.count, in: name)
                        return
                    default:
                        throw RecoveryError(file: path(name), offset: offset, reason: "a \(r.kind) record in a snapshot")
                    }
                    offset = next
                    if scenes & 63 == 0 { progress.advance(to: base + offset, in: name) }
                case .end, .tornTail:
                    throw RecoveryError(file: path(name), offset: offset, reason: "snapshot ends without its end record")
                case .damaged(let why):
                    throw RecoveryError(file: path(name), offset: offset, reason: why)
                }
            }
        }
    }

    private func replaySegment(_ name: String, sequence: UInt64, isLast: Bool, progress: inout Progress) throws {
        let bytes = try Files.read(path(name))
        let base = progress.done
        var offset = 0
        var count = 0
        var cut: (offset: Int, reason: String)?
        try bytes.withUnsafeBytes { (b) throws in
            if b.isEmpty {
                cut = (0, "empty segment")
                return
            }
            switch RecordReader.next(b, at: 0) {
            case .record(let head, let next) where head.body == .header(fileType: 1, sequence: sequence):
                offset = next
            case .tornTail(let why) where isLast:
                cut = (0, why)
                return
            default:
                throw RecoveryError(file: path(name), offset: 0, reason: "not a journal header for sequence \(sequence)")
            }
            loop: while true {
                switch RecordReader.next(b, at: offset) {
                case .record(let r, let next):
                    do {
                        try apply(r)
                    } catch let e as StoreError {
                        throw RecoveryError(
                            file: path(name), offset: offset,
                            reason: "a \(r.kind) record of scene \"\(r.sceneID)\" v\(r.version) does not apply: \(e.detail)")
                    }
                    offset = next
                    count += 1
                    if count & 255 == 0 { progress.advance(to: base + offset, in: name) }
                case .end:
                    break loop
                case .tornTail(let why):
                    guard isLast else { throw RecoveryError(file: path(name), offset: offset, reason: "\(why), and later segments follow") }
                    cut = (offset, why)
                    break loop
                case .damaged(let why):
                    throw RecoveryError(file: path(name), offset: offset, reason: why)
                }
            }
        }
        progress.advance(to: base + bytes.count, in: name)
        if let cut {
            if cut.offset == 0 {
                Files.remove(path(name))
                say("journal: \(path(name)): removed a segment with no complete header (\(cut.reason)) left by a crash")
            } else {
                try Files.truncate(path(name), to: cut.offset)
                say(
                    "journal: \(path(name)): cut off a torn last record at offset \(cut.offset) (\(cut.reason); \(bytes.count - cut.offset) bytes dropped, never acknowledged)"
                )
            }
        }
    }

    /// Applies one replayed record to memory, checking it against what is
    /// there (a record that does not fit is damage, not something to skip).
    private func apply(_ r: JournalRecord) throws(StoreError) {
        let id = r.sceneID
        let version = Int(r.version)
        switch r.body {
        case .upload(let json):
            let scene: Scene
            do throws(DecodeFailure) {
                scene = try json.withUnsafeBufferPointer { (b) throws(DecodeFailure) -> Scene in
                    try SceneDecoder.decode(b, limits: Self.replayLimits)
                }
            } catch {
                throw StoreError.invalidScene(error)
            }
            let current = memory.snapshot(id)?.version ?? 0
            guard version == (current == 0 ? 1 : current + 1) else {
                throw StoreError.inconsistent("version \(version) after \(current)")
            }
            memory.restore(id, scene: scene, version: version, json: json.count)
        case .delete:
            guard memory.restoreDelete(id) else { throw StoreError.notFound("no scene \"\(id)\" to delete") }
        case .patch(let layer, let json):
            let patch = try LayerPatch(layerID: layer, json: json, ifMatch: nil, limits: Self.replayLimits)
            // Weighed as the live store weighed it: the same figure from the same scene and patch.
            try memory.restoreChange(id, version: version) { (live, current) throws(StoreError) -> LayerPatch.WeightChange? in
                guard version == current + 1 else { throw StoreError.inconsistent("version \(version) after \(current)") }
                var weightChange: LayerPatch.WeightChange?
                let work = try patch.apply(to: &live, version: current, sceneID: id) { (change) throws(StoreError) in weightChange = change
                }.work
                replayedCost.wrappingAdd(
                    LogTicket.replayCost(work: work, layers: live.compiled.layerCount, jsonBytes: memory.jsonBytes(of: id)),
                    ordering: .relaxed)
                return weightChange
            }
        case .drag(let layer, let tx, let ty):
            try memory.restoreChange(id, version: version) { (live, current) throws(StoreError) -> LayerPatch.WeightChange? in
                guard version > current else { throw StoreError.inconsistent("version \(version) after \(current)") }
                guard let n = live.compiled.indexByID[layer].map(Int.init) else { throw StoreError.notFound("no layer \"\(layer)\"") }
                live.setTranslation(n, to: Point(tx, ty))
                return nil  // a drag moves a layer; the scene holds what it held
            }
        case .header, .snapshotEnd:
            throw StoreError.inconsistent("a file-level record inside a segment")
        }
    }

    private func decode(_ json: [UInt8], file: String, offset: Int) throws -> Scene {
        do throws(DecodeFailure) {
            return try json.withUnsafeBufferPointer { (b) throws(DecodeFailure) -> Scene in
                try SceneDecoder.decode(b, limits: Self.replayLimits)
            }
        } catch {
            throw RecoveryError(
                file: path(file), offset: offset, reason: "the scene's JSON does not decode: \(StoreError.invalidScene(error).detail)")
        }
    }

    /// `--repair`: keeps `name`'s bytes before `offset` (none when `whole`)
    /// and moves the rest to `name.damaged-<offset>`.
    private func moveAside(_ name: String, from offset: Int, reason: String, whole: Bool) throws {
        let original = path(name)
        let aside = original + ".damaged-\(offset)"
        if whole || offset == 0 {
            try Files.rename(original, aside)
        } else {
            let bytes = try Files.read(original)
            let fd = try Files.openTruncate(aside)
            let e = bytes[offset...].withUnsafeBytes { io.write(fd, $0) }
            let s = e == 0 ? io.fsync(fd) : e
            Glibc.close(fd)
            if s != 0 { throw JournalIOError("write", aside, s) }
            try Files.truncate(original, to: offset)
        }
        try Files.fsyncDirectory(directory)
        say(
            "journal: --repair: \(original) at offset \(offset): \(reason); kept the valid prefix, moved \(whole ? "the file" : "the rest") to \(aside)"
        )
    }
}

func format(_ x: Double) -> String {
    guard x.isFinite else { return "0" }
    let r = (x * 100).rounded() / 100
    return String(r)
}

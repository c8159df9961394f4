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
        "\(file) at offset \(offset): \(reason); start with --repair to keep what is intact and move the rest aside (docs/durability.md)"
    }
}

/// What `--repair` found and did while loading, for the log and for the
/// records of lost scenes.
struct RepairState {
    /// Scenes whose state was lost, and why: their journal records are set
    /// aside until an upload (which restores the scene) or a delete.
    var lost: [String: String] = [:]
    /// Scenes were lost that cannot be named (a missing file, records of a
    /// format-1 snapshot past damage): a record that does not apply then
    /// marks its scene lost instead of stopping replay.
    var gap = false
    /// Encoded records set aside, in journal order.
    var setAside: [UInt8] = []
    var setAsideCount = 0
    var restored: [String] = []
    var stale: [String] = []
    var notes: [String] = []
    /// The snapshot repaired and its first damaged offset.
    var snapshotDamage: (file: String, offset: Int)?

    /// Whether the files must be rewritten (a snapshot from memory).
    var repaired: Bool { gap || snapshotDamage != nil || setAsideCount > 0 }

    mutating func note(_ line: String) { notes.append(line) }

    mutating func setAside(_ r: JournalRecord) {
        r.encode(into: &setAside)
        setAsideCount += 1
    }
}

/// SPEC §9 recovery: the files `MANIFEST` lists (base snapshot, then every
/// segment from its sequence on, in order).
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
    ///
    /// The files are those `MANIFEST` lists (a directory without one, from
    /// an older version, is adopted: the newest snapshot and the segments
    /// from its sequence on). A listed file that is missing, a segment the
    /// manifest does not list that holds records, and a damaged record all
    /// stop the start; `--repair` keeps what is intact (`RepairState`) and
    /// then writes a snapshot from memory, so the next start is clean.
    /// - Throws: `RecoveryError` naming file and offset of a damaged record
    ///   or a missing file (without `--repair`), or an I/O error.
    public func recover() throws {
        let start = MonotonicClock.seconds()
        var names = try Files.list(directory)
        for name in names where name.hasSuffix(".tmp") { Files.remove(path(name)) }
        names = try Files.list(directory)
        let present = Set(names)
        let snapshotsFound = JournalFiles.snapshots(in: names)
        let segmentsFound = JournalFiles.segments(in: names)
        var progress = Progress(total: names.reduce(0) { $0 + (Files.size(path($1)) ?? 0) }, say: say)
        var repair = RepairState()

        var listed = try readManifest(present)
        if let m = listed, let newest = snapshotsFound.last, newest > max(m.snapshot ?? 0, m.segments.last ?? 0) {
            // A snapshot past every listed file comes only from a rewrite
            // after a failed write (`rewriteFromMemory`) that stopped
            // before `MANIFEST` listed it: written whole before its rename,
            // it holds every scene then, where the listed segment may not.
            listed = JournalManifest(snapshot: newest, segments: segmentsFound.filter { $0 >= newest })
            say("journal: adopting \(JournalFiles.snapshotName(newest)), newer than every file \(JournalManifest.fileName) lists")
        }
        var base: UInt64?
        var live: [UInt64]
        if let m = listed {
            let missing = m.fileNames.filter { !present.contains($0) }
            if let first = missing.first {
                guard options.repair else {
                    throw RecoveryError(
                        file: path(first), offset: 0,
                        reason:
                            "listed in \(JournalManifest.fileName) but missing (\(missing.count) of \(m.fileNames.count) listed files missing)"
                    )
                }
                repair.gap = true
                for n in missing {
                    repair.note("\(path(n)) is listed in \(JournalManifest.fileName) but missing: the changes it held are lost")
                }
            }
            base = m.snapshot.flatMap { present.contains(JournalFiles.snapshotName($0)) ? $0 : nil }
            live = m.segments.filter { present.contains(JournalFiles.segmentName($0)) }
            try sweepUnlisted(m, snapshots: snapshotsFound, segments: segmentsFound, repair: &repair)
        } else {
            base = snapshotsFound.last
            for seq in snapshotsFound.dropLast() { Files.remove(path(JournalFiles.snapshotName(seq))) }
            for seq in segmentsFound where seq < (base ?? 0) { Files.remove(path(JournalFiles.segmentName(seq))) }
            live = segmentsFound.filter { $0 >= (base ?? 0) }
            if !snapshotsFound.isEmpty || !segmentsFound.isEmpty {
                say(
                    "journal: \(directory) has no \(JournalManifest.fileName) (written by an older version): adopting the files found (\(((base.map { [JournalFiles.snapshotName($0)] } ?? []) + live.map(JournalFiles.segmentName)).joined(separator: ", ")))"
                )
            }
        }

        if let seq = base { try loadSnapshot(JournalFiles.snapshotName(seq), sequence: seq, repair: &repair, progress: &progress) }

        // The segments, in order; damage stops replay (or, with --repair, everything after it moves aside).
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
                try replaySegment(name, sequence: seq, isLast: k == live.count - 1, repair: &repair, progress: &progress)
            } catch let error as RecoveryError {
                guard options.repair else { throw error }
                try moveAside(name, from: error.offset, reason: error.reason, whole: false)
                stoppedAt = k
            }
        }
        live = live.filter { Files.size(path(JournalFiles.segmentName($0))) != nil }

        // What the next start replays again.
        // Their patches weigh what replaying them cost, as the live store weighs them.
        let sizes = live.reduce(0) { $0 + (Files.size(path(JournalFiles.segmentName($1))) ?? 0) }
        earlierSegmentBytes.store(sizes &+ replayedCost.load(ordering: .relaxed), ordering: .relaxed)

        // A new segment for this run's appends, listed before anything is appended to it.
        let seen: [UInt64] = [
            base ?? 0, segmentsFound.last ?? 0, snapshotsFound.last ?? 0, listed?.segments.last ?? 0, listed?.snapshot ?? 0,
        ]
        let next = seen.max()! + 1
        let (fd, p, bytes) = try createListedSegment(next, listing: JournalManifest(snapshot: base, segments: live + [next]))
        segment.withLock { $0 = next }
        log.writer.withLock { $0 = JournalWriter(fd: fd, path: p, existingBytes: bytes, mode: options.fsync, io: io) }
        if repair.repaired {
            try finishRepair(&repair, sequence: next)
        }
        log.status.withLock { $0 = .ready }
        loaded.store(true, ordering: .releasing)
        let seconds = MonotonicClock.seconds() - start
        let mb = Double(progress.done) / 1e6
        say(
            "journal: recovered \(memory.all().count) scenes from \(directory) (\(format(mb)) MB in \(format(seconds)) s, \(format(mb / max(seconds, 1e-9))) MB/s); appending to \(JournalFiles.segmentName(segment.withLock { $0 })) with --fsync \(options.fsync.rawValue)"
        )
        startMaintenance()
    }

    /// `MANIFEST`, when the directory has one.
    /// - Throws: `RecoveryError` when it does not parse (without `--repair`;
    ///   with it, the manifest is moved aside and the files found adopted).
    private func readManifest(_ present: Set<String>) throws -> JournalManifest? {
        guard present.contains(JournalManifest.fileName) else { return nil }
        let file = path(JournalManifest.fileName)
        switch JournalManifest.parse(try Files.read(file)) {
        case .success(let m): return m
        case .failure(let why):
            guard options.repair else { throw RecoveryError(file: file, offset: 0, reason: "the manifest is damaged: \(why)") }
            try Files.rename(file, file + ".damaged")
            try Files.fsyncDirectory(directory)
            say("journal: --repair: \(file) is damaged (\(why)); moved it to \(file).damaged and adopted the files found")
            return nil
        }
    }

    /// Files the manifest does not list: snapshots (an interrupted snapshot
    /// left them: the listed files hold the same data) and segments below
    /// the listed ones (a snapshot replaced them) are removed, as is a
    /// segment past the listed ones holding only its header (a crash came
    /// between its creation and the manifest's rewrite, so nothing in it was
    /// acknowledged). Any other unlisted segment holds records the manifest
    /// does not account for: damage.
    private func sweepUnlisted(_ m: JournalManifest, snapshots: [UInt64], segments: [UInt64], repair: inout RepairState) throws {
        for seq in snapshots where seq != m.snapshot {
            Files.remove(path(JournalFiles.snapshotName(seq)))
            say(
                "journal: removed \(path(JournalFiles.snapshotName(seq))), which \(JournalManifest.fileName) does not list (an interrupted snapshot)"
            )
        }
        let floor = m.snapshot ?? m.segments.first ?? 0
        let top = m.segments.last ?? floor
        let headerBytes = JournalFiles.header(type: 1, sequence: 0).count
        for seq in segments where !m.segments.contains(seq) {
            let name = JournalFiles.segmentName(seq)
            if seq < floor {
                Files.remove(path(name))
            } else if seq > top && (Files.size(path(name)) ?? 0) <= headerBytes {
                Files.remove(path(name))
                say(
                    "journal: removed \(path(name)), an unlisted segment without records (a crash before \(JournalManifest.fileName) listed it)"
                )
            } else {
                let why = "not listed in \(JournalManifest.fileName), yet it holds records"
                guard options.repair else { throw RecoveryError(file: path(name), offset: 0, reason: why) }
                try moveAside(name, from: 0, reason: why, whole: true)
            }
        }
    }

    /// After a repair that lost scenes or files: the records set aside go
    /// to `set-aside-<sequence>.hrj`, the damaged snapshot keeps a name
    /// of its own, and a snapshot of memory replaces every older file, so
    /// the next start neither meets the damage nor replays what was set aside.
    private func finishRepair(_ repair: inout RepairState, sequence: UInt64) throws {
        var aside: String?
        if repair.setAsideCount > 0 {
            let file = path(JournalFiles.setAsideName(sequence))
            let fd = try Files.openTruncate(file)
            let bytes = JournalFiles.header(type: 1, sequence: sequence) + repair.setAside
            let e = bytes.withUnsafeBytes { io.write(fd, $0) }
            let s = e == 0 ? io.fsync(fd) : e
            Glibc.close(fd)
            if s != 0 { throw JournalIOError("write", file, s) }
            try Files.fsyncDirectory(directory)
            aside = file
        }
        if let (file, offset) = repair.snapshotDamage {
            let copy = file + ".damaged-\(offset)"
            if Glibc.link(file, copy) != 0 && errno != EEXIST { throw JournalIOError("link", file, errno) }
            try Files.fsyncDirectory(directory)
            say("journal: --repair: kept a copy of the damaged snapshot as \(copy)")
        }
        // A log line per damage and a list of ids, each capped: a file of zeros must not flood the log.
        for line in repair.notes.prefix(50) { say("journal: --repair: \(line)") }
        if repair.notes.count > 50 { say("journal: --repair: and \(repair.notes.count - 50) more damaged records") }
        func list(_ ids: [String]) -> String {
            ids.prefix(100).joined(separator: ", ") + (ids.count > 100 ? " and \(ids.count - 100) more" : "")
        }
        let lost = repair.lost.keys.filter { memory.snapshot($0) == nil }.sorted()
        say(
            "journal: --repair: kept \(memory.all().count) scenes; lost \(lost.count)\(lost.isEmpty ? "" : ": " + list(lost))"
                + (repair.restored.isEmpty ? "" : "; restored from a later upload: " + list(repair.restored))
                + (repair.stale.isEmpty
                    ? "" : "; stale (a later record did not apply, kept as last known): " + list(repair.stale))
                + (aside.map { "; \(repair.setAsideCount) journal records of lost scenes set aside in \($0)" } ?? "")
                + (repair.gap ? "; scenes changed in a missing file may be stale without showing it" : "")
        )
        try snapshot()
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

    /// Loads snapshot `name`, record by record. Without `--repair`, damage
    /// anywhere throws (file and offset). With it, every intact record is
    /// kept and a damaged one costs its own scene: the index (format 2)
    /// says where the next record starts, even past a damaged length, and
    /// which scene was lost; a format-1 snapshot steps over a record whose
    /// head is intact, and otherwise loses the rest of the file, its scenes
    /// unknown (`RepairState.gap`).
    private func loadSnapshot(_ name: String, sequence: UInt64, repair: inout RepairState, progress: inout Progress) throws {
        let file = path(name)
        let bytes = try Files.read(file)
        let base = progress.done
        let repairing = options.repair
        var lost: [(id: String, version: UInt64)] = []
        var unknown = false
        var notes: [String] = []
        var firstDamage: Int?
        try bytes.withUnsafeBytes { (b) throws in
            // Read only on damage: an intact snapshot is read front to back.
            var trailerRead: SnapshotTrailer??
            var scenes: UInt64 = 0
            var seenIndex: Int?
            /// Notes damage at `offset`; returns where reading resumes (nil: nowhere).
            func damaged(_ offset: Int, _ why: String) throws -> Int? {
                guard repairing else { throw RecoveryError(file: file, offset: offset, reason: why) }
                notes.append("\(file) at offset \(offset): \(why)")
                if firstDamage == nil { firstDamage = offset }
                if trailerRead == nil { trailerRead = .some(SnapshotTrailer.read(b)) }
                let trailer = trailerRead!
                if let t = trailer, let entries = t.entries {
                    // Entries ascend by offset (SnapshotTrailer checks): the first at or past the damage.
                    var lo = 0
                    var hi = entries.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if entries[mid].offset < UInt64(offset) { lo = mid + 1 } else { hi = mid }
                    }
                    if lo < entries.count, entries[lo].offset == UInt64(offset) {
                        lost.append((entries[lo].sceneID, entries[lo].version))
                        lo += 1
                    }
                    if lo < entries.count { return Int(entries[lo].offset) }
                    return offset < t.indexOffset ? t.indexOffset : nil
                }
                if let count = seenIndex ?? trailer.map({ Int($0.scenes) }), offset >= (trailer?.indexOffset ?? offset) {
                    // Past the scene records: only the count is left to check.
                    if Int(scenes) + lost.count < count { unknown = true }
                    return nil
                }
                if offset == 0 { return JournalFiles.header(type: 2, sequence: sequence).count }
                unknown = true
                return RecordReader.end(ofRecordAt: offset, in: b)
            }
            var at: Int?
            if case .record(let head, let next) = RecordReader.next(b, at: 0), head.body == .header(fileType: 2, sequence: sequence) {
                at = next
            } else {
                at = try damaged(0, "not a snapshot header for sequence \(sequence)")
            }
            reading: while let offset = at {
                switch RecordReader.next(b, at: offset) {
                case .record(let r, let next):
                    at = next
                    switch r.body {
                    case .upload(let json):
                        do {
                            let scene = try decode(json, file: name, offset: offset)
                            memory.restore(r.sceneID, scene: scene, version: Int(r.version), json: json.count)
                            scenes += 1
                        } catch let error as RecoveryError {
                            guard repairing else { throw error }
                            notes.append(error.description)
                            if firstDamage == nil { firstDamage = offset }
                            lost.append((r.sceneID, r.version))
                        }
                        if scenes & 63 == 0 { progress.advance(to: base + offset, in: name) }
                    case .snapshotIndex(let e):
                        seenIndex = e.count
                    case .snapshotEnd(let n), .snapshotFooter(let n, _):
                        if n != scenes + UInt64(lost.count) || next != b.count {
                            let what = r.kind == .snapshotEnd ? "end" : "footer"
                            _ = try damaged(offset, "snapshot \(what) says \(n) scenes, \(scenes) read, \(b.count - next) bytes after it")
                        }
                        break reading
                    default:
                        at = try damaged(offset, "a \(r.kind) record in a snapshot")
                    }
                case .end, .tornTail:
                    _ = try damaged(offset, "snapshot ends without its end record")
                    break reading
                case .damaged(let why):
                    at = try damaged(offset, why)
                }
            }
            progress.advance(to: base + b.count, in: name)
        }
        guard let firstDamage else { return }
        repair.snapshotDamage = (file, firstDamage)
        for line in notes { repair.note(line) }
        for (id, version) in lost where memory.snapshot(id) == nil {
            repair.lost[id] = "its record (v\(version)) in \(file) is damaged"
        }
        if unknown {
            repair.gap = true
            repair.note("\(file): records past the damage could not be told apart; their scenes are lost, unnamed")
        }
    }

    private func replaySegment(
        _ name: String, sequence: UInt64, isLast: Bool, repair: inout RepairState, progress: inout Progress
    ) throws {
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
                    if repair.lost[r.sceneID] != nil {
                        replayLost(r, &repair)
                    } else {
                        do {
                            try apply(r)
                        } catch let e as StoreError {
                            let why = "a \(r.kind) record of scene \"\(r.sceneID)\" v\(r.version) does not apply: \(e.detail)"
                            guard repair.gap else { throw RecoveryError(file: path(name), offset: offset, reason: why) }
                            // After a loss of unknown scenes, a record that does not fit says its scene was among them.
                            repair.lost[r.sceneID] = why
                            if let known = memory.snapshot(r.sceneID) { repair.stale.append("\(r.sceneID) v\(known.version)") }
                            replayLost(r, &repair)
                        }
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

    /// A record of a scene whose state was lost: an upload holds the whole
    /// scene and restores it (its records from then on are replayed); a
    /// delete leaves it absent, as it was; anything else is set aside.
    private func replayLost(_ r: JournalRecord, _ repair: inout RepairState) {
        if case .upload(let json) = r.body, let scene = try? decode(json, file: "", offset: 0) {
            memory.restore(r.sceneID, scene: scene, version: Int(r.version), json: json.count)
            repair.lost[r.sceneID] = nil
            repair.restored.append("\(r.sceneID) v\(r.version)")
            return
        }
        repair.setAside(r)
        if case .delete = r.body {
            _ = memory.restoreDelete(r.sceneID)
            repair.lost[r.sceneID] = nil
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
        case .header, .snapshotEnd, .snapshotIndex, .snapshotFooter:
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

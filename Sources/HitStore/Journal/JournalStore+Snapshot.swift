import Dispatch
import Glibc
import HitBase
import HitJSON
import HitJournal
import HitRouting
import SceneCodec

/// Snapshots (compaction) and recovery from a failed write, on the
/// maintenance thread.
extension JournalStore {
    func startMaintenance() {
        let thread = DispatchQueue(label: "hitroute-journal-maintenance")
        thread.async { [self] in
            var retryAt = 0.0
            var backoff = 0.5
            while !stopping.load(ordering: .acquiring) {
                usleep(50_000)
                let now = MonotonicClock.seconds()
                guard let writer = log.writer.withLock({ $0 }) else { continue }
                if let failure = writer.failure {
                    log.markFailed(failure)
                    guard now >= retryAt else { continue }
                    do {
                        try rewriteFromMemory(after: failure)
                        backoff = 0.5
                    } catch {
                        say("journal: still failed, next try in \(format(backoff)) s: \(error)")
                        retryAt = now + backoff
                        backoff = min(backoff * 2, 10)
                    }
                } else if now >= retryAt, compactionDue(writer) {
                    do {
                        try snapshot()
                        backoff = 0.5
                    } catch {
                        say("journal: snapshot failed, next try in \(format(backoff)) s: \(error)")
                        retryAt = now + backoff
                        backoff = min(backoff * 2, 60)
                    }
                }
            }
            maintenanceDone.signal()
        }
    }

    /// Whether the journal since the newest snapshot (this run's segment and
    /// earlier runs' that a start replays) is past `compactMinBytes` and
    /// `compactFactor` times the stored bytes: restarts cannot pile up
    /// segments a snapshot would replace. Each patch weighs its record and
    /// what replaying it costs (`LogTicket.replayCost`): a 45-byte patch
    /// that re-derives a 100,000-layer scene weighs that scene's JSON, so
    /// the time a start takes to replay stays in proportion to the stored
    /// scenes, not to the number of records.
    func compactionDue(_ writer: JournalWriter) -> Bool {
        let bytes = writer.segmentBytes &+ log.segmentReplayCost.load(ordering: .relaxed) &+ earlierSegmentBytes.load(ordering: .relaxed)
        return bytes >= options.compactMinBytes && Double(bytes) > options.compactFactor * Double(max(memory.storedBytes, 1))
    }

    /// Writes a snapshot and starts a new segment: the next segment is made
    /// first and added to `MANIFEST`; then, with writes held off, the current segment is finished
    /// and every scene's snapshot taken (retains, no copies); then the
    /// snapshot is written outside every lock, synced and renamed; then
    /// `MANIFEST` lists it and the new segment alone, and the files it
    /// replaces are removed.
    public func snapshot() throws {
        guard let writer = log.writer.withLock({ $0 }) else { return }
        let started = MonotonicClock.seconds()
        let next = segment.withLock { $0 } + 1
        // The new segment is listed before anything is appended to it.
        let before = manifest.withLock { $0 }
        var listing = before
        listing.segments.append(next)
        let (fd, p, bytes) = try createListedSegment(next, listing: listing)
        let (taken, pause) = try log.exclusive { () throws(JournalIOError) -> (old: Int32, scenes: [SceneSnapshot]) in
            let old: Int32
            do throws(JournalIOError) {
                old = try writer.rotate(to: fd, path: p, existingBytes: bytes)
                log.segmentReplayCost.store(0, ordering: .relaxed)
            } catch {
                Glibc.close(fd)
                // Unlisted again first: a listed file that is missing stops the next start.
                if (try? before.write(to: directory, io: io)) != nil {
                    manifest.withLock { $0 = before }
                    Files.remove(p)
                }
                throw error
            }
            segment.withLock { $0 = next }
            return (old, memory.all())
        }
        Glibc.close(taken.old)
        let written = try writeSnapshot(taken.scenes, sequence: next)
        let compacted = JournalManifest(snapshot: next, segments: [next])
        try compacted.write(to: directory, io: io)
        manifest.withLock { $0 = compacted }
        removeFiles(before: next)
        let report = SnapshotReport(scenes: taken.scenes.count, bytes: written, seconds: MonotonicClock.seconds() - started, pause: pause)
        lastSnapshot.withLock { $0 = report }
        say(
            "journal: snapshot \(JournalFiles.snapshotName(next)): \(report.scenes) scenes, \(written) bytes in \(format(report.seconds)) s; writes held off \(format(pause * 1000)) ms"
        )
    }

    /// After a failed write or sync: the failed file is never trusted again.
    /// With writes refused, every scene in memory (which holds every change
    /// acknowledged, and those that failed) goes into a new snapshot, then a
    /// new segment takes the appends and writes resume.
    func rewriteFromMemory(after failure: JournalIOError) throws {
        guard let writer = log.writer.withLock({ $0 }) else { return }
        let next = segment.withLock { $0 } + 1
        let (scenes, _) = try log.exclusive { () throws(JournalIOError) -> [SceneSnapshot] in memory.all() }
        _ = try writeSnapshot(scenes, sequence: next)
        let (fd, p, bytes) = try createListedSegment(next, listing: JournalManifest(snapshot: next, segments: [next]))
        Glibc.close(writer.restart(fd: fd, path: p, existingBytes: bytes))
        log.segmentReplayCost.store(0, ordering: .relaxed)
        segment.withLock { $0 = next }
        removeFiles(before: next)
        log.status.withLock { $0 = .ready }
        say(
            "journal: recovered from \(failure): wrote \(scenes.count) scenes from memory to \(JournalFiles.snapshotName(next)), appending to \(JournalFiles.segmentName(next)); writes resume"
        )
    }

    /// Writes `scenes` as snapshot `sequence`. Returns its size in bytes.
    /// Creates segment `sequence` and makes `listing` (which names it) the
    /// manifest, on disk and here; a listing that cannot be written takes
    /// the new segment away again, and the manifest in force stays.
    /// - Returns: the new segment's descriptor, path and header bytes.
    func createListedSegment(
        _ sequence: UInt64, listing: JournalManifest
    ) throws(JournalIOError) -> (fd: Int32, path: String, bytes: Int) {
        let (fd, p, bytes) = try JournalFiles.createSegment(directory, sequence, io: io)
        do {
            try listing.write(to: directory, io: io)
        } catch {
            Glibc.close(fd)
            Files.remove(p)
            throw error
        }
        manifest.withLock { $0 = listing }
        return (fd, p, bytes)
    }

    private func writeSnapshot(_ scenes: [SceneSnapshot], sequence: UInt64) throws(JournalIOError) -> Int {
        var w = try SnapshotWriter(dir: directory, sequence: sequence, io: io)
        do throws(JournalIOError) {
            for s in scenes {
                var json = JSONWriter(capacity: 4096)
                SceneEncoder.write(s.live.model, id: s.id, version: nil, to: &json)
                try w.add(sceneID: s.id, version: s.version, json: json.finish())
            }
        } catch {
            w.abandon()
            throw error
        }
        let bytes = w.bytes
        _ = try w.commit()
        return bytes
    }

    /// Removes the snapshots and segments that snapshot `sequence` replaces.
    private func removeFiles(before sequence: UInt64) {
        guard let names = try? Files.list(directory) else { return }
        for seq in JournalFiles.segments(in: names) where seq < sequence { Files.remove(path(JournalFiles.segmentName(seq))) }
        for seq in JournalFiles.snapshots(in: names) where seq < sequence { Files.remove(path(JournalFiles.snapshotName(seq))) }
        earlierSegmentBytes.store(0, ordering: .relaxed)
    }
}

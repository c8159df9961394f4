import Foundation
import Glibc
import HTTPServer
import HitJournal
import Synchronization
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// File I/O that fails on demand (a full disk, an I/O error).
final class InjectedIO: FileIO, @unchecked Sendable {
    let writeErrno = Atomic<Int32>(0)
    let fsyncErrno = Atomic<Int32>(0)

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        let e = writeErrno.load(ordering: .relaxed)
        return e != 0 ? e : PosixFileIO().write(fd, bytes)
    }

    func fsync(_ fd: Int32) -> Int32 {
        let e = fsyncErrno.load(ordering: .relaxed)
        return e != 0 ? e : PosixFileIO().fsync(fd)
    }
}

/// Log lines a store wrote.
final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
    func contains(_ test: (String) -> Bool) -> Bool { lines.withLock { $0.contains(where: test) } }
    var all: [String] { lines.withLock { $0 } }
}

/// The journal backend in process: every acknowledged change survives a
/// reopen; torn tails are cut, damage stops the start or is repaired; a
/// failed write is never acknowledged and the store heals from memory.
final class JournalStoreTests: XCTestCase {
    var dirs: [String] = []

    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func newDirectory() -> String {
        let d = NSTemporaryDirectory() + "hitroute-journal-\(UUID().uuidString)"
        dirs.append(d)
        return d
    }

    func open(
        _ dir: String, fsync: SyncMode = .always, repair: Bool = false, io: any FileIO = PosixFileIO(),
        compactMinBytes: Int = 16 << 20, logs: LogLines? = nil
    ) throws -> (JournalStore, Application) {
        var o = JournalOptions(directory: dir)
        o.fsync = fsync
        o.repair = repair
        o.compactMinBytes = compactMinBytes
        let store = try JournalStore(options: o, io: io, log: { line in logs?.lines.withLock { $0.append(line) } })
        try store.recover()
        return (store, Application(configuration: Configuration(), store: store))
    }

    let scene =
        #"{"layers":[{"id":"a","draggable":true,"shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}},{"id":"b","shape":{"type":"circle","cx":5,"cy":5,"r":5}}]}"#

    /// Every kind of change, acknowledged; returns what GET answers after.
    @discardableResult
    func changeEverything(_ app: Application) -> [String: String] {
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", #"{"action":"b.press"}"#, headers: [("If-Match", "\"1\"")]).status, 200)
        XCTAssertEqual(app.call("POST", "/scenes/s/hit", #"{"x":10,"y":10,"pointer":"p","phase":"down"}"#).status, 200)
        XCTAssertEqual(app.call("POST", "/scenes/s/hit", #"{"x":13.3,"y":10.1,"pointer":"p","phase":"move"}"#).status, 200)
        XCTAssertEqual(app.call("POST", "/scenes/s/hit", #"{"x":17.9,"y":0.7,"pointer":"p","phase":"up"}"#).status, 200)
        XCTAssertEqual(app.call("POST", "/scenes", #"{"id":"gone","layers":[]}"#).status, 201)
        XCTAssertEqual(app.call("DELETE", "/scenes/gone").status, 204)
        XCTAssertEqual(app.call("POST", "/scenes", #"{"layers":[]}"#).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/t", scene).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/t", scene.replacingOccurrences(of: "100", with: "50")).status, 200)
        return state(app)
    }

    func state(_ app: Application) -> [String: String] {
        var out: [String: String] = ["list": app.call("GET", "/scenes").text]
        for id in ["s", "t", "gone", "scene-1"] { out[id] = app.call("GET", "/scenes/\(id)").text }
        return out
    }

    func testEveryAcknowledgedChangeSurvivesAReopen() throws {
        let dir = newDirectory()
        let (store, app) = try open(dir)
        let before = changeEverything(app)
        XCTAssertTrue(before["s"]!.contains(#""version":4"#), before["s"]!)
        XCTAssertTrue(before["s"]!.contains("translate"))
        store.close()
        let (again, reopened) = try open(dir)
        XCTAssertEqual(state(reopened), before)
        // And once more, from the two segments.
        again.close()
        let (_, third) = try open(dir)
        XCTAssertEqual(state(third), before)
    }

    func testASecondStoreCannotOpenTheDirectory() throws {
        let dir = newDirectory()
        let (store, _) = try open(dir)
        XCTAssertThrowsError(try JournalStore(options: JournalOptions(directory: dir))) {
            XCTAssertEqual(($0 as? JournalIOError)?.errno, EWOULDBLOCK)
        }
        store.close()
    }

    func testReadyzIs503AndWritesAndReadsWaitUntilRecovered() throws {
        let dir = newDirectory()
        let store = try JournalStore(options: JournalOptions(directory: dir))
        let app = Application(configuration: Configuration(), store: store)
        XCTAssertEqual(app.call("GET", "/readyz").status, 503)
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).object["type"] as? String, "/problems/store-unavailable")
        XCTAssertEqual(app.call("GET", "/scenes/s").status, 503)
        try store.recover()
        XCTAssertEqual(app.call("GET", "/readyz").status, 200)
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
        store.close()
    }

    /// The last segment's bytes and where its last record starts.
    func lastSegment(_ dir: String) throws -> (path: String, bytes: [UInt8], lastRecord: Int) {
        let names = try Files.list(dir)
        let withRecords = JournalFiles.segments(in: names).map { dir + "/" + JournalFiles.segmentName($0) }
            .filter { (Files.size($0) ?? 0) > 40 }
        let path = try XCTUnwrap(withRecords.last)
        let bytes = try Files.read(path)
        var offset = 0
        var last = 0
        while case .record(_, let next) = RecordReader.next(bytes, at: offset) {
            last = offset
            offset = next
        }
        return (path, bytes, last)
    }

    func copy(_ dir: String) throws -> String {
        let d = newDirectory()
        try FileManager.default.copyItem(atPath: dir, toPath: d)
        return d
    }

    /// A crash in the middle of the last append, at every byte: the torn
    /// record is cut off and logged with its file and offset, and the store
    /// is as it was before that change.
    func testTruncatingTheLastRecordAtEveryOffsetLosesOnlyThatRecord() throws {
        let dir = newDirectory()
        let (store, app) = try open(dir)
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
        let before = state(app)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", #"{"action":"b.press"}"#).status, 200)
        store.close()
        let (path, bytes, last) = try lastSegment(dir)
        for cut in last..<bytes.count {
            let d = try copy(dir)
            let name = (path as NSString).lastPathComponent
            XCTAssertEqual(truncate(d + "/" + name, off_t(cut)), 0)
            let logs = LogLines()
            let (s, reopened) = try open(d, logs: logs)
            XCTAssertEqual(state(reopened), before, "cut at \(cut)")
            if cut > last {
                XCTAssertTrue(logs.contains { $0.contains(name) && $0.contains("offset \(last)") }, "cut at \(cut): \(logs.all)")
            }
            s.close()
            try? FileManager.default.removeItem(atPath: d)
        }
    }

    func testAZeroFilledTailIsCutOff() throws {
        let dir = newDirectory()
        let (store, app) = try open(dir)
        let before = changeEverything(app)
        store.close()
        let (path, bytes, _) = try lastSegment(dir)
        let fd = Glibc.open(path, O_WRONLY | O_APPEND)
        let zeros = [UInt8](repeating: 0, count: 4096)
        XCTAssertEqual(zeros.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }, 4096)
        Glibc.close(fd)
        let (_, reopened) = try open(dir)
        XCTAssertEqual(state(reopened), before)
        XCTAssertEqual(Files.size(path), bytes.count)
    }

    /// A flipped byte in the middle stops the start, naming file and
    /// offset; --repair keeps the prefix before it and moves the rest aside.
    func testAFlippedByteInTheMiddleStopsTheStartUnlessRepair() throws {
        let dir = newDirectory()
        let (store, app) = try open(dir)
        XCTAssertEqual(app.call("PUT", "/scenes/t", scene).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
        let prefix = state(app)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", #"{"action":"b.press"}"#).status, 200)
        XCTAssertEqual(app.call("DELETE", "/scenes/t").status, 204)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", #"{"action":"b.again"}"#).status, 200)
        store.close()
        let (path, bytes, _) = try lastSegment(dir)
        // The second record (the first PATCH after the PUT) starts after header and upload.
        var offset = 0
        var starts: [Int] = []
        while case .record(_, let next) = RecordReader.next(bytes, at: offset) {
            starts.append(offset)
            offset = next
        }
        let victim = starts[3]  // header, PUT t, PUT s, then the first PATCH
        var damaged = bytes
        damaged[victim + 20] ^= 0x40
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(damaged)))
        XCTAssertThrowsError(try open(dir)) { error in
            let e = error as? RecoveryError
            XCTAssertEqual(e?.file, path)
            XCTAssertEqual(e?.offset, victim)
            XCTAssertTrue("\(error)".contains("--repair"))
        }
        let logs = LogLines()
        let (_, repaired) = try open(dir, repair: true, logs: logs)
        let after = state(repaired)
        XCTAssertEqual(after, prefix)
        XCTAssertTrue(try Files.list(dir).contains { $0.contains(".damaged-\(victim)") })
        XCTAssertEqual(Files.size(path), victim)
        XCTAssertTrue(logs.contains { $0.contains("--repair") && $0.contains("offset \(victim)") })
    }

    /// A full disk: the write answers 507 and is not acknowledged, /readyz
    /// goes 503, hits go on; once space is back the store rewrites a
    /// snapshot from memory into a new segment and takes writes again.
    func testAFailedWriteIsNeverAcknowledgedAndTheStoreHeals() throws {
        for (errno, status) in [(ENOSPC, 507), (EIO, 503)] {
            let dir = newDirectory()
            let io = InjectedIO()
            let (store, app) = try open(dir, io: io)
            XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
            io.writeErrno.store(errno, ordering: .relaxed)
            let refused = app.call("PATCH", "/scenes/s/layers/b", #"{"action":"b.press"}"#)
            XCTAssertEqual(refused.status, status)
            XCTAssertEqual(app.call("GET", "/readyz").status, 503)
            XCTAssertTrue(metricsText(app).contains("hitroute_store_ready{backend=\"journal\"} 0\n"), "the scrape says so too")
            XCTAssertEqual(app.call("POST", "/scenes/s/hit", #"{"x":1,"y":1}"#).status, 200, "hits go on")
            let second = app.call("PUT", "/scenes/u", scene)
            XCTAssertTrue([503, 507].contains(second.status), "\(second.status)")
            XCTAssertEqual(app.call("GET", "/scenes/u").status, 404, "a refused write changes nothing")
            io.writeErrno.store(0, ordering: .relaxed)
            let deadline = Date().addingTimeInterval(60)
            while app.call("GET", "/readyz").status != 200 && Date() < deadline { usleep(20_000) }
            XCTAssertEqual(app.call("GET", "/readyz").status, 200)
            XCTAssertEqual(app.call("PUT", "/scenes/u", scene).status, 201)
            XCTAssertTrue(metricsText(app).contains("hitroute_store_ready{backend=\"journal\"} 1\n"))
            let healed = state(app)
            store.close()
            let (_, reopened) = try open(dir)
            XCTAssertEqual(state(reopened), healed, "after errno \(errno)")
        }
    }

    private func metricsText(_ app: Application) -> String {
        String(decoding: app.respond(to: HTTPRequest(method: "GET", target: "/metrics")).body, as: UTF8.self)
    }

    func testAFailedSyncIsNeverAcknowledged() throws {
        let dir = newDirectory()
        let io = InjectedIO()
        let (store, app) = try open(dir, io: io)
        io.fsyncErrno.store(EIO, ordering: .relaxed)
        let r = app.call("PUT", "/scenes/s", scene)
        XCTAssertEqual(r.status, 503)
        XCTAssertEqual(r.object["type"] as? String, "/problems/store-unavailable")
        XCTAssertEqual(app.call("GET", "/readyz").status, 503)
        io.fsyncErrno.store(0, ordering: .relaxed)
        store.close()
    }

    /// Snapshots: when the journal outgrows the live data, a snapshot
    /// replaces the old segments, and a reopen gives the same store.
    func testCompactionWritesASnapshotAndDropsOldSegments() throws {
        let dir = newDirectory()
        let logs = LogLines()
        let (store, app) = try open(dir, fsync: .never, compactMinBytes: 4096, logs: logs)
        XCTAssertEqual(app.call("PUT", "/scenes/s", scene).status, 201)
        for k in 0..<200 {
            XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", #"{"action":"b.\#(k)"}"#).status, 200)
        }
        XCTAssertTrue(eventually { store.lastSnapshot.withLock({ $0 }) != nil }, "a snapshot under the hang guard")
        for k in 0..<5 { XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/a", #"{"action":"a.\#(k)"}"#).status, 200) }
        let before = state(app)
        store.close()
        let names = try Files.list(dir)
        XCTAssertEqual(JournalFiles.snapshots(in: names).count, 1, "\(names)")
        XCTAssertEqual(JournalFiles.segments(in: names).count, 1, "\(names)")
        let (_, reopened) = try open(dir)
        XCTAssertEqual(state(reopened), before)
    }

    /// Compaction weighed only the current run's segment, and every start
    /// opens a new one: a store restarted after each upload kept every
    /// segment and replayed all of them, past any factor of its size. The
    /// segments a start replays count too, so the fifth or so restart's
    /// upload brings a snapshot, and the directory stays small.
    func testSegmentsOfEarlierRunsCountTowardCompaction() throws {
        let dir = newDirectory()
        let big =
            #"{"layers":["#
            + (0..<40).map { #"{"id":"r\#($0)","shape":{"type":"rect","x":\#($0),"y":0,"width":10,"height":10}}"# }.joined(separator: ",")
            + "]}"
        for run in 0..<12 {
            let (store, app) = try open(dir, fsync: .never, compactMinBytes: 4096)
            XCTAssertEqual(app.call("PUT", "/scenes/s", big).status, run == 0 ? 201 : 200)
            // When compaction is due, the maintenance thread takes the snapshot before this run ends.
            let writer = try XCTUnwrap(store.log.writer.withLock { $0 })
            XCTAssertTrue(eventually { !store.compactionDue(writer) }, "run \(run)")
            store.close()
        }
        let names = try Files.list(dir)
        XCTAssertEqual(JournalFiles.snapshots(in: names).count, 1, "\(names)")
        XCTAssertLessThanOrEqual(JournalFiles.segments(in: names).count, 5, "\(names)")
        let (_, reopened) = try open(dir)
        XCTAssertEqual(reopened.call("GET", "/scenes/s").object["version"] as? Int, 12)
    }

    /// A hand-made snapshot may carry any version. Near the largest a
    /// record holds (JournalRecord.maxVersion, 2^62) the scene loads and
    /// takes changes up to it; the change past it is a 507 (at `Int.max` the
    /// next patch trapped), so every file the store writes reads back, and
    /// DELETE and PUT start over at 1. A snapshot past it stops the start.
    func testAHandMadeSnapshotNearTheLargestVersionTakesChangesUpToItAndReopens() throws {
        let last = Int(JournalRecord.maxVersion)
        for (version, loads) in [(last - 1, true), (last + 1, false)] {
            let dir = newDirectory()
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            var writer = try SnapshotWriter(dir: dir, sequence: 1)
            try writer.add(sceneID: "s", version: version, json: Array(scene.utf8))
            _ = try writer.commit()
            guard loads else {
                XCTAssertThrowsError(try open(dir)) { XCTAssertTrue("\($0)".contains("version out of range"), "\($0)") }
                continue
            }
            let (store, app) = try open(dir)
            XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", #"{"action":"b.press"}"#).headers["ETag"], "\"\(last)\"")
            for change in [
                ("PATCH", "/scenes/s/layers/b", #"{"action":"b.up"}"#), ("PUT", "/scenes/s", scene),
                ("POST", "/scenes/s/hit", #"{"x":10,"y":10,"pointer":"p","phase":"down"}"#),
            ] {
                XCTAssertEqual(app.call(change.0, change.1, change.2).status, change.0 == "POST" ? 200 : 507, change.1)
            }
            // The drag that would pass it is refused; the layer stays where it was.
            XCTAssertEqual(app.call("POST", "/scenes/s/hit", #"{"x":40,"y":10,"pointer":"p","phase":"move"}"#).status, 507)
            store.close()
            let (reopenedStore, reopened) = try open(dir)
            let doc = reopened.call("GET", "/scenes/s")
            XCTAssertEqual(doc.object["version"] as? Int, last)
            XCTAssertTrue(doc.text.contains("b.press"))
            XCTAssertEqual(reopened.call("DELETE", "/scenes/s").status, 204)
            XCTAssertEqual(reopened.call("PUT", "/scenes/s", scene).status, 201)
            reopenedStore.close()
            let (_, again) = try open(dir)
            XCTAssertEqual(again.call("GET", "/scenes/s").object["version"] as? Int, 1)
        }
    }

    /// Compaction weighed only bytes: a 40-byte patch of a group's fields
    /// re-derives the group's whole subtree, at replay as live, so a journal
    /// of such patches took a start far longer than the scenes' size says.
    /// Each patch now weighs what replaying it costs: patches of the root of
    /// 2,000 layers bring a snapshot within a few (live, and when a restart
    /// replays them), while as many of one leaf inside the scene do not.
    func testAPatchWeighsWhatReplayingItCostsNotOnlyItsBytes() throws {
        let children = (0..<2_000).map {
            #"{"id":"r\#($0)","shape":{"type":"rect","x":\#($0 % 50 * 10),"y":\#($0 / 50 * 10),"width":8,"height":8}}"#
        }
        let group = #"{"layers":[{"id":"g","children":["# + children.joined(separator: ",") + "]}]}"
        func run(_ layer: String, restart: Bool, snapshots: Bool, _ message: String) throws {
            let dir = newDirectory()
            var (store, app) = try open(dir, fsync: .never, compactMinBytes: restart ? 1 << 40 : 4096)
            XCTAssertEqual(app.call("PUT", "/scenes/s", group).status, 201)
            for k in 0..<12 { XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/\(layer)", #"{"action":"a\#(k)"}"#).status, 200) }
            if restart {
                store.close()
                (store, app) = try open(dir, fsync: .never, compactMinBytes: 4096)
            }
            let writer = try XCTUnwrap(store.log.writer.withLock { $0 })
            if snapshots {
                // The maintenance thread looks every 50 ms; a snapshot it has
                // begun is neither due any more nor reported yet, so the test
                // waits for the report rather than sampling once.
                XCTAssertTrue(eventually { store.lastSnapshot.withLock({ $0 }) != nil && !store.compactionDue(writer) }, message)
            } else {
                XCTAssertFalse(store.compactionDue(writer), message)
                XCTAssertNil(store.lastSnapshot.withLock { $0 }, message)
            }
            XCTAssertEqual(app.call("GET", "/scenes/s").object["version"] as? Int, 13)
            store.close()
        }
        try run("g", restart: false, snapshots: true, "live patches of the root")
        try run("g", restart: true, snapshots: true, "patches of the root, replayed at a start")
        try run("r1234", restart: false, snapshots: false, "patches of one leaf")
    }

    func testTheDurabilityFlagsParse() throws {
        let c = try Configuration.parse(
            arguments: ["--data-dir", "/var/lib/x", "--fsync", "always", "--repair", "--compact-factor", "2.5"], environment: [:])
        XCTAssertEqual(c.journal?.directory, "/var/lib/x")
        XCTAssertEqual(c.journal?.fsync, .always)
        XCTAssertEqual(c.journal?.repair, true)
        XCTAssertEqual(c.journal?.compactFactor, 2.5)
        let e = try Configuration.parse(arguments: [], environment: ["HITROUTE_DATA_DIR": "/d", "HITROUTE_FSYNC": "never"])
        XCTAssertEqual(e.journal?.fsync, .never)
        XCTAssertNil(try Configuration.parse(arguments: [], environment: [:]).journal, "memory only without --data-dir")
        XCTAssertEqual(try Configuration.parse(arguments: [], environment: [:]).fsync, .everysec)
        XCTAssertThrowsError(try Configuration.parse(arguments: ["--fsync", "sometimes"], environment: [:]))
        XCTAssertThrowsError(try Configuration.parse(arguments: ["--compact-factor", "0.5"], environment: [:]))
        XCTAssertThrowsError(try Configuration.parse(arguments: [], environment: ["HITROUTE_FSYNC": "x"]))
    }
}

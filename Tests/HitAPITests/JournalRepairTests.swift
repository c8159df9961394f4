import Foundation
import Glibc
import HitJournal
import XCTest

@testable import HitAPI
@testable import HitStore

/// `--repair` keeps what is intact (SPEC §9): a damaged snapshot record
/// costs only its own scene (its later journal records set aside), and
/// `MANIFEST` makes a missing segment, newest included, stop the start
/// like damage does. Each case counts the scenes kept against those
/// acknowledged.
final class JournalRepairTests: XCTestCase {
    var dirs: [String] = []

    override func tearDown() {
        for d in dirs { try? FileManager.default.removeItem(atPath: d) }
    }

    func newDirectory() -> String {
        let d = NSTemporaryDirectory() + "hitroute-repair-\(UUID().uuidString)"
        dirs.append(d)
        return d
    }

    func copy(_ dir: String) throws -> String {
        let d = newDirectory()
        try FileManager.default.copyItem(atPath: dir, toPath: d)
        return d
    }

    func open(_ dir: String, repair: Bool = false, logs: LogLines? = nil) throws -> (JournalStore, Application) {
        var o = JournalOptions(directory: dir)
        o.fsync = .always
        o.repair = repair
        let store = try JournalStore(options: o, log: { line in logs?.lines.withLock { $0.append(line) } })
        do {
            try store.recover()
        } catch {
            store.close()
            throw error
        }
        return (store, Application(configuration: Configuration(), store: store))
    }

    func scene(_ k: Int) -> String {
        #"{"layers":[{"id":"a","draggable":true,"shape":{"type":"rect","x":\#(k),"y":0,"width":100,"height":100}},{"id":"b","shape":{"type":"circle","cx":5,"cy":5,"r":\#(k + 1)}}]}"#
    }

    /// GET of every id in `ids` (the body, or nil for 404).
    func documents(_ app: Application, _ ids: [String]) -> [String: String?] {
        var out: [String: String?] = [:]
        for id in ids {
            let r = app.call("GET", "/scenes/\(id)")
            out[id] = r.status == 200 ? r.text : nil
        }
        return out
    }

    // MARK: - Snapshots

    /// 30 scenes in a snapshot, then journal records after it: a delete of
    /// one, patches of three, a replacing upload of one, a new scene. The
    /// acknowledged documents, and the snapshot's bytes.
    func snapshotFixture() throws -> (dir: String, acknowledged: [String: String?], snapshot: String, ids: [String]) {
        let dir = newDirectory()
        let (store, app) = try open(dir)
        let ids = (0..<30).map { "s\($0 < 10 ? "0" : "")\($0)" }
        for (k, id) in ids.enumerated() { XCTAssertEqual(app.call("PUT", "/scenes/\(id)", scene(k)).status, 201) }
        XCTAssertEqual(app.call("PATCH", "/scenes/s07/layers/b", #"{"action":"before"}"#).status, 200)
        try store.snapshot()
        XCTAssertEqual(app.call("DELETE", "/scenes/s20").status, 204)
        for id in ["s03", "s10", "s29"] {
            XCTAssertEqual(app.call("PATCH", "/scenes/\(id)/layers/b", #"{"action":"after.1"}"#).status, 200)
            XCTAssertEqual(app.call("PATCH", "/scenes/\(id)/layers/a", #"{"action":"after.2"}"#).status, 200)
        }
        XCTAssertEqual(app.call("PUT", "/scenes/s05", scene(99)).status, 200)
        XCTAssertEqual(app.call("PATCH", "/scenes/s05/layers/b", #"{"action":"after.3"}"#).status, 200)
        XCTAssertEqual(app.call("PUT", "/scenes/n1", scene(7)).status, 201)
        let all = ids + ["n1"]
        let acknowledged = documents(app, all)
        store.close()
        let names = try Files.list(dir)
        let snap = try XCTUnwrap(JournalFiles.snapshots(in: names).last)
        return (dir, acknowledged, dir + "/" + JournalFiles.snapshotName(snap), all)
    }

    /// Every byte region of the snapshot that matters: the header, the
    /// head, fields and tail of every scene record, the index and every
    /// byte of the footer.
    func offsetsToFlip(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var offset = 0
        while case .record(_, let next) = RecordReader.next(bytes, at: offset) {
            starts.append(offset)
            offset = next
        }
        XCTAssertEqual(offset, bytes.count)
        var out: Set<Int> = [0, 3, 4, 8, 11, 12, 13, 14, 21, 22, 30]
        for (k, s) in starts.enumerated().dropFirst() {
            let end = k + 1 < starts.count ? starts[k + 1] : bytes.count
            for d in [0, 1, 5, 9, 12, 14, 22, (end - s) / 2] where s + d < end { out.insert(s + d) }
            out.insert(end - 1)
        }
        for k in (bytes.count - JournalRecord.footerBytes)..<bytes.count { out.insert(k) }
        return out.sorted()
    }

    /// The scene whose snapshot record holds byte `offset` (nil: header, index, footer).
    func owner(of offset: Int, in bytes: [UInt8]) -> String? {
        var at = 0
        while case .record(let r, let next) = RecordReader.next(bytes, at: at) {
            if offset < next { return r.isFileLevel ? nil : r.sceneID }
            at = next
        }
        return nil
    }

    func testAFlippedByteInASnapshotCostsAtMostItsOwnScene() throws {
        let f = try snapshotFixture()
        let bytes = try Files.read(f.snapshot)
        let offsets = offsetsToFlip(bytes)
        var kept = 0
        var acknowledged = 0
        var lostScenes = 0
        var setAside = 0
        for offset in offsets {
            let d = try copy(f.dir)
            let file = d + "/" + (f.snapshot as NSString).lastPathComponent
            var damaged = bytes
            damaged[offset] ^= 0x20
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(damaged)))
            XCTAssertThrowsError(try open(d), "byte \(offset)") { error in
                XCTAssertEqual((error as? RecoveryError)?.file, file, "byte \(offset): \(error)")
            }
            let logs = LogLines()
            let (store, app) = try open(d, repair: true, logs: logs)
            let got = documents(app, f.ids)
            let victim = owner(of: offset, in: bytes)
            for id in f.ids {
                acknowledged += 1
                if got[id]! == f.acknowledged[id]! {
                    kept += 1
                } else {
                    lostScenes += 1
                    XCTAssertEqual(id, victim, "byte \(offset): \(id) changed, though its record is intact: \(logs.all)")
                    XCTAssertNil(got[id]!, "byte \(offset): the damaged scene is lost, not kept half-way")
                }
            }
            // s05 was replaced after the snapshot: its upload restores it.
            XCTAssertEqual(got["s05"]!, f.acknowledged["s05"]!, "byte \(offset)")
            XCTAssertNil(got["s20"]!, "byte \(offset): a delete of a lost scene leaves it deleted")
            if let victim, ["s03", "s10", "s29"].contains(victim) {
                let names = try Files.list(d)
                let aside = try XCTUnwrap(names.first { $0.hasPrefix("set-aside-") }, "byte \(offset): \(names)")
                let records = try Files.read(d + "/" + aside)
                var at = 0
                var ids: [String] = []
                while case .record(let r, let next) = RecordReader.next(records, at: at) {
                    if !r.isFileLevel { ids.append(r.sceneID) }
                    at = next
                }
                XCTAssertEqual(ids, [victim, victim], "byte \(offset)")
                setAside += ids.count
                XCTAssertTrue(logs.contains { $0.contains("lost 1: \(victim)") && $0.contains(aside) }, "\(logs.all)")
            }
            XCTAssertTrue(try Files.list(d).contains { $0.hasPrefix((f.snapshot as NSString).lastPathComponent + ".damaged-") })
            store.close()
            // The repair wrote a clean snapshot: the next start needs no --repair.
            let (again, reopened) = try open(d)
            XCTAssertEqual(documents(reopened, f.ids), got, "byte \(offset)")
            again.close()
            try? FileManager.default.removeItem(atPath: d)
        }
        print(
            "snapshot flips: \(offsets.count) offsets of a \(bytes.count)-byte snapshot of 30 scenes; every start refused without --repair; with it kept \(kept) of \(acknowledged) acknowledged scenes, lost \(lostScenes) (each the damaged record's own), set aside \(setAside) journal records"
        )
        XCTAssertGreaterThan(lostScenes, 0)
        XCTAssertLessThanOrEqual(lostScenes, offsets.count)
    }

    /// A snapshot of format 1 (no index) is still read; `--repair` steps
    /// over a record whose head is intact (its scene lost, unnamed), and
    /// past a damaged head keeps the records before it.
    func testAFormatOneSnapshotIsReadAndRepairedByItsRecordHeads() throws {
        let dir = newDirectory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var bytes = JournalFiles.header(type: 2, sequence: 1)
        var starts: [Int] = []
        for k in 0..<5 {
            starts.append(bytes.count)
            JournalRecord(sceneID: "v\(k)", version: 1, body: .upload(json: Array(scene(k).utf8))).encode(into: &bytes)
        }
        JournalRecord(sceneID: "", version: 0, body: .snapshotEnd(scenes: 5)).encode(into: &bytes)
        let file = dir + "/" + JournalFiles.snapshotName(1)
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
        let ids = (0..<5).map { "v\($0)" }
        let (s0, a0) = try open(dir)
        XCTAssertEqual(documents(a0, ids).values.filter { $0 != nil }.count, 5, "a format-1 snapshot loads")
        s0.close()
        try? FileManager.default.removeItem(atPath: dir)
        for (flip, keptExpected) in [(starts[2] + 30, 4), (starts[2] + 1, 2)] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            var damaged = bytes
            damaged[flip] ^= 0x20
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(damaged)))
            XCTAssertThrowsError(try open(dir)) { XCTAssertEqual(($0 as? RecoveryError)?.offset, starts[2]) }
            let (s, app) = try open(dir, repair: true)
            let got = documents(app, ids)
            XCTAssertEqual(got.values.filter { $0 != nil }.count, keptExpected, "flip at \(flip)")
            XCTAssertNil(got["v2"]!)
            s.close()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    // MARK: - Segments

    /// A flipped byte in a segment: with --repair, every scene whose
    /// records all precede the damaged one is kept as acknowledged.
    func testAFlippedByteInASegmentKeepsTheValidPrefix() throws {
        let dir = newDirectory()
        let (store, app) = try open(dir)
        let ids = (0..<10).map { "g\($0)" }
        for (k, id) in ids.enumerated() { XCTAssertEqual(app.call("PUT", "/scenes/\(id)", scene(k)).status, 201) }
        for id in ids { XCTAssertEqual(app.call("PATCH", "/scenes/\(id)/layers/b", #"{"action":"x"}"#).status, 200) }
        let acknowledged = documents(app, ids)
        store.close()
        let seg = dir + "/" + JournalFiles.segmentName(1)
        let bytes = try Files.read(seg)
        var records: [(start: Int, id: String)] = []
        var at = 0
        while case .record(let r, let next) = RecordReader.next(bytes, at: at) {
            records.append((at, r.sceneID))
            at = next
        }
        var kept = 0
        var total = 0
        var flips = 0
        for (k, rec) in records.enumerated().dropFirst() where k % 3 == 1 {
            let end = k + 1 < records.count ? records[k + 1].start : bytes.count
            for offset in [rec.start, rec.start + 5, rec.start + 13, (rec.start + end) / 2] where offset < end - 1 {
                flips += 1
                let d = try copy(dir)
                var damaged = bytes
                damaged[offset] ^= 0x08
                XCTAssertTrue(FileManager.default.createFile(atPath: d + "/" + JournalFiles.segmentName(1), contents: Data(damaged)))
                XCTAssertThrowsError(try open(d)) { XCTAssertEqual(($0 as? RecoveryError)?.offset, rec.start) }
                let (s, repaired) = try open(d, repair: true)
                let got = documents(repaired, ids)
                let untouched = Set(ids).subtracting(records[k...].map(\.id))
                for id in ids {
                    total += 1
                    if got[id]! == acknowledged[id]! { kept += 1 } else { XCTAssertFalse(untouched.contains(id), "byte \(offset): \(id)") }
                }
                s.close()
                try? FileManager.default.removeItem(atPath: d)
            }
        }
        print("segment flips: \(flips) offsets; with --repair kept \(kept) of \(total) acknowledged scenes (the valid prefix)")
    }

    /// Three runs, three segments: seg 1 makes a1…a5; seg 2 makes b1…b5 and
    /// patches a1; seg 3 makes c1…c5 and patches b1.
    func threeSegments() throws -> (dir: String, acknowledged: [String: String?], ids: [String]) {
        let dir = newDirectory()
        let runs: [[(String, String, String)]] = [
            (1...5).map { ("PUT", "/scenes/a\($0)", scene($0)) },
            (1...5).map { ("PUT", "/scenes/b\($0)", scene($0)) } + [("PATCH", "/scenes/a1/layers/b", #"{"action":"a"}"#)],
            (1...5).map { ("PUT", "/scenes/c\($0)", scene($0)) } + [("PATCH", "/scenes/b1/layers/b", #"{"action":"b"}"#)],
        ]
        var last: [String: String?] = [:]
        let ids = ["a", "b", "c"].flatMap { p in (1...5).map { "\(p)\($0)" } }
        for run in runs {
            let (store, app) = try open(dir)
            for (m, t, b) in run { XCTAssertLessThan(app.call(m, t, b).status, 300, t) }
            last = documents(app, ids)
            store.close()
        }
        XCTAssertEqual(JournalFiles.segments(in: try Files.list(dir)), [1, 2, 3])
        return (dir, last, ids)
    }

    func testADeletedSegmentStopsTheStartAndRepairKeepsTheScenesItDidNotHold() throws {
        let f = try threeSegments()
        // Scenes with no record in the deleted segment.
        let intact: [UInt64: [String]] = [
            1: ["b1", "b2", "b3", "b4", "b5", "c1", "c2", "c3", "c4", "c5"],
            2: ["a2", "a3", "a4", "a5", "c1", "c2", "c3", "c4", "c5"],
            3: ["a1", "a2", "a3", "a4", "a5", "b2", "b3", "b4", "b5"],
        ]
        for (seq, which) in [(1, "first"), (2, "middle"), (3, "newest")] as [(UInt64, String)] {
            let d = try copy(f.dir)
            let name = JournalFiles.segmentName(seq)
            Files.remove(d + "/" + name)
            XCTAssertThrowsError(try open(d), which) { error in
                XCTAssertEqual((error as? RecoveryError)?.file, d + "/" + name, "\(error)")
                XCTAssertTrue("\(error)".contains("missing"), "\(error)")
            }
            let logs = LogLines()
            let (store, app) = try open(d, repair: true, logs: logs)
            let got = documents(app, f.ids)
            let kept = f.ids.filter { got[$0]! == f.acknowledged[$0]! }
            for id in intact[seq]! { XCTAssertEqual(got[id]!, f.acknowledged[id]!, "\(which): \(id)") }
            XCTAssertTrue(logs.contains { $0.contains(name) && $0.contains("missing") }, "\(logs.all)")
            print(
                "deleted \(which) segment: start refused without --repair; with it kept \(kept.count) of \(f.ids.count) acknowledged scenes (\(intact[seq]!.count) had no record in it)"
            )
            store.close()
            let (again, reopened) = try open(d)
            XCTAssertEqual(documents(reopened, f.ids), got, "\(which): the next start needs no --repair")
            again.close()
        }
    }

    /// Decisions where SPEC is silent: a directory without MANIFEST (an
    /// older version) is adopted; an unlisted segment past the listed ones
    /// with only its header (a crash before the manifest listed it) is
    /// removed; one holding records stops the start (--repair moves it
    /// aside); a damaged manifest stops the start (--repair adopts the files).
    func testManifestAdoptionAndUnlistedSegments() throws {
        let f = try threeSegments()
        let manifest = f.dir + "/" + JournalManifest.fileName
        XCTAssertEqual(try JournalManifest.parse(try Files.read(manifest)).get(), JournalManifest(snapshot: nil, segments: [1, 2, 3]))

        let adopted = try copy(f.dir)
        Files.remove(adopted + "/" + JournalManifest.fileName)
        let logs = LogLines()
        let (s1, a1) = try open(adopted, logs: logs)
        XCTAssertEqual(documents(a1, f.ids), f.acknowledged)
        XCTAssertTrue(logs.contains { $0.contains("adopting") })
        s1.close()
        XCTAssertEqual(try JournalManifest.parse(try Files.read(adopted + "/MANIFEST")).get().segments, [1, 2, 3, 4])

        let headerOnly = try copy(f.dir)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: headerOnly + "/" + JournalFiles.segmentName(9), contents: Data(JournalFiles.header(type: 1, sequence: 9))))
        let (s2, a2) = try open(headerOnly)
        XCTAssertEqual(documents(a2, f.ids), f.acknowledged)
        s2.close()
        XCTAssertFalse(try Files.list(headerOnly).contains(JournalFiles.segmentName(9)))

        let extra = try copy(f.dir)
        var bytes = try Files.read(extra + "/" + JournalFiles.segmentName(3))
        bytes.replaceSubrange(0..<31, with: JournalFiles.header(type: 1, sequence: 9))
        XCTAssertTrue(FileManager.default.createFile(atPath: extra + "/" + JournalFiles.segmentName(9), contents: Data(bytes)))
        XCTAssertThrowsError(try open(extra)) { XCTAssertTrue("\($0)".contains("not listed"), "\($0)") }
        let (s3, a3) = try open(extra, repair: true)
        XCTAssertEqual(documents(a3, f.ids), f.acknowledged)
        s3.close()
        XCTAssertTrue(try Files.list(extra).contains { $0.hasPrefix(JournalFiles.segmentName(9) + ".damaged-") })

        let damaged = try copy(f.dir)
        var m = try Files.read(damaged + "/MANIFEST")
        m[25] ^= 1
        XCTAssertTrue(FileManager.default.createFile(atPath: damaged + "/MANIFEST", contents: Data(m)))
        XCTAssertThrowsError(try open(damaged)) { XCTAssertTrue("\($0)".contains("manifest is damaged"), "\($0)") }
        let (s4, a4) = try open(damaged, repair: true)
        XCTAssertEqual(documents(a4, f.ids), f.acknowledged)
        s4.close()
    }

    /// A snapshot lists itself and its segment alone; a deleted snapshot
    /// stops the start, and --repair keeps the scenes later uploads hold.
    func testASnapshotRewritesTheManifestAndADeletedOneStopsTheStart() throws {
        let f = try snapshotFixture()
        let names = try Files.list(f.dir)
        let seq = try XCTUnwrap(JournalFiles.snapshots(in: names).last)
        let listed = try JournalManifest.parse(try Files.read(f.dir + "/MANIFEST")).get()
        XCTAssertEqual(listed.snapshot, seq)
        XCTAssertEqual(listed.segments.first, seq)
        Files.remove(f.snapshot)
        XCTAssertThrowsError(try open(f.dir)) { XCTAssertEqual(($0 as? RecoveryError)?.file, f.snapshot) }
        let (store, app) = try open(f.dir, repair: true)
        let got = documents(app, f.ids)
        XCTAssertEqual(got["s05"]!, f.acknowledged["s05"]!, "restored by its later upload")
        XCTAssertEqual(got["n1"]!, f.acknowledged["n1"]!)
        XCTAssertNil(got["s03"]!, "its patches are set aside, not applied to nothing")
        store.close()
    }

    /// A rewrite after a failed write renames its snapshot into place, then
    /// lists it: a crash between the two leaves a whole snapshot newer than
    /// every listed file. The start adopts it, so a scene only it holds
    /// survives (it used to be removed as an interrupted snapshot).
    func testAnUnlistedSnapshotNewerThanTheManifestIsAdopted() throws {
        let dir = newDirectory()
        do {
            let (store, app) = try open(dir)
            XCTAssertEqual(app.call("PUT", "/scenes/old", scene(1)).status, 201)
            store.close()
        }
        let before = try copy(dir)  // the files and MANIFEST as the crash left them
        do {
            let (store, app) = try open(dir)
            XCTAssertEqual(app.call("PUT", "/scenes/new", scene(2)).status, 201)
            try store.snapshot()
            store.close()
        }
        let snapshot = try XCTUnwrap(JournalFiles.snapshots(in: try Files.list(dir)).last)
        let listed = try JournalManifest.parse(try Files.read(before + "/MANIFEST")).get()
        XCTAssertGreaterThan(snapshot, max(listed.snapshot ?? 0, listed.segments.last ?? 0))
        let name = JournalFiles.snapshotName(snapshot)
        try FileManager.default.copyItem(atPath: dir + "/" + name, toPath: before + "/" + name)
        let (store, app) = try open(before)
        XCTAssertEqual(app.call("GET", "/scenes/new").status, 200, "the snapshot's scene is kept")
        XCTAssertEqual(app.call("GET", "/scenes/old").status, 200)
        store.close()
    }
}

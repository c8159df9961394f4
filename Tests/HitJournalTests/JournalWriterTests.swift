import Dispatch
import Glibc
import Synchronization
import XCTest

@testable import HitJournal

/// File I/O that fails on demand: the seam for a full disk or an I/O error.
final class FaultyIO: FileIO, @unchecked Sendable {
    let writeErrno = Atomic<Int32>(0)
    let fsyncErrno = Atomic<Int32>(0)
    let writes = Atomic<Int>(0)
    let fsyncs = Atomic<Int>(0)

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        writes.wrappingAdd(1, ordering: .relaxed)
        let e = writeErrno.load(ordering: .relaxed)
        return e != 0 ? e : PosixFileIO().write(fd, bytes)
    }

    func fsync(_ fd: Int32) -> Int32 {
        fsyncs.wrappingAdd(1, ordering: .relaxed)
        let e = fsyncErrno.load(ordering: .relaxed)
        return e != 0 ? e : PosixFileIO().fsync(fd)
    }
}

func temporaryDirectory() -> String {
    var template = Array("/tmp/hitjournal-test.XXXXXX".utf8CString)
    let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return String(cString: p!)
}

final class JournalWriterTests: XCTestCase {
    func records(in path: String) throws -> [JournalRecord] {
        let bytes = try Files.read(path)
        var offset = 0
        var out: [JournalRecord] = []
        while case .record(let r, let next) = RecordReader.next(bytes, at: offset) {
            out.append(r)
            offset = next
        }
        XCTAssertEqual(RecordReader.next(bytes, at: offset), .end)
        return out
    }

    func testAppendsAreWrittenInOrderAndDragsCoalesceOnlyWhileUnwritten() throws {
        let dir = temporaryDirectory()
        let io = FaultyIO()
        let (fd, path, bytes) = try JournalFiles.createSegment(dir, 1, io: io)
        let w = JournalWriter(fd: fd, path: path, existingBytes: bytes, mode: .always, io: io)
        let a = try w.append(JournalRecord(sceneID: "s", version: 1, body: .upload(json: [UInt8]("{}".utf8))))
        let d1 = try w.append(JournalRecord(sceneID: "s", version: 2, body: .drag(layer: "l", tx: 1, ty: 1)))
        let d2 = try w.append(JournalRecord(sceneID: "s", version: 3, body: .drag(layer: "l", tx: 2, ty: 5)))
        XCTAssertEqual(d1, d2, "an unwritten drag of the same layer is rewritten in place")
        XCTAssertGreaterThan(d1, a)
        try w.await(d2)
        let d3 = try w.append(JournalRecord(sceneID: "s", version: 4, body: .drag(layer: "l", tx: 3, ty: 5)))
        let d4 = try w.append(JournalRecord(sceneID: "s", version: 5, body: .drag(layer: "m", tx: 0, ty: 0)))
        XCTAssertGreaterThan(d3, d2, "a written drag is never rewritten")
        XCTAssertGreaterThan(d4, d3, "another layer's drag is a record of its own")
        try w.await(d4)
        XCTAssertEqual(io.fsyncs.load(ordering: .relaxed), 3, "header, then one sync per batch")
        let read = try records(in: path)
        XCTAssertEqual(read.map(\.version), [0, 1, 3, 4, 5])
        XCTAssertEqual(read[2].body, .drag(layer: "l", tx: 2, ty: 5))
        close(fd)
    }

    func testManyWritersShareSyncs() throws {
        let dir = temporaryDirectory()
        let io = FaultyIO()
        let (fd, path, bytes) = try JournalFiles.createSegment(dir, 1, io: io)
        let w = JournalWriter(fd: fd, path: path, existingBytes: bytes, mode: .always, io: io)
        let perThread = 200
        let threads = 8
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for k in 0..<perThread {
                let lsn = try! w.append(JournalRecord(sceneID: "s\(t)", version: UInt64(k + 1), body: .delete))
                try! w.await(lsn)
            }
        }
        let read = try records(in: path)
        XCTAssertEqual(read.count, 1 + perThread * threads)
        for t in 0..<threads {
            XCTAssertEqual(
                read.filter { $0.sceneID == "s\(t)" }.map(\.version), (1...perThread).map(UInt64.init), "each writer's records in order")
        }
        XCTAssertLessThanOrEqual(io.fsyncs.load(ordering: .relaxed), 1 + perThread * threads)
        close(fd)
    }

    func testAFailedSyncFailsTheWaiterAndEveryLaterAppendUntilRestart() throws {
        let dir = temporaryDirectory()
        let io = FaultyIO()
        let (fd, path, bytes) = try JournalFiles.createSegment(dir, 1, io: io)
        let w = JournalWriter(fd: fd, path: path, existingBytes: bytes, mode: .always, io: io)
        io.fsyncErrno.store(EIO, ordering: .relaxed)
        let lsn = try w.append(JournalRecord(sceneID: "s", version: 1, body: .delete))
        XCTAssertThrowsError(try w.await(lsn)) { XCTAssertEqual(($0 as? JournalIOError)?.errno, EIO) }
        io.fsyncErrno.store(0, ordering: .relaxed)
        XCTAssertThrowsError(try w.append(JournalRecord(sceneID: "s", version: 2, body: .delete)), "the failed file is not trusted again")
        let (fd2, path2, bytes2) = try JournalFiles.createSegment(dir, 2, io: io)
        close(w.restart(fd: fd2, path: path2, existingBytes: bytes2))
        let again = try w.append(JournalRecord(sceneID: "s", version: 2, body: .delete))
        try w.await(again)
        XCTAssertEqual(try records(in: path2).count, 2)
        close(fd2)
    }

    func testAFullDiskIsReportedAsFull() throws {
        let dir = temporaryDirectory()
        let io = FaultyIO()
        let (fd, path, bytes) = try JournalFiles.createSegment(dir, 1, io: io)
        let w = JournalWriter(fd: fd, path: path, existingBytes: bytes, mode: .everysec, io: io)
        io.writeErrno.store(ENOSPC, ordering: .relaxed)
        let lsn = try w.append(JournalRecord(sceneID: "s", version: 1, body: .delete))
        XCTAssertThrowsError(try w.await(lsn)) { XCTAssertEqual(($0 as? JournalIOError)?.isFull, true) }
        w.stop()
        close(fd)
    }

    func testTheDirectoryLockExcludesASecondHolder() throws {
        let dir = temporaryDirectory()
        let fd = try Files.lockDirectory(dir)
        XCTAssertThrowsError(try Files.lockDirectory(dir)) { XCTAssertEqual(($0 as? JournalIOError)?.errno, EWOULDBLOCK) }
        close(fd)
        close(try Files.lockDirectory(dir))
    }

    func testSnapshotFileIsRenamedIntoPlaceOnlyWhenComplete() throws {
        let dir = temporaryDirectory()
        var w = try SnapshotWriter(dir: dir, sequence: 3)
        try w.add(sceneID: "a", version: 4, json: [UInt8]("{}".utf8))
        XCTAssertEqual(try Files.list(dir), [JournalFiles.snapshotName(3) + ".tmp"])
        let path = try w.commit()
        XCTAssertEqual(try Files.list(dir), [JournalFiles.snapshotName(3)])
        XCTAssertEqual(
            try records(in: path).map(\.body),
            [
                .header(fileType: 2, sequence: 3), .upload(json: [UInt8]("{}".utf8)),
                .snapshotIndex(entries: [JournalRecord.IndexEntry(offset: 31, version: 4, sceneID: "a")]),
                .snapshotFooter(scenes: 1, index: 31 + 25),
            ])
        let bytes = try Files.read(path)
        XCTAssertEqual(
            SnapshotTrailer.read(bytes),
            SnapshotTrailer(scenes: 1, indexOffset: 56, entries: [JournalRecord.IndexEntry(offset: 31, version: 4, sceneID: "a")]))
        XCTAssertEqual(
            bytes.count - 56 - JournalRecord.footerBytes,
            JournalRecord(
                sceneID: "", version: 0, body: .snapshotIndex(entries: [JournalRecord.IndexEntry(offset: 31, version: 4, sceneID: "a")])
            ).encoded.count)
    }

    /// The trailer is found from the file's end alone; a damaged index
    /// leaves the footer's count; a damaged footer (or a format-1 file) none.
    func testTheSnapshotTrailerIsReadFromTheEnd() throws {
        let dir = temporaryDirectory()
        var w = try SnapshotWriter(dir: dir, sequence: 1)
        for k in 0..<5 { try w.add(sceneID: "s\(k)", version: k + 1, json: [UInt8]("{\"layers\":[]}".utf8)) }
        let bytes = try Files.read(try w.commit())
        let t = try XCTUnwrap(SnapshotTrailer.read(bytes))
        XCTAssertEqual(t.entries?.map(\.sceneID), ["s0", "s1", "s2", "s3", "s4"])
        for e in t.entries! {
            guard case .record(let r, _) = RecordReader.next(bytes, at: Int(e.offset)) else { return XCTFail("no record at \(e.offset)") }
            XCTAssertEqual(r.sceneID, e.sceneID)
            XCTAssertEqual(r.version, e.version)
        }
        var index = bytes
        index[t.indexOffset + 30] ^= 1
        XCTAssertEqual(SnapshotTrailer.read(index), SnapshotTrailer(scenes: 5, indexOffset: t.indexOffset, entries: nil))
        for k in (bytes.count - JournalRecord.footerBytes)..<bytes.count {
            var footer = bytes
            footer[k] ^= 0x10
            XCTAssertNil(SnapshotTrailer.read(footer), "byte \(k)")
        }
        var old: [UInt8] = JournalFiles.header(type: 2, sequence: 1)
        JournalRecord(sceneID: "", version: 0, body: .snapshotEnd(scenes: 0)).encode(into: &old)
        XCTAssertNil(SnapshotTrailer.read(old))
    }

    /// The manifest round-trips, says why it does not parse, and is written
    /// whole (no temporary file left).
    func testTheManifestRoundTripsAndRefusesDamage() throws {
        let m = JournalManifest(snapshot: 3, segments: [3, 4, 9])
        let text = String(decoding: m.encoded, as: UTF8.self)
        XCTAssertTrue(
            text.hasPrefix(
                "hitroute-manifest 1\nsnapshot snapshot-0000000000000003.hrs\nsegment journal-0000000000000003.hrj\nsegment journal-0000000000000004.hrj\nsegment journal-0000000000000009.hrj\ncrc32c "
            ), text)
        XCTAssertEqual(try JournalManifest.parse(m.encoded).get(), m)
        XCTAssertEqual(try JournalManifest.parse(JournalManifest(snapshot: nil, segments: [1]).encoded).get().segments, [1])
        for k in 0..<m.encoded.count {
            var bytes = m.encoded
            bytes[k] ^= 0x01
            XCTAssertThrowsError(try JournalManifest.parse(bytes).get(), "byte \(k)")
        }
        for cut in 0..<m.encoded.count { XCTAssertThrowsError(try JournalManifest.parse(Array(m.encoded[..<cut])).get(), "cut \(cut)") }
        // Well-sealed but out of order.
        func sealed(_ text: String) -> [UInt8] {
            let b = Array(text.utf8)
            return b + Array("crc32c \(JournalManifest.hex(CRC32C.checksum(b)))\n".utf8)
        }
        XCTAssertNoThrow(try JournalManifest.parse(sealed("hitroute-manifest 1\nsegment journal-0000000000000002.hrj\n")).get())
        for bad in [
            "hitroute-manifest 2\n", "hitroute-manifest 1\nsegment journal-0000000000000002.hrj\nsegment journal-0000000000000001.hrj\n",
            "hitroute-manifest 1\nsegment journal-0000000000000002.hrj\nsnapshot snapshot-0000000000000002.hrs\n",
            "hitroute-manifest 1\nsnapshot snapshot-0000000000000005.hrs\nsegment journal-0000000000000002.hrj\n",
            "hitroute-manifest 1\nsegment journal-2.hrj\n", "hitroute-manifest 1\nsegment  journal-0000000000000002.hrj\n",
        ] {
            XCTAssertThrowsError(try JournalManifest.parse(sealed(bad)).get(), bad)
        }
        let dir = temporaryDirectory()
        try m.write(to: dir, io: PosixFileIO())
        XCTAssertEqual(try Files.list(dir), [JournalManifest.fileName])
        XCTAssertEqual(try JournalManifest.parse(try Files.read(dir + "/MANIFEST")).get(), m)
    }
}

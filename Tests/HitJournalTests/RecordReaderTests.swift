import TestSupport
import XCTest

@testable import HitJournal

/// The record reader byte by byte: whole, cut at every offset, zero-filled,
/// and one edit away everywhere — each a record or a precise stop.
final class RecordReaderTests: XCTestCase {
    static let records: [JournalRecord] = [
        JournalRecord(sceneID: "", version: 0, body: .header(fileType: 1, sequence: 7)),
        JournalRecord(sceneID: "ring-demo", version: 1, body: .upload(json: Array(#"{"layers":[{"id":"a"}]}"#.utf8))),
        JournalRecord(sceneID: "ring-demo", version: 2, body: .patch(layer: "a", json: Array(#"{"action":"x"}"#.utf8))),
        JournalRecord(sceneID: "ring-demo", version: 9, body: .drag(layer: "a", tx: 1.5, ty: -0.1)),
        JournalRecord(sceneID: "b", version: 3, body: .delete),
        JournalRecord(sceneID: "", version: 0, body: .snapshotEnd(scenes: 4)),
    ]

    static var stream: [UInt8] {
        var out: [UInt8] = []
        for r in records { r.encode(into: &out) }
        return out
    }

    /// Offsets where each record starts, and the end.
    static var boundaries: [Int] {
        var b = [0]
        for r in records { b.append(b.last! + r.encoded.count) }
        return b
    }

    enum Stop: Equatable { case end, torn, damaged }

    /// Reads `bytes` to its stop: the records and where and how it stopped.
    func readAll(_ bytes: [UInt8]) -> (records: [JournalRecord], stop: Stop, at: Int) {
        var offset = 0
        var out: [JournalRecord] = []
        while true {
            switch RecordReader.next(bytes, at: offset) {
            case .record(let r, let next):
                XCTAssertGreaterThan(next, offset)
                out.append(r)
                offset = next
            case .end: return (out, .end, offset)
            case .tornTail: return (out, .torn, offset)
            case .damaged: return (out, .damaged, offset)
            }
        }
    }

    func testWholeStreamRoundTrips() {
        let r = readAll(Self.stream)
        XCTAssertEqual(r.records, Self.records)
        XCTAssertEqual(r.stop, .end)
        XCTAssertEqual(r.at, Self.stream.count)
    }

    func testTheFormatIsAsDocumented() {
        let bytes = JournalRecord(sceneID: "ab", version: 258, body: .delete).encoded
        XCTAssertEqual(bytes.count, 22 + 2)
        XCTAssertEqual(Array(bytes[0..<4]), [12, 0, 0, 0])  // body: kind, id length, version, id
        XCTAssertEqual(bytes[12], 2)
        XCTAssertEqual(bytes[13], 2)
        XCTAssertEqual(Array(bytes[14..<22]), [2, 1, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(Array(bytes[22...]), Array("ab".utf8))
        XCTAssertEqual(Array(bytes[4..<8]), withUnsafeBytes(of: CRC32C.checksum(Array(bytes[12...])).littleEndian, Array.init))
        XCTAssertEqual(Array(bytes[8..<12]), withUnsafeBytes(of: CRC32C.checksum(Array(bytes[0..<8])).littleEndian, Array.init))
    }

    /// A crash mid-append: the file ends anywhere. Every complete record is
    /// read; the incomplete one is a torn tail exactly at its start.
    func testTruncatedAtEveryOffsetIsATornTailAtTheLastBoundary() {
        let bytes = Self.stream
        let boundaries = Self.boundaries
        for cut in 0...bytes.count {
            let r = readAll(Array(bytes[..<cut]))
            let complete = boundaries.lastIndex { $0 <= cut }!
            XCTAssertEqual(r.records, Array(Self.records[..<complete]), "cut \(cut)")
            XCTAssertEqual(r.at, boundaries[complete], "cut \(cut)")
            XCTAssertEqual(r.stop, cut == boundaries[complete] ? .end : .torn, "cut \(cut)")
        }
    }

    func testZeroFilledTailIsATornTail() {
        for zeros in [1, 11, 12, 13, 100, 4096] {
            let r = readAll(Self.stream + [UInt8](repeating: 0, count: zeros))
            XCTAssertEqual(r.records, Self.records)
            XCTAssertEqual(r.stop, .torn, "\(zeros) zeros")
            XCTAssertEqual(r.at, Self.stream.count)
        }
        // Zeros over the last record's body, as when the file grew before its data came.
        var bytes = Self.stream
        let last = Self.boundaries[Self.records.count - 1]
        for i in (last + 12)..<bytes.count { bytes[i] = 0 }
        let r = readAll(bytes)
        XCTAssertEqual(r.stop, .torn)
        XCTAssertEqual(r.at, last)
    }

    /// A flipped bit anywhere: the records before it are read; the record
    /// holding it is damage, unless it is the last one, whose whole-body
    /// checksum failure reads as a torn tail (what a crash leaves).
    func testAFlippedBitStopsAtItsRecord() {
        let bytes = Self.stream
        let boundaries = Self.boundaries
        for i in bytes.indices {
            for bit in [0, 3, 7] {
                var edited = bytes
                edited[i] ^= UInt8(1 << bit)
                let k = boundaries.lastIndex { $0 <= i }!
                let r = readAll(edited)
                XCTAssertEqual(r.records, Array(Self.records[..<k]), "byte \(i) bit \(bit)")
                XCTAssertEqual(r.at, boundaries[k], "byte \(i) bit \(bit)")
                let isLast = k == Self.records.count - 1
                let inBody = i >= boundaries[k] + 12
                XCTAssertEqual(r.stop, isLast && inBody ? .torn : .damaged, "byte \(i) bit \(bit)")
            }
        }
    }

    /// Every one-byte edit (replaced, dropped, doubled) and every split:
    /// never a trap; each step is a record or a stop inside the input.
    func testEveryOneByteEditNeverTraps() {
        forEachEdit(of: Self.stream, replacements: [0, 1, 0x7F, 0x80, 0xFF]) { bytes in
            let r = readAll(bytes)
            XCTAssertLessThanOrEqual(r.at, bytes.count)
            if r.stop == .end { XCTAssertEqual(r.at, bytes.count) }
        }
    }

    /// Checksummed but malformed bodies are damage with a reason.
    func testMalformedBodiesAreDamageWithAReason() {
        func sealed(_ body: [UInt8]) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 12) + body
            JournalRecord.seal(&out, at: 0)
            return out
        }
        let cases: [([UInt8], String)] = [
            ([99, 0] + [UInt8](repeating: 0, count: 8), "unknown record kind"),
            ([1, 1] + [UInt8](repeating: 0, count: 8) + [UInt8(ascii: "/"), 1], "invalid scene id"),
            ([1, 200] + [UInt8](repeating: 0, count: 8), "scene id runs past"),
            ([2, 1] + [UInt8](repeating: 0, count: 8) + [UInt8(ascii: "a"), 1], "delete with a payload"),
            ([4, 1] + [UInt8](repeating: 0, count: 8) + [UInt8(ascii: "a"), 1, 0, 65, 1, 2], "drag translation"),
            ([3, 1] + [UInt8](repeating: 0, count: 8) + [UInt8(ascii: "a"), 9, 0, 65], "layer id runs past"),
            ([1, 1] + [UInt8](repeating: 0xFF, count: 8) + [UInt8(ascii: "a"), 1], "version out of range"),
            // 2^62 + 1: one past JournalRecord.maxVersion (little-endian).
            ([1, 1, 1, 0, 0, 0, 0, 0, 0, 0x40] + [UInt8(ascii: "a"), 1], "version out of range"),
        ]
        // The largest version reads back.
        let last = JournalRecord(sceneID: "a", version: JournalRecord.maxVersion, body: .upload(json: [1]))
        guard case .record(let read, _) = RecordReader.next(last.encoded, at: 0) else { return XCTFail("maxVersion") }
        XCTAssertEqual(read, last)
        for (bytes, reason) in cases {
            let record = sealed(bytes)
            guard case .damaged(let why) = RecordReader.next(record + record, at: 0) else {
                return XCTFail("\(reason): not damage")
            }
            XCTAssertTrue(why.contains(reason), "\(why) should say \(reason)")
        }
        // A length beyond the cap is damage, not a torn tail.
        var huge = [UInt8](repeating: 0, count: 12)
        huge[3] = 0x7F
        let crc = CRC32C.checksum(Array(huge[0..<8]))
        withUnsafeBytes(of: crc.littleEndian) { for k in 0..<4 { huge[8 + k] = $0[k] } }
        guard case .damaged = RecordReader.next(huge, at: 0) else { return XCTFail("huge length") }
    }
}

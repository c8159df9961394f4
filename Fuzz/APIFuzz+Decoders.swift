// The hit body's and the stream message's fast readers
// (`CompactHitBody`, `JSONReader.plainHitQuery`, `StreamMessage.plainWithSeq`)
// against the general decoder, on the bodies the session sends and on
// near misses made from them: both must give the same query (and `seq`),
// or fail alike.
import HitAPI
import SceneCodec

/// Checks `body` and a variant of it the stream picks (a byte changed,
/// dropped or doubled, or `,"seq":N}` in place of its closing brace,
/// N sometimes no plain integer), each read fast and in full.
func checkDecoders(_ body: String, _ d: inout Decisions) {
    var bytes = Array(body.utf8)
    checkBothReaders(bytes)
    guard !bytes.isEmpty else { return }
    let at = d.below(bytes.count)
    switch d.below(5) {
    case 0: bytes[at] = d.pick(Array(#"0123456789-.eE+,:{}"xy "#.utf8))
    case 1: bytes.remove(at: at)
    case 2: bytes.insert(bytes[at], at: at)
    default:
        let seq = d.pick(["0", "7", "01", "-1", "1.5", "123456789012345", "1234567890123456", "\"s\"", "", "1e3"])
        bytes.removeLast()
        bytes += Array(#","seq":\#(seq)}"#.utf8)
    }
    checkBothReaders(bytes)
}

private func checkBothReaders(_ bytes: [UInt8]) {
    func fail(_ why: String) -> Never {
        fatalError("decoders disagree on \(String(decoding: bytes, as: UTF8.self)): \(why)")
    }
    bytes.withUnsafeBufferPointer { b in
        let fast = Result { () throws(DecodeFailure) in try HitRequestDecoder.decodeHit(b) }
        let full = Result { () throws(DecodeFailure) in try HitRequestDecoder.decodeHit(b, fastPath: false) }
        switch (fast, full) {
        case (.success(let f), .success(let s)):
            if f != s || f.point.x.sign != s.point.x.sign || f.point.y.sign != s.point.y.sign { fail("hit \(f) against \(s)") }
        case (.failure(let f), .failure(let s)): if f != s { fail("hit \(f) against \(s)") }
        default: fail("hit \(fast) against \(full)")
        }
        let fastMessage = Result { () throws(DecodeFailure) in try StreamMessage.decode(b) }
        let fullMessage = Result { () throws(DecodeFailure) in try StreamMessage.decode(b, fastPath: false) }
        switch (fastMessage, fullMessage) {
        case (.success(let f), .success(let s)):
            if f.0 != s.0 || f.1 != s.1 || f.0.point.x.sign != s.0.point.x.sign { fail("message \(f) against \(s)") }
        case (.failure(let f), .failure(let s)): if f != s { fail("message \(f) against \(s)") }
        default: fail("message \(fastMessage) against \(fullMessage)")
        }
    }
}

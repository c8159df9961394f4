import TestSupport
import XCTest

@testable import HTTPServer

/// A client's frame: masked with a fixed key unless `mask` is nil.
func clientFrame(
    _ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, mask: UInt32? = 0x37FA_213D
) -> [UInt8] {
    var out: [UInt8] = []
    WebSocketFrameEncoder.append(opcode: opcode, fin: fin, rsv: rsv, payload: payload, mask: mask, to: &out)
    return out
}

func clientText(_ text: String, fin: Bool = true) -> [UInt8] { clientFrame(.text, Array(text.utf8), fin: fin) }

/// A close frame's payload with `code` and `reason`.
func closeBody(_ code: UInt16, _ reason: String = "") -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
}

/// The actions a fresh state machine takes over `bytes` fed in pieces of
/// the given sizes (the last takes the rest), each described as text:
/// `text:…`, `pong:<hex>`, `ping`, `close:<code>:<reason>:<then close>`, `closeSocket`.
func actions(_ bytes: [UInt8], pieces: [Int], limits: WebSocketLimits = WebSocketLimits(), now: UInt64 = 0) -> [String] {
    var machine = WebSocketStateMachine(limits: limits, now: now)
    var out: [String] = []
    var start = 0
    var k = 0
    while start < bytes.count {
        let size = k < pieces.count ? max(1, pieces[k]) : bytes.count - start
        k += 1
        let chunk = Array(bytes[start..<min(bytes.count, start + size)])
        start += chunk.count
        chunk.withUnsafeBytes { raw in
            var rest = raw
            while true {
                let (used, action) = machine.read(rest, now: now)
                rest = UnsafeRawBufferPointer(rebasing: rest[used...])
                if action == .needMoreData {
                    XCTAssertTrue(rest.isEmpty, "needMoreData must consume everything")
                    break
                }
                out.append(describe(action))
            }
        }
    }
    return out
}

func describe(_ action: WebSocketStateMachine.Action) -> String {
    switch action {
    case .needMoreData: return "needMoreData"
    case .message(let m): return "text:" + String(decoding: m, as: UTF8.self)
    case .sendPong(let p): return "pong:" + p.map { String($0, radix: 16) }.joined()
    case .sendPing: return "ping"
    case .sendClose(let code, let reason, let thenClose): return "close:\(code):\(reason):\(thenClose)"
    case .closeSocket: return "closeSocket"
    }
}

/// Feeds `bytes` whole, byte by byte, split at every offset, and in
/// seeded random pieces; asserts all give the same actions and returns them.
func actionsEverySplit(
    _ bytes: [UInt8], limits: WebSocketLimits = WebSocketLimits(), file: StaticString = #filePath, line: UInt = #line
) -> [String] {
    let whole = actions(bytes, pieces: [bytes.count], limits: limits)
    XCTAssertEqual(
        actions(bytes, pieces: Array(repeating: 1, count: bytes.count), limits: limits), whole,
        "byte by byte", file: file, line: line)
    for offset in 1..<max(1, bytes.count) {
        XCTAssertEqual(actions(bytes, pieces: [offset], limits: limits), whole, "split at \(offset)", file: file, line: line)
    }
    var random = SplitMix64(seed: UInt64(bytes.count))
    for _ in 0..<20 {
        let pieces = (0..<bytes.count).map { _ in 1 + Int(random.next() % 9) }
        XCTAssertEqual(actions(bytes, pieces: pieces, limits: limits), whole, "pieces \(pieces)", file: file, line: line)
    }
    return whole
}

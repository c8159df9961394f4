// libFuzzer harness for the WebSocket frame decoder and message assembly
// (WebSocketStateMachine over WebSocketFrameDecoder and
// WebSocketMessageAssembler). Compiled together with Sources/HTTPServer
// into one module by Fuzz/build-ws.sh (no `import HTTPServer`: the
// internals are in reach).
//
// Byte 0 picks the message limit (`maxMessageBytes(_:)`); byte 1 seeds the
// random split; the rest is what a client sends after the handshake. It
// is fed whole, byte by byte and in random pieces, as the event loop feeds
// it, and the harness traps (so libFuzzer keeps the input) when:
//  1. a call makes no progress (answers an action without consuming input
//     more often than there are frames, or `needMoreData` with bytes left);
//  2. the three splits do not give the same actions;
//  3. a delivered message is over the limit or not UTF-8, or a pong's
//     payload is over 125 bytes;
//  4. anything follows an action that ends the stream (a close frame sent
//     with `thenClose`, or `closeSocket`).
// Then every message is encoded again as masked frames cut into random
// fragments, and decoding that must give the same messages.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    var limits = WebSocketLimits()
    limits.maxMessageBytes = maxMessageBytes(data[0])
    let stream = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    let whole = transcript(stream, limits: limits) { rest in rest }
    let single = transcript(stream, limits: limits) { _ in 1 }
    var state = UInt64(data[1]) &* 0x9E37_79B9_7F4A_7C15 | 1
    let random = transcript(stream, limits: limits) { rest in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return min(rest, 1 + Int(state % 37))
    }
    check(whole == single, "byte by byte: \(single.suffix(2)) but whole: \(whole.suffix(2))")
    check(whole == random, "random pieces (seed \(data[1])): \(random.suffix(2)) but whole: \(whole.suffix(2))")

    // Round trip: the messages, re-encoded in fragments, decode to themselves.
    let messages = whole.compactMap { seen -> [UInt8]? in if case .message(let m) = seen { return m } else { return nil } }
    var encoded: [UInt8] = []
    for message in messages {
        var start = 0
        var first = true
        repeat {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let end = min(message.count, start + Int(state % 50))
            let fin = end == message.count
            WebSocketFrameEncoder.append(
                opcode: first ? .text : .continuation, fin: fin, payload: Array(message[start..<end]),
                mask: UInt32(truncatingIfNeeded: state >> 20), to: &encoded)
            if state & 7 == 0 { WebSocketFrameEncoder.append(opcode: .ping, payload: [1], mask: 7, to: &encoded) }
            start = end
            first = false
        } while start < message.count
    }
    let again = encoded.withUnsafeBytes { transcript($0, limits: limits) { rest in rest } }
    let messagesAgain = again.compactMap { seen -> [UInt8]? in if case .message(let m) = seen { return m } else { return nil } }
    check(messagesAgain == messages, "re-encoded messages decode differently")
    return 0
}

/// The message limit byte 0 picks: 0–63 bytes, 64 KiB, or 1 MiB.
func maxMessageBytes(_ b: UInt8) -> Int {
    switch b >> 6 {
    case 0, 1: return Int(b & 63)
    case 2: return 64 * 1024
    default: return 1 << 20
    }
}

/// One action as the harness compares it.
enum Seen: Equatable {
    case message([UInt8])
    case pong([UInt8])
    case close(UInt16, String, Bool)
    case closeSocket
}

/// Every action the state machine takes over `stream`, fed in the pieces
/// `piece` chooses (given the bytes left, it returns how many to send
/// next). Checks 1, 3 and 4 after every call.
func transcript(_ stream: UnsafeRawBufferPointer, limits: WebSocketLimits, piece: (Int) -> Int) -> [Seen] {
    var machine = WebSocketStateMachine(limits: limits, now: 0)
    var seen: [Seen] = []
    var start = 0
    var ended = false
    while start < stream.count {
        let n = max(1, piece(stream.count - start))
        var rest = UnsafeRawBufferPointer(rebasing: stream[start..<min(stream.count, start + n)])
        start += rest.count
        var idle = 0
        while true {
            let (used, action) = machine.read(rest, now: 0)
            check(used <= rest.count, "consumed more than given")
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            if case .needMoreData = action {
                check(rest.isEmpty, "needMoreData with \(rest.count) bytes left")
                break
            }
            idle = used == 0 ? idle + 1 : 0
            check(idle < 2, "no progress")
            check(!ended, "an action after the stream ended: \(action)")
            switch action {
            case .message(let m):
                check(m.count <= limits.maxMessageBytes, "a message over the limit")
                check(String(validating: m, as: UTF8.self) != nil, "a message that is not UTF-8")
                seen.append(.message(Array(m)))
            case .sendPong(let p):
                check(p.count <= 125, "a pong over 125 bytes")
                seen.append(.pong(Array(p)))
            case .sendClose(let code, let reason, let thenClose):
                seen.append(.close(code.rawValue, reason, thenClose))
                if thenClose { ended = true }
            case .closeSocket:
                seen.append(.closeSocket)
                ended = true
            case .sendPing, .needMoreData:
                check(false, "unexpected \(action)")
            }
        }
    }
    return seen
}

/// Traps with `message` (printed in optimised builds too) unless `condition`.
@inline(__always)
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

// libFuzzer harness for HitJSON. Compiled together with Sources/HitJSON
// into one module by Fuzz/run.sh (so there is no `import HitJSON`).
//
// Besides "never crashes" (ASan also catches any read outside the input,
// which libFuzzer allocates with its exact size), it checks invariants and
// traps when one breaks:
//  1. JSONValue.parse and skipValue + finish agree on accept/reject and on
//     the error offset, which lies within 0...count;
//  2. an accepted document with finite numbers re-encodes to JSON that
//     parses to an equal value and re-encodes to identical bytes;
//  3. a decoder-style walk that mixes peek/read…/begin…/next… with
//     skipValue and readPlainPair (chosen by offset) agrees with both on
//     verdict and offset, and a plain pair reads as the general path does;
//  4. merge-patching the value into itself and looking for non-finite
//     numbers do not crash.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    let maxDepth = 64

    let parsed = Result { () throws(JSONSyntaxError) -> JSONValue in
        try JSONValue.parse(input, maxDepth: maxDepth)
    }
    var reader = JSONReader(input, maxDepth: maxDepth)
    let skipped = Result { () throws(JSONSyntaxError) -> Int in
        try reader.skipValue()
        try reader.finish()
        return reader.offset
    }

    var walker = JSONReader(input, maxDepth: maxDepth)
    let walked = Result { () throws(JSONSyntaxError) -> Int in
        try walkMixed(&walker)
        try walker.finish()
        return walker.offset
    }
    switch (skipped, walked) {
    case (.success(let a), .success(let b)): precondition(a == b, "walk ended at \(b), skip at \(a)")
    case (.failure(let a), .failure(let b)):
        precondition(a.offset == b.offset, "walk error at \(b.offset) (\(b.message)), skip error at \(a.offset) (\(a.message))")
    default: preconditionFailure("walk and skipValue disagree: \(walked) vs \(skipped)")
    }

    switch (parsed, skipped) {
    case (.success(let value), .success(let end)):
        precondition(end == size, "skipValue stopped at \(end) of \(size)")
        if value.firstNonFiniteNumber == nil {
            let encoded = value.encoded
            guard let again = try? JSONValue.parse(encoded, maxDepth: maxDepth) else {
                preconditionFailure("rejected own output \(String(decoding: encoded, as: UTF8.self))")
            }
            precondition(again == value, "round trip changed the value")
            precondition(again.encoded == encoded, "re-encoding is not stable")
        } else {
            _ = value.encoded  // non-finite numbers are written as null, never trap
        }
        _ = value.merging(patch: value)
    case (.failure(let e1), .failure(let e2)):
        precondition(e1.offset == e2.offset, "parse error at \(e1.offset) (\(e1.message)) but skip error at \(e2.offset) (\(e2.message))")
        precondition(e1.offset >= 0 && e1.offset <= size, "offset \(e1.offset) outside 0...\(size)")
    default:
        preconditionFailure("parse and skipValue disagree: \(parsed) vs \(skipped)")
    }
    return 0
}

/// Reads one value through the pull API, skipping some sub-values (those
/// starting at an offset divisible by 3) with skipValue instead.
/// Recursion depth is bounded by the reader's maxDepth.
func walkMixed(_ r: inout JSONReader) throws(JSONSyntaxError) {
    let kind = try r.peek()
    if r.offset % 3 == 0 {
        try r.skipValue()
        return
    }
    switch kind {
    case .object:
        try r.beginObject()
        while try r.nextKey() != nil { try walkMixed(&r) }
    case .array:
        if r.offset % 3 == 1 {
            let start = r.checkpoint
            if let pair = r.readPlainPair() {
                // The general path reads the same numbers and ends there too.
                let end = r.offset
                r.rewind(to: start)
                try r.beginArray()
                var values: [UInt64] = []
                while try r.nextElement() { values.append(try r.readNumber().bitPattern) }
                precondition(values == [pair.0.bitPattern, pair.1.bitPattern], "plain pair \(pair), general path \(values)")
                precondition(r.offset == end, "plain pair ended at \(end), general path at \(r.offset)")
                return
            }
        }
        try r.beginArray()
        while try r.nextElement() { try walkMixed(&r) }
    case .string: _ = try r.readString()
    case .number: _ = try r.readNumber()
    case .bool: _ = try r.readBool()
    case .null: try r.readNull()
    }
}

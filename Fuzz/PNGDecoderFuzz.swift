// libFuzzer harness for HitImage. Compiled together with Sources/HitImage
// into one module by Fuzz/run-png.sh (so there is no `import HitImage`).
//
// The first input byte chooses the mode; the rest is the payload:
//  - even: the payload is a whole PNG file;
//  - odd: the payload is the IDAT data of a PNG built around it with correct
//    CRCs (byte 1 picks the colour type and depth, bytes 2–3 width and height
//    in 1...32, byte 4 interlace, byte 5 a palette / tRNS choice), so the
//    fuzzer reaches inflate, the filters and alpha extraction without
//    having to forge CRCs; and the same payload inflated as a bare zlib
//    stream into a buffer of the size the header implies.
// Besides "never crashes" (ASan also catches any read outside the input),
// it checks, trapping when one breaks:
//  1. a decoded image has columns × rows alpha bytes, at most maxPixels;
//  2. the same file decodes identically with the limit set to exactly its
//     pixel count, and is refused with one pixel less;
//  3. every error names its problem (a non-empty message);
//  4. PNG decoding and bare inflate agree on whether the stream is good.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNGDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1 else { return 0 }
    let payload = UnsafeBufferPointer(start: data + 1, count: size - 1)
    if data[0] & 1 == 0 {
        check(payload)
    } else {
        checkBuilt(payload)
    }
    return 0
}

let maxPixels = 1 << 16

func decodeResult(_ bytes: UnsafeBufferPointer<UInt8>, maxPixels: Int) -> Result<AlphaImage, PNGError> {
    Result { () throws(PNGError) -> AlphaImage in try PNGDecoder.decodeAlpha(bytes, maxPixels: maxPixels) }
}

@discardableResult
func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    switch decodeResult(bytes, maxPixels: maxPixels) {
    case .success(let image):
        let pixels = image.columns * image.rows
        precondition(
            image.alpha.count == pixels && pixels <= maxPixels, "image \(image.columns)×\(image.rows) has \(image.alpha.count) bytes")
        precondition(decodeResult(bytes, maxPixels: pixels) == .success(image), "exact limit changed the result")
        if case .success = decodeResult(bytes, maxPixels: pixels - 1) { preconditionFailure("limit of one pixel less accepted") }
        return true
    case .failure(let error):
        precondition(!error.message.isEmpty, "empty error message")
        return false
    }
}

/// (colour type, bit depth) pairs, all allowed.
let kinds: [(UInt8, UInt8)] = [
    (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (3, 1), (3, 2), (3, 4), (3, 8), (4, 8), (4, 16), (6, 8), (6, 16),
]

func checkBuilt(_ payload: UnsafeBufferPointer<UInt8>) {
    guard payload.count >= 5 else { return }
    let (type, depth) = kinds[Int(payload[0]) % kinds.count]
    let width = UInt32(payload[1] % 32) + 1
    let height = UInt32(payload[2] % 32) + 1
    let interlace = payload[3] & 1
    let option = payload[4]
    let stream = Array(payload[5...])

    var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    func chunk(_ type: String, _ data: [UInt8]) {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { CRC32.checksum($0) }
        file += be(UInt32(data.count)) + body + be(crc)
    }
    chunk("IHDR", be(width) + be(height) + [depth, type, 0, 0, interlace])
    if type == 3 {
        let entries = Int(option % 16) + 1
        chunk("PLTE", [UInt8](repeating: 7, count: 3 * entries))
        if option & 0x10 != 0 { chunk("tRNS", (0..<min(entries, Int(option >> 5) + 1)).map { UInt8($0 * 37 & 0xFF) }) }
    } else if option & 0x10 != 0 && (type == 0 || type == 2) {
        let key = [UInt8](repeating: 0, count: 1) + [option & 0x0F]
        chunk("tRNS", type == 0 ? key : key + key + key)
    }
    chunk("IDAT", stream)
    chunk("IEND", [])
    let decoded = file.withUnsafeBufferPointer { check($0) }

    // The same stream through bare inflate, into the size the header implies.
    let header = PNGHeader(
        width: Int(width), height: Int(height), bitDepth: Int(depth), colorType: PNGColorType(rawValue: type)!, interlaced: interlace == 1)
    guard let expected = header.inflatedSize() else { preconditionFailure("small header overflowed") }
    var out = [UInt8](repeating: 0, count: expected)
    let inflated = stream.withUnsafeBufferPointer { input in
        out.withUnsafeMutableBufferPointer { output in
            Result { () throws(InflateError) -> Int in try Inflate.zlib(input, into: output) }
        }
    }
    if case .success(let end) = inflated {
        precondition(end <= stream.count, "stream end \(end) past \(stream.count)")
    }
    if decoded, case .failure(let e) = inflated { preconditionFailure("PNG decoded but inflate failed: \(e.message)") }
}

func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

// Times HitImage's PNGDecoder.decodeAlpha on PNG files. Compiled together with
// Sources/HitImage by Benchmarks/png/png-decode.py (swiftc -O), so there is
// no `import HitImage`.
//
//   png-decode-bench ROUNDS FILE...
// prints, per file, one line: "<file> <bytes> <pixels> <seconds per decode, one per round ...>"
import Glibc

func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return bytes
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

@main
struct PNGDecodeBench {
    static func main() {
        let args = CommandLine.arguments
        guard args.count >= 3, let rounds = Int(args[1]) else {
            print("usage: png-decode-bench ROUNDS FILE...")
            exit(2)
        }
        for path in args[2...] {
            guard let bytes = readFile(path) else {
                print("cannot read \(path)")
                exit(1)
            }
            var line = "\(path) \(bytes.count)"
            var pixels = 0
            var times: [String] = []
            for _ in 0..<rounds {
                let start = now()
                let image = bytes.withUnsafeBufferPointer { try? PNGDecoder.decodeAlpha($0, maxPixels: 1 << 26) }
                let elapsed = now() - start
                guard let image else {
                    print("\(path) does not decode")
                    exit(1)
                }
                pixels = image.columns * image.rows
                times.append(String(elapsed))
            }
            line += " \(pixels) " + times.joined(separator: " ")
            print(line)
        }
    }
}

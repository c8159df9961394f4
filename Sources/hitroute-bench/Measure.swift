// Timing and reporting helpers shared by the benchmarks.
import Glibc
import HitBase

/// Seconds on the monotonic clock.
func now() -> Double { MonotonicClock.seconds() }

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Median seconds per call of `body` over `runs` runs of `perRun` calls.
func measure(runs: Int = 15, perRun: Int, _ body: (Int) -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<runs {
        let t0 = now()
        for i in 0..<perRun { body(i) }
        samples.append((now() - t0) / Double(perRun))
    }
    return median(samples)
}

/// `x` with one decimal, right-aligned in `width` characters.
func fixed(_ x: Double, width: Int = 8) -> String {
    let tenths = Int((x * 10).rounded())
    let text = "\(tenths / 10).\(abs(tenths % 10))"
    return String(repeating: " ", count: max(0, width - text.count)) + text
}

/// A sink the optimiser cannot see through.
@inline(never) func consume<T>(_ x: T) { withExtendedLifetime(x) {} }

/// This process's resident memory (`VmRSS`) and its high-water mark since
/// the last `resetPeakRSS()` (`VmHWM`), in bytes, from /proc/self/status.
func residentMemory() -> (current: Int, peak: Int) {
    guard let file = fopen("/proc/self/status", "r") else { return (0, 0) }
    defer { fclose(file) }
    var current = 0
    var peak = 0
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let kB = Int(text.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        if text.hasPrefix("VmRSS:") { current = kB * 1024 }
        if text.hasPrefix("VmHWM:") { peak = kB * 1024 }
    }
    return (current, peak)
}

/// Resets the kernel's high-water mark of resident memory to the current
/// value (Linux: writing 5 to /proc/self/clear_refs).
func resetPeakRSS() {
    guard let file = fopen("/proc/self/clear_refs", "w") else { return }
    fputs("5", file)
    fclose(file)
}

// Timing and reporting helpers shared by the benchmarks.
import Glibc

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

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

/// Peak resident memory of this process so far, in bytes.
func peakRSS() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}


import Glibc

/// The one monotonic clock: `CLOCK_MONOTONIC` (never jumps; read through
/// the vDSO, no system call), from an arbitrary origin.
public enum MonotonicClock {
    /// Nanoseconds since the clock's origin.
    @inlinable @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Seconds since the clock's origin.
    @Sendable
    public static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

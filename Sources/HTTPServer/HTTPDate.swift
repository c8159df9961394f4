import Glibc

/// The `Date` field value in IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37
/// GMT`, RFC 9110 §5.6.7), recomputed at most once per second. One per
/// event loop, so no locking.
struct HTTPDateCache {
    /// The 29 bytes of the current date.
    private(set) var bytes: [UInt8] = Array(repeating: UInt8(ascii: " "), count: 29)
    private var second = -1

    init() { update() }

    /// Refreshes `bytes` if the wall-clock second has changed.
    mutating func update() {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &ts)
        guard ts.tv_sec != second else { return }
        second = ts.tv_sec
        bytes = Self.format(secondsSinceEpoch: ts.tv_sec)
    }

    /// IMF-fixdate for a Unix time.
    static func format(secondsSinceEpoch: Int) -> [UInt8] {
        var t = time_t(secondsSinceEpoch)
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var out: [UInt8] = []
        out.reserveCapacity(29)
        func two(_ n: Int32) {
            out.append(UInt8(ascii: "0") + UInt8(n / 10))
            out.append(UInt8(ascii: "0") + UInt8(n % 10))
        }
        out.append(contentsOf: days[Int(parts.tm_wday)].utf8)
        out.append(contentsOf: ", ".utf8)
        two(parts.tm_mday)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: months[Int(parts.tm_mon)].utf8)
        out.append(UInt8(ascii: " "))
        let year = parts.tm_year + 1900
        two(year / 100)
        two(year % 100)
        out.append(UInt8(ascii: " "))
        two(parts.tm_hour)
        out.append(UInt8(ascii: ":"))
        two(parts.tm_min)
        out.append(UInt8(ascii: ":"))
        two(parts.tm_sec)
        out.append(contentsOf: " GMT".utf8)
        return out
    }
}

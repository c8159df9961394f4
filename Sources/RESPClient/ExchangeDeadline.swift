/// When a wait of one exchange with Redis (a pipeline's write and its
/// replies, in monotonic seconds) gives up: `timeout` after the last byte
/// moved, and never later than `timeout` past the start plus a second for
/// every ``minimumRate`` bytes moved since. A big reply that keeps flowing
/// is read to its end; a server that sends a byte just inside every
/// `timeout` (a 94-byte reply stretched over minutes) is cut off about
/// `timeout` after the start, instead of holding its caller, and every
/// caller waiting on the same scene, for as long as it likes.
struct ExchangeDeadline {
    /// The slowest flow that keeps an exchange going, in bytes a second:
    /// far below any Redis's (a 32 MiB document may take 34 s).
    static let minimumRate = Double(1 << 20)

    let start: Double
    let timeout: Double
    private var bytes = 0
    /// The time a wait now gives up at.
    private(set) var at: Double

    /// `until`: a later first deadline (a subscriber waiting between messages).
    init(start: Double, timeout: Double, until: Double? = nil) {
        self.start = start
        self.timeout = timeout
        self.at = max(start + timeout, until ?? 0)
    }

    /// `n` bytes moved at `now`.
    mutating func moved(_ n: Int, now: Double) {
        bytes += n
        at = max(at, min(now + timeout, start + timeout + Double(bytes) / ExchangeDeadline.minimumRate))
    }
}

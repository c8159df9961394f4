import Glibc

/// The standard `process_*` metrics of the Prometheus client libraries,
/// read from `/proc/self` at each scrape (Linux only; on a system without
/// `/proc` the families that cannot be read are left out).
///
/// `process_cpu_seconds_total` (user + system), `process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`,
/// `process_start_time_seconds` (Unix time) and `process_threads`.
public struct ProcessMetrics: MetricsCollector {
    public init() {}

    public func collect() -> [MetricFamily] {
        var families: [MetricFamily] = []
        let ticks = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
        let page = Double(max(1, sysconf(Int32(_SC_PAGESIZE))))
        if let stat = ProcessMetrics.readFile("/proc/self/stat"), let fields = ProcessMetrics.statFields(stat) {
            // Fields counted from 3 (state), after the command in parentheses.
            func field(_ n: Int) -> Double { n - 3 < fields.count ? Double(fields[n - 3]) ?? 0 : 0 }
            families.append(
                .single(
                    "process_cpu_seconds", .counter, "Total user and system CPU time spent in seconds.", unit: "seconds",
                    (field(14) + field(15)) / ticks))
            families.append(
                .single(
                    "process_resident_memory_bytes", .gauge, "Resident memory size in bytes.", unit: "bytes", field(24) * page))
            families.append(
                .single(
                    "process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes.", unit: "bytes", field(23)))
            if let boot = ProcessMetrics.bootTime() {
                families.append(
                    .single(
                        "process_start_time_seconds", .gauge, "Start time of the process since unix epoch in seconds.",
                        unit: "seconds", boot + field(22) / ticks))
            }
            families.append(.single("process_threads", .gauge, "Number of OS threads in the process.", field(20)))
        }
        if let open = ProcessMetrics.countEntries("/proc/self/fd") {
            families.append(.single("process_open_fds", .gauge, "Number of open file descriptors.", Double(open)))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            let value = limit.rlim_cur == rlim_t.max ? Double.infinity : Double(limit.rlim_cur)
            families.append(.single("process_max_fds", .gauge, "Maximum number of open file descriptors.", value))
        }
        return families
    }

    /// The space-separated fields of `/proc/self/stat` after the command
    /// (which is in parentheses and may itself hold spaces).
    static func statFields(_ text: String) -> [Substring]? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// `btime` of `/proc/stat`: the boot time in Unix seconds.
    static func bootTime() -> Double? {
        guard let stat = readFile("/proc/stat") else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6))
        }
        return nil
    }

    /// A small file's contents (at most 64 KiB), or nil.
    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Entries of a directory other than `.` and `..`, or nil.
    static func countEntries(_ path: String) -> Int? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return count
    }
}

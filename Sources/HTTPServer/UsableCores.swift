import CEpoll
import Glibc

/// How many cores this process may run on at once: the default number of
/// event loops.
///
/// The least of the online cores, the cores in the process's CPU affinity
/// mask (`taskset`, `docker --cpuset-cpus`, Kubernetes' static CPU
/// manager) and its cgroup's CPU quota rounded up (`docker --cpus`,
/// Kubernetes `limits.cpu`: cgroup v2 `cpu.max`, or v1
/// `cpu.cfs_quota_us` / `cpu.cfs_period_us`). A loop past these would only
/// wait for a core another loop holds, and split the connections' events
/// over more wake-ups.
enum UsableCores {
    /// The count for this process (at least 1), read once.
    static let count: Int = {
        var n = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        if let affinity = affinityCount(), affinity > 0 { n = min(n, affinity) }
        if let quota = cgroupQuota(), quota > 0 { n = min(n, quota) }
        return n
    }()

    /// The cores in this process's affinity mask, nil when it cannot be read.
    static func affinityCount() -> Int? {
        let n = Int(cepoll_affinity_count())
        return n > 0 ? n : nil
    }

    /// Restricts the calling thread to CPU 0; true on success (for tests of
    /// ``affinityCount()``).
    static func pinCallingThreadToFirstCPU() -> Bool { cepoll_pin_to_first_cpu() == 0 }

    /// The cgroup CPU quota in whole cores (rounded up), nil without one.
    static func cgroupQuota() -> Int? {
        // cgroup v2: the process's own group and every group above it (the least quota holds).
        var least: Int?
        for dir in cgroupDirectories(readSmallFile("/proc/self/cgroup", limit: 4095) ?? "") {
            if let text = readSmallFile(dir + "/cpu.max"), let q = quota(cpuMax: text) { least = min(least ?? q, q) }
        }
        if least != nil { return least }
        if let q = readSmallFile("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
            let p = readSmallFile("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
        {
            return quota(cfsQuota: q, period: p)
        }
        return nil
    }

    /// The cgroup v2 directories of the process (from `/proc/self/cgroup`'s
    /// `0::/path` line) up to `/sys/fs/cgroup`, innermost first; just
    /// `/sys/fs/cgroup` when there is none (a container's own namespace).
    static func cgroupDirectories(_ procSelfCgroup: String) -> [String] {
        let root = "/sys/fs/cgroup"
        guard let line = procSelfCgroup.split(separator: "\n").first(where: { $0.hasPrefix("0::/") }) else { return [root] }
        var parts = line.dropFirst(4).split(separator: "/").map(String.init)
        var dirs: [String] = []
        while !parts.isEmpty, !parts.contains("..") {
            dirs.append(root + "/" + parts.joined(separator: "/"))
            parts.removeLast()
        }
        return dirs + [root]
    }

    /// Cores from cgroup v2 `cpu.max` (`"200000 100000"`: 2; `"max 100000"`: nil).
    static func quota(cpuMax text: String) -> Int? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard parts.count >= 2, let quota = Int(parts[0]), let period = Int(parts[1]) else { return nil }
        return cores(quota: quota, period: period)
    }

    /// Cores from cgroup v1 `cpu.cfs_quota_us` (`-1`: no quota) and `cpu.cfs_period_us`.
    static func quota(cfsQuota: String, period: String) -> Int? {
        let trim: (String) -> Substring = { $0.split(whereSeparator: { $0 == " " || $0 == "\n" }).first ?? "" }
        guard let q = Int(trim(cfsQuota)), let p = Int(trim(period)) else { return nil }
        return cores(quota: q, period: p)
    }

    /// `quota / period` rounded up; nil unless both are positive.
    static func cores(quota: Int, period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return quota / period + (quota % period == 0 ? 0 : 1)
    }

    /// The first bytes (at most `limit`) of a small file such as a cgroup
    /// setting, nil when it cannot be read.
    private static func readSmallFile(_ path: String, limit: Int = 255) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, limit) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }
}

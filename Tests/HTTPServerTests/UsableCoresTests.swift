import Foundation
import Glibc
import XCTest

@testable import HTTPServer

/// The default number of event loops: online cores, bounded by the CPU
/// affinity mask and the cgroup's CPU quota.
final class UsableCoresTests: XCTestCase {
    func testCgroupV2CpuMax() {
        XCTAssertEqual(UsableCores.quota(cpuMax: "200000 100000\n"), 2)
        XCTAssertEqual(UsableCores.quota(cpuMax: "150000 100000"), 2)  // 1.5 cores: 2 loops
        XCTAssertEqual(UsableCores.quota(cpuMax: "50000 100000\n"), 1)
        XCTAssertNil(UsableCores.quota(cpuMax: "max 100000\n"))
        XCTAssertNil(UsableCores.quota(cpuMax: ""))
        XCTAssertNil(UsableCores.quota(cpuMax: "0 100000"))
    }

    func testCgroupV1Quota() {
        XCTAssertEqual(UsableCores.quota(cfsQuota: "300000\n", period: "100000\n"), 3)
        XCTAssertNil(UsableCores.quota(cfsQuota: "-1\n", period: "100000\n"))
        XCTAssertNil(UsableCores.quota(cfsQuota: "x", period: "100000"))
    }

    func testCgroupDirectoriesWalkUpToTheRoot() {
        XCTAssertEqual(
            UsableCores.cgroupDirectories("0::/system.slice/hitroute.service\n"),
            ["/sys/fs/cgroup/system.slice/hitroute.service", "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup"])
        XCTAssertEqual(UsableCores.cgroupDirectories("0::/\n"), ["/sys/fs/cgroup"])
        XCTAssertEqual(UsableCores.cgroupDirectories("12:cpu,cpuacct:/docker/abc\n"), ["/sys/fs/cgroup"])  // v1 only
        XCTAssertEqual(UsableCores.cgroupDirectories("0::/a/../b\n"), ["/sys/fs/cgroup"])
    }

    func testAffinityMaskBoundsTheCount() throws {
        let online = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let all = try XCTUnwrap(UsableCores.affinityCount())
        XCTAssertGreaterThanOrEqual(all, 1)
        XCTAssertLessThanOrEqual(all, online)
        XCTAssertGreaterThanOrEqual(ServerConfiguration.usableCores, 1)
        XCTAssertLessThanOrEqual(ServerConfiguration.usableCores, all)
        // A thread pinned to one core counts one (sched_getaffinity reads the calling thread's mask).
        nonisolated(unsafe) var pinned: Int?
        let done = DispatchSemaphore(value: 0)
        Thread {
            if UsableCores.pinCallingThreadToFirstCPU() { pinned = UsableCores.affinityCount() }
            done.signal()
        }.start()
        done.wait()
        XCTAssertEqual(pinned, 1)
    }
}

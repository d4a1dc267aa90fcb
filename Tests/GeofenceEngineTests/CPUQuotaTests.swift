import Testing
@testable import GeofenceEngine

/// The cgroup CPU quota over made-up `/proc` and `/sys` trees: cgroup v1 and v2, hybrids,
/// containers whose mount root is their own cgroup, quotas on ancestors, no quota, nonsense.
@Suite("CPU quota")
struct CPUQuotaTests {
    /// A v2-only host: the process in `/system.slice/app.service`.
    static let version2Mounts = """
        24 1 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate
        25 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
        """
    /// A v1 host with a v2 hierarchy beside it (this machine's layout).
    static let hybridMounts = """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
        35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
        """

    static func cores(_ files: [String: String]) -> Int? { CPUQuota.cores { files[$0] } }

    @Test("cgroup v2: cpu.max of the cgroup and its ancestors, the smallest, rounded up")
    func version2() {
        var files = [
            "/proc/self/mountinfo": Self.version2Mounts,
            "/proc/self/cgroup": "0::/system.slice/app.service\n",
            "/sys/fs/cgroup/system.slice/app.service/cpu.max": "max 100000\n",
        ]
        #expect(Self.cores(files) == nil, "no limit")
        files["/sys/fs/cgroup/system.slice/app.service/cpu.max"] = "150000 100000\n"
        #expect(Self.cores(files) == 2, "1.5 CPUs need 2 threads")
        files["/sys/fs/cgroup/system.slice/cpu.max"] = "50000 100000\n"
        #expect(Self.cores(files) == 1, "a parent's half CPU wins")
        files["/sys/fs/cgroup/system.slice/cpu.max"] = "400000 100000\n"
        #expect(Self.cores(files) == 2, "the child's smaller limit wins")
        files["/sys/fs/cgroup/cpu.max"] = "100000 100000\n"
        #expect(Self.cores(files) == 1, "the root's limit counts too")
        // A period other than 100 ms.
        #expect(Self.cores(["/proc/self/mountinfo": Self.version2Mounts, "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cpu.max": "300000 50000"]) == 6)
    }

    @Test("cgroup v1: cpu.cfs_quota_us over cpu.cfs_period_us, where the cpu controller is mounted")
    func version1() {
        let groups = "12:memory:/a\n4:cpu,cpuacct:/docker/abc\n0::/\n"
        var files = [
            "/proc/self/mountinfo": Self.hybridMounts, "/proc/self/cgroup": groups,
            "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "-1\n",
            "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
        ]
        #expect(Self.cores(files) == nil, "-1: no limit")
        files["/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us"] = "300000\n"
        #expect(Self.cores(files) == 3)
        // The v2 hierarchy beside it limits too; the smaller wins.
        files["/sys/fs/cgroup/unified/cpu.max"] = "200000 100000"
        #expect(Self.cores(files) == 2)
        // A quota without its period is not read.
        files["/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us"] = nil
        files["/sys/fs/cgroup/unified/cpu.max"] = nil
        #expect(Self.cores(files) == nil)
    }

    @Test("a container whose mount root is its own cgroup, and a cgroup outside the mount")
    func containerRoot() {
        // Inside a container without a cgroup namespace: the mount's root is the container's
        // cgroup, mounted at /sys/fs/cgroup/cpu; its files are at the mount point.
        let mounts = "50 40 0:29 /docker/abc /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpu\n"
        var files = [
            "/proc/self/mountinfo": mounts, "/proc/self/cgroup": "3:cpu:/docker/abc\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "100000", "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000",
        ]
        #expect(Self.cores(files) == 1)
        files["/proc/self/cgroup"] = "3:cpu:/docker/abc/inner\n"
        files["/sys/fs/cgroup/cpu/inner/cpu.cfs_quota_us"] = "250000"
        files["/sys/fs/cgroup/cpu/inner/cpu.cfs_period_us"] = "100000"
        #expect(Self.cores(files) == 1, "the mount root's limit is the ancestor's")
        files["/proc/self/cgroup"] = "3:cpu:/elsewhere\n"
        #expect(Self.cores(files) == nil, "a cgroup outside the mount is not read")
        #expect(CPUQuota.folder(of: "/docker/abcd", mountRoot: "/docker/abc", mountPoint: "/m") == nil)
        #expect(CPUQuota.folder(of: "/a/b", mountRoot: "/", mountPoint: "/m/") == "/m/a/b")
    }

    @Test("no files, no cgroup line, nonsense and escaped mount points give no quota or the right one")
    func nonsense() {
        #expect(Self.cores([:]) == nil)
        #expect(Self.cores(["/proc/self/mountinfo": Self.version2Mounts, "/proc/self/cgroup": "1:name=systemd:/\n"]) == nil)
        for text in ["", "max", "abc 100000", "0 100000", "-5 100000", "100000 0", "nan 100000", "inf 100000", "100000 abc"] {
            let files = ["/proc/self/mountinfo": Self.version2Mounts, "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cpu.max": text]
            #expect(Self.cores(files) == nil, "cpu.max \"\(text)\"")
        }
        #expect(CPUQuota.mounts("garbage\n1 2 3\n- - -\n").isEmpty)
        // Quotas too large for any machine are capped, not trapped on.
        for text in ["1e30 100000", "9223372036854775807 1", "1e308 1e-300"] {
            let files = ["/proc/self/mountinfo": Self.version2Mounts, "/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/cpu.max": text]
            #expect(Self.cores(files) == CPUQuota.mostCores, "cpu.max \"\(text)\"")
        }
        // A cgroup outside the namespace's root, or removed, names no folder.
        for path in ["/../other", "/a/../../b", "/gone (deleted)"] {
            let files = [
                "/proc/self/mountinfo": Self.version2Mounts, "/proc/self/cgroup": "0::\(path)\n",
                "/sys/fs/cgroup/cpu.max": "100000 100000", "/sys/fs/other/cpu.max": "100000 100000",
            ]
            #expect(Self.cores(files) == nil, "cgroup \(path)")
        }
        let spaced = "60 1 0:40 / /mnt/my\\040groups rw - cgroup2 none rw\n"
        #expect(CPUQuota.mounts(spaced) == [CPUQuota.Mount(version2: true, root: "/", point: "/mnt/my groups")])
        let files = ["/proc/self/mountinfo": spaced, "/proc/self/cgroup": "0::/x\n", "/mnt/my groups/x/cpu.max": "100000 100000"]
        #expect(Self.cores(files) == 1)
        // A v1 hierarchy without the cpu controller is not read.
        #expect(CPUQuota.mounts("35 31 0:32 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n").isEmpty)
    }

    @Test("this machine: the quota, when there is one, bounds the core count")
    func thisMachine() {
        let quota = CPUQuota.cores { Platform.smallTextFile($0) }
        #expect(Platform.coreCount >= 1)
        if let quota { #expect(Platform.coreCount <= quota) }
    }
}

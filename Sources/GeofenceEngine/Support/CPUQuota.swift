/// The CPUs a Linux cgroup CPU quota lets this process use: a container started with
/// `--cpus=2` (Docker, Kubernetes' CPU limit, systemd's `CPUQuota=`) on a 64-core host may run
/// 64 threads, but only for 2 CPUs' worth of time each period; more threads than that are
/// throttled together, and a spinning wait (``WorkerPool``) burns the quota for nothing.
///
/// Read as the JVM's container support and Go's runtime read it: the mounts from
/// `/proc/self/mountinfo`, the process's cgroups from `/proc/self/cgroup`, then the quota of
/// its cgroup and of every ancestor up to the mount's root, the smallest winning:
/// - cgroup v2: `cpu.max`, `"max 100000"` (no limit) or `"<quota> <period>"` in µs;
/// - cgroup v1: `cpu.cfs_quota_us` (`-1`: no limit) over `cpu.cfs_period_us`.
///
/// A quota of q CPUs gives ⌈q⌉ cores (a half CPU still needs a thread). Pure: the files come
/// through `read`, so tests give a made-up tree (``Platform`` reads the real one).
package enum CPUQuota {
    /// The cores the quotas allow (at least 1), nil when no quota applies or the files cannot
    /// be read or parsed. `read(path)` returns a file's text, nil when it cannot.
    /// - Complexity: O(d) file reads for a cgroup d levels deep.
    package static func cores(read: (String) -> String?) -> Int? {
        guard let mounts = read("/proc/self/mountinfo"), let groups = read("/proc/self/cgroup") else { return nil }
        var best: Double?
        for mount in Self.mounts(mounts) {
            guard let path = Self.path(in: groups, version2: mount.version2),
                let folder = Self.folder(of: path, mountRoot: mount.root, mountPoint: mount.point)
            else { continue }
            // The cgroup's folder and its ancestors, up to the mount point (`folder` starts
            // with it; each step drops the last path component).
            var current = Substring(folder)
            while current.count >= mount.point.count {
                if let cpus = mount.version2 ? version2(String(current), read) : version1(String(current), read) {
                    best = Swift.min(best ?? cpus, cpus)
                }
                guard let slash = current.lastIndex(of: "/") else { break }
                current = current[..<slash]
            }
        }
        // Capped before the conversion: no quota file holds more CPUs, and a made-up one must not trap.
        return best.map { Swift.max(1, Int(Swift.min($0.rounded(.up), Double(Self.mostCores)))) }
    }

    /// The most cores a quota gives (more than any machine has).
    static let mostCores = 1 << 20

    /// A cgroup file system mounted: v2, or v1 with the `cpu` controller.
    struct Mount: Equatable {
        var version2: Bool
        /// The cgroup path at the mount's root (not "/" inside some containers), and where it
        /// is mounted.
        var root: String
        var point: String
    }

    /// The cgroup mounts of a `mountinfo` text: `id parent major:minor root point options
    /// [optional fields] - type source super-options`.
    static func mounts(_ text: String) -> [Mount] {
        var found: [Mount] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let dash = fields.firstIndex(of: "-"), dash >= 5, dash + 1 < fields.count else { continue }
            let type = fields[dash + 1]
            let options = dash + 3 < fields.count ? fields[dash + 3].split(separator: ",") : []
            let version2 = type == "cgroup2"
            guard version2 || (type == "cgroup" && options.contains("cpu")) else { continue }
            found.append(Mount(version2: version2, root: unescaped(fields[3]), point: unescaped(fields[4])))
        }
        return found
    }

    /// The process's cgroup path in `/proc/self/cgroup` (`id:controllers:path`): the v2 line
    /// (`0::path`), or the v1 line whose controllers include `cpu`.
    static func path(in text: String, version2: Bool) -> String? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            // A cgroup outside this process's namespace (`/../x`) or removed (` (deleted)`)
            // names no folder under the mount.
            guard parts.count == 3, !parts[2].contains("/.."), !parts[2].hasSuffix(" (deleted)") else { continue }
            let controllers = parts[1].split(separator: ",")
            if version2 ? (parts[0] == "0" && parts[1].isEmpty) : controllers.contains("cpu") { return String(parts[2]) }
        }
        return nil
    }

    /// Where a cgroup's files are: the mount point, then the cgroup's path below the mount's
    /// root (nil when the cgroup lies outside what is mounted).
    static func folder(of path: String, mountRoot root: String, mountPoint point: String) -> String? {
        let below: Substring
        if root == "/" {
            below = Substring(path)
        } else if path == root {
            below = ""
        } else if path.hasPrefix(root + "/") {
            below = path.dropFirst(root.count)
        } else {
            return nil
        }
        let trimmed = below.drop { $0 == "/" }
        return trimmed.isEmpty ? point : (point.hasSuffix("/") ? point : point + "/") + trimmed
    }

    /// CPUs of a v2 `cpu.max` (nil for `max`, a missing file or nonsense).
    static func version2(_ folder: String, _ read: (String) -> String?) -> Double? {
        guard let text = read(folder + "/cpu.max") else { return nil }
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard let first = parts.first, let quota = Double(first) else { return nil }
        let period = parts.count >= 2 ? Double(parts[1]) ?? 0 : 100_000
        return cpus(quota: quota, period: period)
    }

    /// CPUs of a v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us` (nil for `-1`, a missing file
    /// or nonsense).
    static func version1(_ folder: String, _ read: (String) -> String?) -> Double? {
        guard let q = read(folder + "/cpu.cfs_quota_us")?.split(whereSeparator: \.isWhitespace).first,
            let p = read(folder + "/cpu.cfs_period_us")?.split(whereSeparator: \.isWhitespace).first,
            let quota = Double(q), let period = Double(p)
        else { return nil }
        return cpus(quota: quota, period: period)
    }

    private static func cpus(quota: Double, period: Double) -> Double? {
        guard quota > 0, period > 0, quota.isFinite, period.isFinite else { return nil }
        return quota / period
    }

    /// A `mountinfo` path with its octal escapes (`\040` for a space) decoded.
    static func unescaped(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count,
                let value = UInt8(String(decoding: utf8[(i + 1)...(i + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

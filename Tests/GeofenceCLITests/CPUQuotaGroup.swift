import Foundation
@testable import GeofenceEngine

/// A cgroup made for one test, with a CPU quota, where the machine lets this user make one
/// (root, a writable v1 `cpu` hierarchy or a v2 one with the `cpu` controller on); removed by
/// ``remove()`` once the processes put in it have ended.
struct CPUQuotaGroup {
    /// The group's folder, and the file a process writes its id to to join it.
    let folder: String
    var procs: String { folder + "/cgroup.procs" }

    /// A group with a quota of `cpus` CPUs, nil when none can be made here.
    init?(cpus: Int) {
        guard let text = Platform.smallTextFile("/proc/self/mountinfo"),
            let groups = Platform.smallTextFile("/proc/self/cgroup")
        else { return nil }
        let files = FileManager.default
        let name = "geofence-test-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        for mount in CPUQuota.mounts(text) {
            // Made as a child of this process's own group: its quota applies to the process
            // put in it alone. Where that cannot be (on v2 a group holding processes cannot
            // give its children the cpu controller; on v1 a parent's lower quota refuses the
            // write), the folder is removed and the next mount tried, and the test is skipped.
            guard let path = CPUQuota.path(in: groups, version2: mount.version2),
                let own = CPUQuota.folder(of: path, mountRoot: mount.root, mountPoint: mount.point)
            else { continue }
            let folder = own + "/" + name
            guard (try? files.createDirectory(atPath: folder, withIntermediateDirectories: false)) != nil else { continue }
            let written: Bool
            if mount.version2 {
                written = (try? "\(cpus * 100_000) 100000".write(toFile: folder + "/cpu.max", atomically: false, encoding: .utf8)) != nil
            } else {
                written = (try? "100000".write(toFile: folder + "/cpu.cfs_period_us", atomically: false, encoding: .utf8)) != nil
                    && (try? "\(cpus * 100_000)".write(toFile: folder + "/cpu.cfs_quota_us", atomically: false, encoding: .utf8)) != nil
            }
            if written {
                self.folder = folder
                return
            }
            _ = rmdir(folder)
        }
        return nil
    }

    /// Whether a group can be made here (one is made and removed to find out).
    static let available: Bool = {
        guard let group = CPUQuotaGroup(cpus: 1) else { return false }
        return group.remove()
    }()

    /// Removes the group (it must be empty: its processes ended); false when it stays.
    @discardableResult
    func remove() -> Bool { rmdir(folder) == 0 }
}

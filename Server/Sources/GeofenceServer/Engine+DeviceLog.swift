/// The device log's bound: compaction by sweeping, a share with each commit.
///
/// Each write set's devices go to the database as one appended `device_log` row (a request's
/// thousand devices are one sequential write). The log grows with every fix, so once it holds
/// more than `--device-log-bytes` and more than ``Engine/logBytesPerDevice`` a device, a sweep
/// starts at the next row's number S: each later write set also carries the current state of
/// a share of the devices held when it started, copied as they are encoded (no decoding), until
/// all of them are written again. Every device then has a row at or after S, so the set that
/// ends the sweep marks the rows before S superseded (a restart skips them; the store deletes
/// them a few a commit), with an earlier version's checkpoint blob and rows and the fence sets
/// before the one in force. A restart reads the log in order, the latest row of a device
/// winning, so what it restores is the same at every moment of a sweep. A fence update starts
/// a sweep too: its commit writes no device (`Store+FenceVersions.swift`).
///
/// Why not a checkpoint blob of every device instead: the blob holds the writer while it is
/// encoded and committed (tens of megabytes for a million devices), every request waits
/// behind it, and the engine's devices dictionary is copied on its next change. The sweep
/// costs each commit about as much again as its own devices.
extension Engine {
    /// A sweep under way: the ids held when it started, and how far it got.
    struct LogSweep: Sendable {
        /// The first log row of the sweep: rows before it are dropped when it ends.
        var start: Int64
        var ids: [String]
        var next = 0
    }

    /// A sweep starts once the log holds this many bytes a device: about six entries a device
    /// (one is 60 to 100 bytes). A sweep writes every device again, so the smaller this, the
    /// more each fix costs: at 64 bytes sweeps ran back to back and took a third of the
    /// batched ingest's throughput (350k against 220k fixes/s on 100,000 devices).
    static let logBytesPerDevice = 512

    /// Most of the fewest devices a write set carries for a sweep: a sweep beside small
    /// requests (single fixes) ends within 64 of them, or within n / 256 for n devices.
    static let sweepShare = 256

    /// Most of the fence sets kept for a restart's replay (`Store+FenceVersions.swift`): the
    /// update that would keep one more writes every device instead.
    static let maximumFenceVersions = 4

    /// Sets `set.devices` to the stored form of `ids` (no repeats, all held), to an empty
    /// state for each of `forgotten` (the restart drops them) and, while a sweep runs, to
    /// its next share of devices; numbers the set's log row.
    /// - Complexity: O(k) for the k devices written; starting a sweep copies the ids, O(n).
    func storeDevices(_ ids: [String], forgotten: [String] = [], in set: inout Store.WriteSet) {
        storeDevices(records: ids.map { record($0, devices[$0]!) }, forgotten: forgotten, in: &set)
    }

    /// ``storeDevices(_:forgotten:in:)`` with the devices' stored forms already made.
    func storeDevices(records: [Store.Checkpoint.Entry], forgotten: [String] = [], in set: inout Store.WriteSet) {
        set.devices = records
        for id in forgotten { set.devices.append(Store.Checkpoint.Entry(id: id, state: [], events: 0)) }
        if sweep == nil && logBytes > Swift.max(deviceLogBytes, devices.count * Self.logBytesPerDevice) {
            sweep = LogSweep(start: nextLogSeq, ids: Array(devices.keys))
            logBytes = 0
        }
        if var current = sweep {
            let share = Swift.max(records.count, Swift.min(Self.sweepShare, 1 + current.ids.count / 64))
            var written = 0
            while written < share && current.next < current.ids.count {
                let id = current.ids[current.next]
                current.next += 1
                guard let entry = devices[id] else { continue }
                set.devices.append(record(id, entry))
                written += 1
            }
            if current.next == current.ids.count {
                set.dropLogBefore = current.start
                sweep = nil
                // Every device has a row on the set in force: the commit drops the earlier ones.
                fenceVersionsKept = 1
                metrics.logCompactions.increment()
            } else {
                sweep = current
            }
        }
        guard !set.devices.isEmpty else { return }
        set.logSeq = nextLogSeq
        nextLogSeq += 1
        for entry in set.devices { logBytes += entry.id.utf8.count + entry.state.count + 3 }
    }
}

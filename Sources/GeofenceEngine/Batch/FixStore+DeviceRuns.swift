extension FixStore.Writer {
    /// A writer over `scratch`, with room for `rows` rows: where a thread parses a slice before
    /// ``place(from:count:at:deviceCount:)`` moves the rows into the store.
    static func staging(in scratch: ScratchMemory, rows: Int, keepsExtras: Bool) -> FixStore.Writer {
        let coreBytes = rows * MemoryLayout<FixStore.Core>.stride
        let extraBytes = keepsExtras ? rows * MemoryLayout<FixStore.Extras>.stride : 0
        let base = scratch.reserve(coreBytes + extraBytes + rows * MemoryLayout<UInt32>.stride)
        return FixStore.Writer(
            cores: base.bindMemory(to: FixStore.Core.self, capacity: rows),
            extras: (base + coreBytes).bindMemory(to: FixStore.Extras.self, capacity: Swift.max(1, rows)),
            devices: (base + coreBytes + extraBytes).bindMemory(to: UInt32.self, capacity: rows),
            keepsExtras: keepsExtras)
    }

    /// Copies rows `0 ..< count` of `staged` (a slice just parsed, still in cache) into slots
    /// `first ..< first + count`, device by device: each device's rows consecutive, in their
    /// original order (a stable counting sort by device number, numbers below `deviceCount`).
    ///
    /// Why: a device's rows are spread over the whole file (devices interleave in time order),
    /// and evaluation gathers them one device at a time. Within each slice they now form one
    /// run, so the grouping pass writes, and the gathering reads, runs of neighbouring slots
    /// instead of one scattered slot per row. Slots keep growing with the line number within
    /// a device, which is all that the time order of equal timestamps relies on. The store is
    /// written once, as before; parsing writes to memory that stays in cache.
    /// - Complexity: O(count + deviceCount).
    func place(from staged: FixStore.Writer, count n: Int, at first: Int, deviceCount: Int) {
        guard n > 0 else { return }
        let devices = staged.devices
        // Local device numbers are given in order of first appearance, so rows that already
        // come device by device never decrease: copied as they are.
        var grouped = true
        for i in 1..<n where devices[i] < devices[i &- 1] {
            grouped = false
            break
        }
        if grouped {
            (cores + first).update(from: staged.cores, count: n)
            (self.devices + first).update(from: devices, count: n)
            if keepsExtras { (extras + first).update(from: staged.extras, count: n) }
            return
        }
        var start = [Int](repeating: 0, count: deviceCount &+ 1)
        start.withUnsafeMutableBufferPointer { start in
            for i in 0..<n { start[Int(devices[i]) &+ 1] &+= 1 }
            for d in 0..<deviceCount { start[d &+ 1] &+= start[d] }
            let cores = self.cores + first, sortedDevices = self.devices + first
            if keepsExtras {
                let extras = self.extras + first
                var cursor = Array(start[0..<deviceCount])
                for i in 0..<n {
                    let d = Int(devices[i])
                    extras[cursor[d]] = staged.extras[i]
                    cursor[d] &+= 1
                }
            }
            for i in 0..<n {
                let d = Int(devices[i])
                let k = start[d]
                cores[k] = staged.cores[i]
                sortedDevices[k] = devices[i]
                start[d] = k &+ 1
            }
        }
    }
}

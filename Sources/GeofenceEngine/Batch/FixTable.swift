/// Every accepted fix of a file, held by line slot in a ``FixStore``, then grouped by device
/// (devices in id order); time order within a device is restored when a worker gathers it
/// (``TableFixes``).
///
/// This is the path for input in any order: the whole file is held, at 28 bytes a fix in the
/// store (36 when the file has accuracy or level) plus a 4-byte slot index for the grouping,
/// plus the device ids.
struct FixTable {
    /// Accepted rows of one parsed slice and the map from its local device indices to the
    /// table's.
    struct Segment {
        var firstSlot: Int
        var count: Int
        var deviceMap: [UInt32]
    }

    let store: FixStore
    var interner = DeviceInterner()
    var rejections = BatchSummary.RejectionTally()
    var segments: [Segment] = []
    /// Data rows that belong to this process's shard (accepted + rejected).
    var rowsRead = 0
    var rows = 0
    var blankLines = 0
    var otherShardRows = 0

    /// Slots grouped by device, in file order within a device (after ``group(pool:)``).
    private(set) var order: ReservedMemory<UInt32>? = nil
    /// Devices in ascending id order (UTF-8 bytes), and where each one's rows start in `order`.
    private(set) var devices: [UInt32] = []
    private(set) var deviceStarts: [Int] = []

    init(store: FixStore) { self.store = store }

    /// Takes the slices of one block, in file order: their rows are already in the store.
    ///
    /// - Complexity: O(distinct devices per slice + rejections); rows are not touched.
    mutating func append(_ slices: [ParsedSlice]) {
        for slice in slices {
            let map = (0..<slice.interner.count).map { interner.intern(from: slice.interner, index: $0) }
            if slice.rowCount > 0 { segments.append(Segment(firstSlot: slice.firstSlot, count: slice.rowCount, deviceMap: map)) }
            slice.addRejections(to: &rejections)
            rows += slice.rowCount
            rowsRead += slice.rowCount + slice.rejectedRows
            blankLines += slice.blankLines
            otherShardRows += slice.otherShardRows
        }
    }

    /// Groups rows by device (ascending id), keeping file order within a device.
    ///
    /// A counting sort on `pool.threads` threads: each thread counts the devices of a run of
    /// segments (writing each row's device rank into the store), the counts give each thread
    /// its write positions, and each thread scatters its rows' slots. Runs are in file order,
    /// so the result is the same as one thread's.
    /// - Returns: nil, or why the rows could not be grouped (memory refused).
    /// - Complexity: O(n / threads + d log d + d × threads) for n rows and d devices.
    mutating func group(pool: WorkerPool) -> String? {
        let deviceCount = interner.count
        // The ids as strings, their order and ranks, and each thread's counts and cursors.
        let need = interner.arena.count + deviceCount * (64 + 24 * pool.threads) + rows * MemoryLayout<UInt32>.stride
        if let problem = MemoryHeadroom.refusal(bytes: need, for: "grouping \(rows) fixes by device") { return problem }
        let ids = (0..<deviceCount).map { interner.id($0) }
        devices = (0..<UInt32(deviceCount)).sorted { ids[Int($0)].utf8.lexicographicallyPrecedes(ids[Int($1)].utf8) }
        var rank = [UInt32](repeating: 0, count: deviceCount)
        for (position, device) in devices.enumerated() { rank[Int(device)] = UInt32(position) }
        let runs = Self.runs(segments, parts: pool.threads)
        let shared = GroupingInput(segments: segments, rank: rank, store: store)
        let counts = DisjointSlots<[Int]>(repeating: [], count: runs.count)
        pool.run(count: runs.count) { part, _ in
            var count = [Int](repeating: 0, count: deviceCount)
            let deviceOfSlot = shared.store.devices
            shared.rank.withUnsafeBufferPointer { rank in
                for s in runs[part] {
                    let segment = shared.segments[s]
                    segment.deviceMap.withUnsafeBufferPointer { map in
                        for slot in segment.firstSlot..<segment.firstSlot + segment.count {
                            let r = rank[Int(map[Int(deviceOfSlot[slot])])]
                            deviceOfSlot[slot] = r
                            count[Int(r)] += 1
                        }
                    }
                }
            }
            counts[part] = count
        }
        // Where each run writes each device's rows: after the device's rows of earlier runs.
        var starts = [Int](repeating: 0, count: deviceCount + 1)
        for part in 0..<runs.count { for r in 0..<deviceCount { starts[r + 1] += counts[part][r] } }
        for r in 0..<deviceCount { starts[r + 1] += starts[r] }
        deviceStarts = starts
        let cursors = DisjointSlots<[Int]>(repeating: [], count: runs.count)
        var next = Array(starts.dropLast())
        for part in 0..<runs.count {
            cursors[part] = next
            for r in 0..<deviceCount { next[r] += counts[part][r] }
        }
        guard let order = ReservedMemory<UInt32>(count: rows) else {
            return "cannot reserve memory to group \(rows) fixes (\((rows * 4) >> 20) MiB): use --sorted-input or --shard"
        }
        let target = SendableSlots(order.base)
        pool.run(count: runs.count) { part, _ in
            var cursor = cursors[part]
            let rankOfSlot = shared.store.devices
            for s in runs[part] {
                let segment = shared.segments[s]
                for slot in segment.firstSlot..<segment.firstSlot + segment.count {
                    let r = Int(rankOfSlot[slot])
                    target.pointer[cursor[r]] = UInt32(slot)
                    cursor[r] += 1
                }
            }
        }
        self.order?.release()
        self.order = order
        return nil
    }

    /// Cuts the segments into up to `parts` consecutive runs of about equal rows.
    static func runs(_ segments: [Segment], parts: Int) -> [Range<Int>] {
        let total = segments.reduce(0) { $0 + $1.count }
        var runs: [Range<Int>] = []
        var start = 0, rowsSoFar = 0
        for (k, segment) in segments.enumerated() {
            rowsSoFar += segment.count
            if rowsSoFar * parts >= total * (runs.count + 1) && runs.count < parts - 1 {
                runs.append(start..<k + 1)
                start = k + 1
            }
        }
        if start < segments.count || runs.isEmpty { runs.append(start..<segments.count) }
        return runs
    }

    /// Gives the grouping memory back and drops the store's pages on `pool`'s threads (the
    /// store's mappings go with its last reference).
    func release(pool: WorkerPool) {
        order?.release()
        store.discardPages(pool: pool)
    }

    /// The id of a device index.
    func deviceID(_ device: UInt32) -> String { interner.id(Int(device)) }

    /// Bytes the fixes take: 28 or 36 per row in the store (``FixStore/bytesPerFix``), 4 per
    /// row for the grouping.
    var memoryBytes: Int { rows * (store.bytesPerFix + 4) }
}

/// What the grouping threads read.
private final class GroupingInput: @unchecked Sendable {
    let segments: [FixTable.Segment]
    let rank: [UInt32]
    let store: FixStore
    init(segments: [FixTable.Segment], rank: [UInt32], store: FixStore) {
        self.segments = segments
        self.rank = rank
        self.store = store
    }
}

/// A buffer the grouping threads write at disjoint indices.
struct SendableSlots: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt32>
    init(_ pointer: UnsafeMutablePointer<UInt32>) { self.pointer = pointer }
}

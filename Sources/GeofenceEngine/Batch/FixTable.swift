/// Every accepted fix of a file, held in columns, then grouped by device (devices in id
/// order) and put in time order within each device (stable for equal timestamps).
///
/// This is the path for input in any order: the whole file is held, at 36 bytes a fix in
/// ``FixColumns`` plus a 4-byte row index for the grouping, plus the device ids.
struct FixTable {
    var columns = FixColumns()
    var interner = DeviceInterner()
    var rejections = RejectionTally()
    /// Data rows that belong to this process's shard (accepted + rejected).
    var rowsRead = 0
    var blankLines = 0
    var otherShardRows = 0

    /// Row indices grouped by device, in time order within a device (after ``group()``).
    private(set) var order: [UInt32] = []
    /// Devices in ascending id order (UTF-8 bytes), and where each one's rows start in `order`.
    private(set) var devices: [UInt32] = []
    private(set) var deviceStarts: [Int] = []

    /// Adds the rows of parsed slices, in file order.
    mutating func append(_ slices: [ParsedSlice]) {
        for slice in slices {
            let map = (0..<slice.interner.count).map { interner.intern(from: slice.interner, index: $0) }
            for r in 0..<slice.rowCount {
                columns.append(device: map[Int(slice.device[r])], record: slice.records[r])
            }
            for rejection in slice.rejections {
                rejections.add(rejection.reason, line: slice.firstLine + Int(rejection.relativeLine), message: rejection.message)
            }
            rowsRead += slice.rowCount + slice.rejections.count
            blankLines += slice.blankLines
            otherShardRows += slice.otherShardRows
        }
    }

    /// Groups rows by device (ascending id) and sorts each device's rows by time, stably.
    ///
    /// - Complexity: O(n + d log d) for the counting sort, plus O(k log k) per device of k rows
    ///   that are not already in time order.
    mutating func group() {
        let deviceCount = interner.count
        // Devices in id order: sort indices by their bytes.
        let ids = (0..<deviceCount).map { interner.id($0) }
        devices = (0..<UInt32(deviceCount)).sorted { ids[Int($0)].utf8.lexicographicallyPrecedes(ids[Int($1)].utf8) }
        var rank = [Int](repeating: 0, count: deviceCount)
        for (position, device) in devices.enumerated() { rank[Int(device)] = position }
        // Counting sort by device rank; scattering rows in file order keeps it stable.
        var starts = [Int](repeating: 0, count: deviceCount + 1)
        for c in columns.chunks { for d in c.device { starts[rank[Int(d)] + 1] += 1 } }
        for i in 0..<deviceCount { starts[i + 1] += starts[i] }
        deviceStarts = starts
        var cursor = starts
        order = [UInt32](repeating: 0, count: columns.count)
        var row = 0
        for c in columns.chunks {
            for d in c.device {
                let r = rank[Int(d)]
                order[cursor[r]] = UInt32(row)
                cursor[r] += 1
                row += 1
            }
        }
        // Time order within each device; ties keep file order (row index breaks them).
        for k in 0..<deviceCount {
            let range = starts[k]..<starts[k + 1]
            var sorted = true
            var previous = Int64.min
            for i in range {
                let t = columns.record(Int(order[i])).timestamp
                if t < previous { sorted = false; break }
                previous = t
            }
            if sorted { continue }
            let cols = columns
            order[range].sort { a, b in
                let ta = cols.record(Int(a)).timestamp, tb = cols.record(Int(b)).timestamp
                return ta != tb ? ta < tb : a < b
            }
        }
    }

    /// The id of a device index.
    func deviceID(_ device: UInt32) -> String { interner.id(Int(device)) }
}

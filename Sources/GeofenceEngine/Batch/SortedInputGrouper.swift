/// One device's fixes held in memory (sorted-input mode).
struct BufferedDevice: Sendable {
    var id: String
    var fixes = BufferedFixes()
    /// The device's index in the carried state, -1 for none.
    var carried = -1
}

/// A device's fixes, in time order.
struct BufferedFixes: DeviceFixSource, Sendable {
    var records: [FixRecord] = []

    var count: Int { records.count }
    var isEmpty: Bool { records.isEmpty }

    func gather(into scratch: inout [FixRecord]) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: records)
    }
}

/// Cuts a stream of rows sorted by device id, then time, into whole devices, rejecting rows
/// that break the order (reason `order`) with their line numbers.
struct SortedInputGrouper {
    private var complete: [BufferedDevice] = []
    private var open: BufferedDevice? = nil
    private var openBytes: [UInt8] = []
    private var lastTimestamp = Int64.min

    /// Rows held for the device not yet known to be complete.
    var openRows: Int { open?.fixes.count ?? 0 }
    /// Bytes of the last device id (the only id this mode keeps).
    var lastDeviceBytes: Int { openBytes.count }

    /// Takes a parsed slice (the next lines of the file; its rows are in `store`, and its
    /// `relativeLine` kept).
    /// - Returns: nil, or why the device's fixes cannot be held (memory refused, checked
    ///   before each time its buffer grows: ``MemoryHeadroom``).
    mutating func add(_ slice: ParsedSlice, store: FixStore, summary: inout BatchSummary) -> String? {
        // Rejections and rows of a slice interleave by line; the tally wants ascending lines
        // per reason, which each list already has.
        slice.addRejections(to: &summary.rejections)
        summary.rowsRead += slice.rowCount + slice.rejectedRows
        summary.blankLines += slice.blankLines
        summary.otherShardRows += slice.otherShardRows
        var ids: [[UInt8]] = []
        ids.reserveCapacity(slice.interner.count)
        for k in 0..<slice.interner.count { ids.append(Array(slice.interner.id(k).utf8)) }
        let reader = store.reader
        for r in 0..<slice.rowCount {
            let record = reader.record(slice.firstSlot + r)
            let id = ids[Int(store.devices[slice.firstSlot + r])]
            let line = slice.firstLine + Int(slice.relativeLine[r])
            let t = record.timestamp
            if open != nil && id == openBytes {
                guard t >= lastTimestamp else {
                    summary.rejections.add(.order, line: line, message: "timestamp \(t) is earlier than the device's previous fix (\(lastTimestamp)); --sorted-input needs time order within a device")
                    continue
                }
            } else if open == nil || openBytes.lexicographicallyPrecedes(id) {
                if let done = open { complete.append(done) }
                open = BufferedDevice(id: String(decoding: id, as: UTF8.self))
                openBytes = id
            } else {
                summary.rejections.add(.order, line: line, message: "device \(String(decoding: id, as: UTF8.self)) comes after device \(String(decoding: openBytes, as: UTF8.self)); --sorted-input needs rows grouped by device in ascending id order")
                continue
            }
            lastTimestamp = t
            if open!.fixes.records.count == open!.fixes.records.capacity {
                // The buffer doubles: ask first (the largest device is the mode's memory bound).
                let grown = Swift.max(16, open!.fixes.records.capacity * 2)
                if let problem = MemoryHeadroom.refusal(
                    bytes: grown * MemoryLayout<FixRecord>.stride, for: "holding the fixes of device \(open!.id) (--sorted-input)")
                {
                    return problem
                }
                open!.fixes.records.reserveCapacity(grown)
            }
            open!.fixes.records.append(record)
        }
        return nil
    }

    /// The devices known to be complete (a later device has started), in order.
    mutating func takeCompleteDevices() -> [BufferedDevice] {
        defer { complete = [] }
        return complete
    }

    /// Everything left, at the end of the input.
    mutating func finish() -> [BufferedDevice] {
        if let done = open { complete.append(done) }
        open = nil
        return takeCompleteDevices()
    }
}

/// What one thread made of one slice of lines: its accepted rows (written to a ``FixStore``
/// from `firstSlot` on, device indices local to the slice's own interner), rejected rows,
/// and line counts.
struct ParsedSlice {
    struct Rejection {
        var relativeLine: Int32
        var reason: RejectionReason
        var message: String
    }

    var interner = DeviceInterner()
    /// Where the accepted rows are: slots `firstSlot ..< firstSlot + rowCount` of the store.
    var firstSlot = 0
    var rowCount = 0
    /// 0-based line of each accepted row within the slice (kept only when asked for).
    var relativeLine: [Int32] = []
    var rejections: [Rejection] = []
    /// Lines in the slice, blank ones included.
    var lineCount = 0
    var blankLines = 0
    /// Rows that belong to other shards (not read by this process).
    var otherShardRows = 0
    /// Absolute line number of the slice's first line.
    var firstLine = 0
}

/// Limits applied while parsing rows, before any state is touched.
public struct FixRowPolicy: Sendable {
    /// Rows with a larger accuracy (metres) are rejected with reason `accuracy`.
    public var maxAccuracy: Double
    public var shard: ShardSpec

    public init(maxAccuracy: Double = 1_000, shard: ShardSpec = .all) {
        self.maxAccuracy = maxAccuracy
        self.shard = shard
    }
}

extension ParsedSlice {
    /// Parses the lines of `p[start ..< end]` (whole lines; the last may lack its break),
    /// writing accepted rows to `store` from `firstSlot` on; there must be
    /// room for `(end - start) / 8 + 1` rows (the most a slice can hold). Unless `keepLines`,
    /// the rows are staged in `scratch` (the calling thread's own) and stored device by device.
    ///
    /// - Complexity: O(bytes); allocation only for new devices and rejections.
    static func parse(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, header: FixCSVHeader, policy: FixRowPolicy,
        into store: FixStore.Writer, firstSlot: Int, keepLines: Bool, scratch: ScratchMemory
    ) -> ParsedSlice {
        var slice = ParsedSlice()
        slice.firstSlot = firstSlot
        // Rows whose lines are kept go straight to the store, in line order (the streaming
        // path reads them so); the others are staged in the thread's scratch and placed
        // device by device (``FixStore/Writer/place(from:count:at:deviceCount:)``).
        let staged = !keepLines
        let target = staged ? FixStore.Writer.staging(in: scratch, rows: (end - start) / 8 + 1, keepsExtras: store.keepsExtras) : store
        let origin = staged ? 0 : firstSlot
        var slot = origin
        var row = FixCSVRow()
        var unquoted: [UInt8] = []
        // The previous accepted device: consecutive rows of one device skip hashing.
        var lastStart = 0, lastEnd = 0, lastIndex: UInt32 = 0, lastHash: UInt64 = 0
        var haveLast = false
        var shortIDs = ShortIDTable()
        // Without sharding the id's FNV-1a hash is needed only to intern a new id.
        let unsharded = policy.shard.count == 1
        var lineStart = start
        var line: Int32 = 0
        while lineStart < end {
            // The usual row: parsed in one pass that also finds the line's end, then, when it
            // is valid, stored with its id looked up by its bytes as two words.
            let simpleEnd = row.parseSimple(p, lineStart, limit: end, header: header)
            if let lineEnd = simpleEnd, unsharded, !(row.accuracy > policy.maxAccuracy),
                Coordinate(latitude: row.latitude, longitude: row.longitude).isValid,
                let key = ShortIDTable.key(p, row.deviceStart, row.deviceEnd, readable: end)
            {
                let index: UInt32
                if let known = shortIDs.index(of: key) {
                    index = known
                } else {
                    var h = FNV1a()
                    for k in row.deviceStart..<row.deviceEnd { h.add(p[k]) }
                    index = slice.interner.intern(p, row.deviceStart, row.deviceEnd, hash: h.value)
                    shortIDs.insert(key, index: index)
                }
                target.write(row, device: index, at: slot)
                slot += 1
                if keepLines { slice.relativeLine.append(line) }
                lineStart = lineEnd + 1
                line += 1
                continue
            }
            // memchr is vectorised: several times faster than a byte loop on 40-byte lines.
            let lineEnd: Int
            if let simpleEnd {
                lineEnd = simpleEnd
            } else {
                lineEnd = Platform.firstLineBreak(in: p, from: lineStart, to: end)
            }
            defer {
                lineStart = lineEnd + 1
                line += 1
            }
            if lineEnd == lineStart || (lineEnd - lineStart == 1 && p[lineStart] == 0x0D) {
                slice.blankLines += 1
                continue
            }
            let failure = simpleEnd != nil ? nil : row.parse(p, lineStart, lineEnd, header: header)
            // The device id (unquoted) and its hash decide the shard, even for bad rows.
            let idStart = row.deviceStart, idEnd = row.deviceEnd
            if failure == nil && row.deviceQuoted {
                unquoted.removeAll(keepingCapacity: true)
                var k = idStart
                while k < idEnd {
                    unquoted.append(p[k])
                    k += p[k] == UInt8(ascii: "\"") ? 2 : 1
                }
            }
            var hash: UInt64 = 0
            let sameAsLast = failure == nil && !row.deviceQuoted && haveLast && idEnd - idStart == lastEnd - lastStart
                && Platform.bytesEqual(p + idStart, p + lastStart, count: idEnd - idStart)
            if sameAsLast {
                hash = lastHash
            } else if failure == nil || (row.deviceEnd > row.deviceStart && row.deviceEnd <= lineEnd) {
                var h = FNV1a()
                if failure == nil && row.deviceQuoted {
                    for b in unquoted { h.add(b) }
                } else {
                    for k in idStart..<idEnd { h.add(p[k]) }
                }
                hash = h.value
            } else {
                hash = 0  // no device id at all: the row is attributed to shard 0
            }
            guard policy.shard.contains(hash: hash) else {
                slice.otherShardRows += 1
                continue
            }
            if let failure {
                slice.rejections.append(Rejection(relativeLine: line, reason: .parse, message: failure.reason))
                continue
            }
            let position = Coordinate(latitude: row.latitude, longitude: row.longitude)
            if !position.isValid {
                slice.rejections.append(Rejection(relativeLine: line, reason: .coordinate, message: position.invalidReason ?? ""))
                continue
            }
            if row.accuracy > policy.maxAccuracy {
                slice.rejections.append(Rejection(
                    relativeLine: line, reason: .accuracy,
                    message: "accuracy \(row.accuracy) m is worse than the maximum \(policy.maxAccuracy) m"))
                continue
            }
            let index: UInt32
            if sameAsLast {
                index = lastIndex
            } else if row.deviceQuoted {
                index = unquoted.withUnsafeBufferPointer { u in
                    slice.interner.intern(u.baseAddress ?? p, 0, u.count, hash: hash)
                }
                haveLast = false
            } else {
                index = slice.interner.intern(p, idStart, idEnd, hash: hash)
                lastStart = idStart; lastEnd = idEnd; lastIndex = index; lastHash = hash
                haveLast = true
            }
            target.write(row, device: index, at: slot)
            slot += 1
            if keepLines { slice.relativeLine.append(line) }
        }
        slice.lineCount = Int(line)
        slice.rowCount = slot - origin
        if staged { store.place(from: target, count: slice.rowCount, at: firstSlot, deviceCount: slice.interner.count) }
        return slice
    }
}


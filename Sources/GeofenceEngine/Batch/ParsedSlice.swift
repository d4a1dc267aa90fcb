/// What one thread made of one slice of lines: its accepted rows (written to a ``FixStore``
/// from `firstSlot` on, device indices local to the slice's own interner), rejected rows,
/// and line counts.
struct ParsedSlice {
    struct Rejection {
        var relativeLine: Int32
        var reason: BatchSummary.RejectionReason
        var message: String
    }

    var interner = DeviceInterner()
    /// Where the accepted rows are: slots `firstSlot ..< firstSlot + rowCount` of the store.
    var firstSlot = 0
    var rowCount = 0
    /// 0-based line of each accepted row within the slice (kept only when asked for).
    var relativeLine: [Int32] = []
    /// The first rejections of each reason (at most ``BatchSummary/RejectionTally/examplesKept``), with
    /// their messages, in line order: a file of bad rows costs counts, not a message a row.
    var rejections: [Rejection] = []
    /// Rejected rows by reason (``BatchSummary/RejectionReason/allCases`` order), examples included.
    var rejectedByReason = [Int](repeating: 0, count: BatchSummary.RejectionReason.allCases.count)
    /// Rejected rows of the slice.
    var rejectedRows = 0
    /// Lines in the slice, blank ones included.
    var lineCount = 0
    var blankLines = 0
    /// Rows that belong to other shards (not read by this process).
    var otherShardRows = 0
    /// Absolute line number of the slice's first line.
    var firstLine = 0
}

extension ParsedSlice {
    /// Counts a rejected row, keeping its message while the reason has few examples.
    mutating func reject(_ reason: BatchSummary.RejectionReason, line: Int32, message: @autoclosure () -> String) {
        let k = reason.position
        rejectedByReason[k] += 1
        rejectedRows += 1
        if rejectedByReason[k] <= BatchSummary.RejectionTally.examplesKept {
            rejections.append(Rejection(relativeLine: line, reason: reason, message: message()))
        }
    }

    /// Adds the slice's rejections to `tally` (whose rows all come before the slice's).
    func addRejections(to tally: inout BatchSummary.RejectionTally) {
        var kept = [Int](repeating: 0, count: rejectedByReason.count)
        for rejection in rejections {
            tally.add(rejection.reason, line: firstLine + Int(rejection.relativeLine), message: rejection.message)
            kept[rejection.reason.position] += 1
        }
        for (k, reason) in BatchSummary.RejectionReason.allCases.enumerated() { tally.add(reason, count: rejectedByReason[k] - kept[k]) }
    }

    /// The slice of one line too long to hold (``LineBlockReader/Chunk/overlongLine(bytes:)``):
    /// rejected with reason `lineLength`, in shard 0 (its device id was never read).
    static func overlongLine(bytes: Int, policy: FixRowPolicy, firstSlot: Int) -> ParsedSlice {
        var slice = ParsedSlice()
        slice.firstSlot = firstSlot
        slice.lineCount = 1
        if policy.shard.contains(hash: 0) {
            slice.reject(.lineLength, line: 0, message: policy.lineLengthMessage(bytes))
        } else {
            slice.otherShardRows = 1
        }
        return slice
    }
}

extension BatchSummary.RejectionReason {
    /// The reason's place in ``allCases`` (an array index for per-reason counts).
    var position: Int {
        switch self {
        case .parse: 0
        case .coordinate: 1
        case .accuracy: 2
        case .order: 3
        case .encoding: 4
        case .lineLength: 5
        }
    }
}

/// Limits applied while parsing rows, before any state is touched.
package struct FixRowPolicy: Sendable {
    /// Rows with a larger accuracy (metres) are rejected with reason `accuracy`.
    package var maxAccuracy: Double
    package var shard: ShardSpec
    /// Lines with more bytes (line break not included) are rejected with reason `lineLength`.
    package var maximumLineBytes: Int

    package init(maxAccuracy: Double = 1_000, shard: ShardSpec = .all, maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes) {
        self.maxAccuracy = maxAccuracy
        self.shard = shard
        self.maximumLineBytes = maximumLineBytes
    }

    func lineLengthMessage(_ bytes: Int) -> String {
        "line of \(bytes) bytes or more, longer than the maximum of \(maximumLineBytes) (not read; counted in shard 0)"
    }
}

extension ParsedSlice {
    /// Parses the lines of `p[start ..< end]` (whole lines; the last may lack its break).
    ///
    /// With `keepLines` the accepted rows are written to `store` from `firstSlot` on (there
    /// must be room for `(end - start) / 8 + 1` rows, the most a slice can hold). Otherwise
    /// they are staged in `scratch` (``FixStore/Writer/staging(in:rows:keepsExtras:)`` with
    /// that many rows) for the caller to place device by device once it knows where
    /// (``FixStore/Writer/place(from:count:at:deviceCount:)``); `store` then only says
    /// whether accuracy and level are kept.
    ///
    /// - Complexity: O(bytes); allocation only for new devices and rejections.
    static func parse(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, header: FixCSVHeader, policy: FixRowPolicy,
        into store: FixStore.Writer, firstSlot: Int, keepLines: Bool, scratch: ScratchMemory
    ) -> ParsedSlice {
        var slice = ParsedSlice()
        slice.firstSlot = firstSlot
        // Rows whose lines are kept go straight to the store, in line order (the streaming
        // path reads them so); the others are staged in the slice's scratch.
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
        let maximumLine = policy.maximumLineBytes
        var lineStart = start
        var line: Int32 = 0
        while lineStart < end {
            // The usual row: parsed in one pass that also finds the line's end, then, when it
            // is valid, stored with its id looked up by its bytes as two words.
            let simpleEnd = row.parseSimple(p, lineStart, limit: end, header: header)
            if let lineEnd = simpleEnd, lineEnd &- lineStart <= maximumLine, unsharded, !(row.accuracy > policy.maxAccuracy),
                Coordinate(latitude: row.latitude, longitude: row.longitude).isValid,
                let key = ShortIDTable.key(p, row.deviceStart, row.deviceEnd, readable: end)
            {
                var index = shortIDs.index(of: key)
                if index == nil {
                    var h = FNV1a()
                    for k in row.deviceStart..<row.deviceEnd { h.add(p[k]) }
                    // nil for an id that is not UTF-8: the full path below rejects the row.
                    index = slice.interner.intern(p, row.deviceStart, row.deviceEnd, hash: h.value)
                    if let index { shortIDs.insert(key, index: index) }
                }
                if let index {
                    target.write(row, device: index, at: slot)
                    slot += 1
                    if keepLines { slice.relativeLine.append(line) }
                    lineStart = lineEnd + 1
                    line += 1
                    continue
                }
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
            if lineEnd - lineStart > maximumLine {
                // Like a line the reader skipped (``overlongLine(bytes:policy:firstSlot:)``).
                if policy.shard.contains(hash: 0) {
                    slice.reject(.lineLength, line: line, message: policy.lineLengthMessage(lineEnd - lineStart))
                } else {
                    slice.otherShardRows += 1
                }
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
                slice.reject(.parse, line: line, message: failure.reason)
                continue
            }
            let position = Coordinate(latitude: row.latitude, longitude: row.longitude)
            if !position.isValid {
                slice.reject(.coordinate, line: line, message: position.invalidReason ?? "")
                continue
            }
            if row.accuracy > policy.maxAccuracy {
                slice.reject(.accuracy, line: line, message: "accuracy \(row.accuracy) m is worse than the maximum \(policy.maxAccuracy) m")
                continue
            }
            let interned: UInt32?
            if sameAsLast {
                interned = lastIndex
            } else if row.deviceQuoted {
                interned = unquoted.withUnsafeBufferPointer { u in
                    slice.interner.intern(u.baseAddress ?? p, 0, u.count, hash: hash)
                }
                haveLast = false
            } else {
                interned = slice.interner.intern(p, idStart, idEnd, hash: hash)
                if let interned {
                    lastStart = idStart; lastEnd = idEnd; lastIndex = interned; lastHash = hash
                    haveLast = true
                }
            }
            guard let index = interned else {
                let quoted = row.deviceQuoted
                slice.reject(.encoding, line: line, message: "device_id \(quoted ? unquoted.withUnsafeBufferPointer { UTF8Validation.escaped($0) } : UTF8Validation.escaped(UnsafeBufferPointer(start: p + idStart, count: idEnd - idStart))) is not valid UTF-8")
                continue
            }
            target.write(row, device: index, at: slot)
            slot += 1
            if keepLines { slice.relativeLine.append(line) }
        }
        slice.lineCount = Int(line)
        slice.rowCount = slot - origin
        return slice
    }
}


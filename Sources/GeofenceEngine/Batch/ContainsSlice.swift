import GeofenceGEOS
import GeofenceGeometry

/// One slice of a block of `geofence contains` input (see ``ContainsRun``): its rows parsed,
/// answered by the batch query, and written as NDJSON lines or CSV pairs (``ContainsFormat``).
/// Reused block after block, so its arrays keep their capacity.
final class ContainsSlice {
    // What parsing found: the accepted fixes, and for each row (non-blank line) in order the
    // index of its fix (≥ 0) or −(k + 1) for rejection k.
    private var latitudes: [Double] = []
    private var longitudes: [Double] = []
    private var levels: [Int] = []
    private var anyLevel = false
    private(set) var rows: [Int32] = []
    private var rejections: [(line: Int, reason: String, message: String)] = []
    /// Physical lines of the slice (blank ones included).
    private(set) var lineCount = 0
    private var blankLines = 0
    private var pairs = ContainmentPairs()
    /// The slice's output lines, once ``format(firstRow:firstLine:ids:as:)`` ran (reused: the
    /// next block's lines overwrite them).
    private let lines = ScratchArray<UInt8>(capacity: 1 << 16)
    /// The slice's output lines (valid until the next ``format(firstRow:firstLine:ids:as:)``).
    var output: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: lines.base, count: lines.count) }

    /// Parses the lines of `p[start ..< end]` (whole lines) and answers the accepted rows.
    ///
    /// The usual row goes through the one-pass parser; anything else (quotes, ISO-8601 times,
    /// a bad field) through the full parser, which alone writes error messages. A line longer
    /// than `maximumLineBytes` is rejected with reason `lineLength`.
    func parseAndAnswer(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, header: FixCSVHeader, evaluator: ContainmentEvaluator,
        maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes
    ) throws(GEOSError) {
        // Locals, not the stored arrays: a class's array appended to in a loop pays a dynamic
        // exclusivity check per append (measured: a quarter of the command's time).
        var parsed = Parsed(taking: self)
        defer { parsed.giveBack(to: self) }
        // Levels are kept only when the file has the column (without it every row has none).
        parsed.keepsLevels = header.level != nil
        var row = FixCSVRow()
        var i = start, lineIndex = 0
        while i < end {
            if let stop = row.parseSimple(p, i, limit: end, header: header), stop &- i <= maximumLineBytes {
                parsed.accept(row, line: lineIndex)
                i = stop &+ 1
            } else {
                let e = Platform.firstLineBreak(in: p, from: i, to: end)
                if e == i || (e == i &+ 1 && p[i] == 0x0D) {
                    parsed.blankLines &+= 1
                } else if e &- i > maximumLineBytes {
                    // A mapped file's long line is in its block; the cap holds all the same.
                    parsed.reject(
                        line: lineIndex, reason: "lineLength", "\(e &- i) bytes or more, longer than the maximum of \(maximumLineBytes)")
                } else if let failure = row.parse(p, i, e, header: header) {
                    parsed.reject(line: lineIndex, reason: "parse", failure.reason)
                } else {
                    parsed.accept(row, line: lineIndex)
                }
                i = e &+ 1
            }
            lineIndex &+= 1
        }
        parsed.lineCount = lineIndex
        // The pairs are replaced by the query (resized, not cleared: no zeroing pass).
        guard !parsed.latitudes.isEmpty else { return parsed.pairs.removeAll() }
        try evaluator.containing(
            latitudes: parsed.latitudes, longitudes: parsed.longitudes, levels: parsed.anyLevel ? parsed.levels : nil,
            into: &parsed.pairs)
    }

    /// The slice's parsed rows as a value, moved out of the slice while it is filled.
    private struct Parsed {
        var latitudes: [Double], longitudes: [Double], levels: [Int]
        var anyLevel = false, keepsLevels = true
        var rows: [Int32]
        var rejections: [(line: Int, reason: String, message: String)]
        var lineCount = 0, blankLines = 0
        var pairs: ContainmentPairs

        /// Takes the slice's arrays (emptied, capacity kept).
        init(taking slice: ContainsSlice) {
            latitudes = slice.latitudes; longitudes = slice.longitudes; levels = slice.levels
            rows = slice.rows; rejections = slice.rejections; pairs = slice.pairs
            slice.latitudes = []; slice.longitudes = []; slice.levels = []; slice.rows = []; slice.rejections = []
            slice.pairs = ContainmentPairs()
            latitudes.removeAll(keepingCapacity: true); longitudes.removeAll(keepingCapacity: true)
            levels.removeAll(keepingCapacity: true); rows.removeAll(keepingCapacity: true)
            rejections.removeAll(keepingCapacity: true)
        }

        func giveBack(to slice: ContainsSlice) {
            slice.latitudes = latitudes; slice.longitudes = longitudes; slice.levels = levels
            slice.anyLevel = anyLevel; slice.rows = rows; slice.rejections = rejections
            slice.lineCount = lineCount; slice.blankLines = blankLines; slice.pairs = pairs
        }

        /// `row` as the next row: a fix, or a coordinate rejection.
        @inline(__always)
        mutating func accept(_ row: FixCSVRow, line: Int) {
            // The plain test first: the reason is a string, made only for a bad coordinate.
            let position = Coordinate(latitude: row.latitude, longitude: row.longitude)
            if !position.isValid {
                reject(line: line, reason: "coordinate", position.invalidReason ?? "")
                return
            }
            rows.append(Int32(truncatingIfNeeded: latitudes.count))
            latitudes.append(row.latitude)
            longitudes.append(row.longitude)
            if keepsLevels {
                levels.append(row.level)
                if row.level != Int.min { anyLevel = true }
            }
        }

        mutating func reject(line: Int, reason: String, _ message: String) {
            rows.append(-Int32(truncatingIfNeeded: rejections.count) - 1)
            rejections.append((line, reason, message))
        }
    }

    /// The slice's answers: (row, fence) pairs.
    var answerCount: Int { pairs.count }

    /// Adds the slice's counts to `summary`.
    func tally(into summary: inout ContainsSummary) {
        summary.read += rows.count
        summary.answered += latitudes.count
        summary.blankLines += blankLines
        for r in rejections { summary.rejectedByReason[r.reason, default: 0] += 1 }
    }

    /// Writes the slice's lines into ``output``: for NDJSON `{"row":N,"geofenceIds":[...]}`
    /// with the ids ascending, or `{"row":N,"error":"<reason>: line L: ..."}`; for CSV the
    /// pairs (see ``ContainsFormat``). Rows are numbered from `firstRow`, physical lines from
    /// `firstLine`; `ids` are the format's (``ContainsFormat/ids(_:)``).
    func format(firstRow: Int, firstLine: Int, ids: ByteTable, as format: ContainsFormat) {
        let pairs = self.pairs, rows = self.rows, rejections = self.rejections
        func message(_ k: Int) -> String {
            let r = rejections[k]
            return "\(r.reason): line \(firstLine + r.line): \(r.message)"
        }
        pairs.fixes.withUnsafeBufferPointer { fixes in
            pairs.slots.withUnsafeBufferPointer { slots in
                switch format {
                case .ndjson: Self.write(rows: rows, firstRow: firstRow, fixes: fixes, slots: slots, ids: ids, to: lines, message: message)
                case .csv: Self.writePairs(rows: rows, firstRow: firstRow, fixes: fixes, slots: slots, ids: ids, to: lines, message: message)
                }
            }
        }
    }

    /// The NDJSON lines of `rows` (see ``format(firstRow:firstLine:ids:as:)``) in place of `out`'s
    /// elements; `message(k)` is rejection k's error text. A static function over locals: no
    /// class property is touched per row.
    ///
    /// Each answered line is written through a pointer into room made for all of it at once
    /// (an array appended to piece by piece paid a uniqueness and a capacity check per piece:
    /// formatting was an eighth of the whole command at 10k fences). A rejected row's line
    /// is ``ContainsFormat/rejectedRow(_:_:)``'s (its message escaped by ``JSONWriter``).
    /// - Complexity: O(rows + the bytes of their ids).
    static func write(
        rows: [Int32], firstRow: Int, fixes: UnsafeBufferPointer<Int32>, slots: UnsafeBufferPointer<Int32>, ids: ByteTable,
        to out: ScratchArray<UInt8>, message: (Int) -> String
    ) {
        let rowHead: StaticString = #"{"row":"#, idsHead: StaticString = #","geofenceIds":["#, idsTail: StaticString = "]}\n"
        let fixed = rowHead.utf8CodeUnitCount + DecimalText.maximumBytes + idsHead.utf8CodeUnitCount + idsTail.utf8CodeUnitCount
        let idBytes = ids.bytes.pointer, idEnds = ids.offsets.pointer
        out.count = 0
        var next = 0  // the next pair: pairs are in fix order
        for (k, entry) in rows.enumerated() {
            guard entry >= 0 else {
                let line = ContainsFormat.ndjson.rejectedRow(firstRow &+ k, message(Int(-entry - 1)))
                line.withUnsafeBufferPointer { out.append($0.baseAddress!, count: $0.count) }
                continue
            }
            // The row's pairs, and room for its line: each id and a comma.
            var end = next, idTotal = 0
            while end < fixes.count && fixes[end] == entry {
                let slot = Int(slots[end])
                idTotal &+= Int(truncatingIfNeeded: idEnds[slot + 1] &- idEnds[slot]) &+ 1
                end &+= 1
            }
            out.reserve(out.count &+ fixed &+ idTotal)
            var p = out.base + out.count
            p = Self.put(rowHead, at: p)
            p = DecimalText.put(UInt64(firstRow &+ k), at: p)
            p = Self.put(idsHead, at: p)
            for pair in next..<end {
                let slot = Int(slots[pair])
                let from = Int(truncatingIfNeeded: idEnds[slot]), to = Int(truncatingIfNeeded: idEnds[slot + 1])
                if pair != next { p.pointee = UInt8(ascii: ","); p += 1 }
                p.update(from: idBytes + from, count: to &- from)
                p += to &- from
            }
            p = Self.put(idsTail, at: p)
            out.count = p - out.base
            next = end
        }
    }

    @inline(__always)
    static func put(_ s: StaticString, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        return p + s.utf8CodeUnitCount
    }
}

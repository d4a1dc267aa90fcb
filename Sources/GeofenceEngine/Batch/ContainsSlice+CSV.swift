extension ContainsSlice {
    /// The CSV pairs of `rows` (see ``ContainsFormat``) in place of `out`'s elements: a line
    /// `N,<id>,` for each fence of row N, in the pairs' order (ids ascending within a row),
    /// none for a row without fences, and `N,,<message>` for a rejected row, `message(k)`
    /// being rejection k's text. `ids` are CSV fields already (quoted where they must be).
    ///
    /// Each pair's line is written through a pointer into room made for it (as the NDJSON
    /// lines are: an array appended to piece by piece pays a check per piece); a rejected
    /// row's line is ``ContainsFormat/rejectedRow(_:_:)``'s.
    /// - Complexity: O(rows + pairs + the bytes of their ids).
    static func writePairs(
        rows: [Int32], firstRow: Int, fixes: UnsafeBufferPointer<Int32>, slots: UnsafeBufferPointer<Int32>, ids: ByteTable,
        to out: ScratchArray<UInt8>, message: (Int) -> String
    ) {
        let idBytes = ids.bytes.pointer, idEnds = ids.offsets.pointer
        let tail: StaticString = ",\n"
        out.count = 0
        var next = 0  // the next pair: pairs are in fix order
        for (k, entry) in rows.enumerated() {
            let row = UInt64(firstRow &+ k)
            guard entry >= 0 else {
                let line = ContainsFormat.csv.rejectedRow(firstRow &+ k, message(Int(-entry - 1)))
                line.withUnsafeBufferPointer { out.append($0.baseAddress!, count: $0.count) }
                continue
            }
            while next < fixes.count && fixes[next] == entry {
                let slot = Int(slots[next])
                let from = Int(truncatingIfNeeded: idEnds[slot]), to = Int(truncatingIfNeeded: idEnds[slot + 1])
                out.reserve(out.count &+ DecimalText.maximumBytes &+ 1 &+ (to &- from) &+ tail.utf8CodeUnitCount)
                var p = out.base + out.count
                p = DecimalText.put(row, at: p)
                p.pointee = UInt8(ascii: ","); p += 1
                p.update(from: idBytes + from, count: to &- from)
                p += to &- from
                p = put(tail, at: p)
                out.count = p - out.base
                next &+= 1
            }
        }
    }
}

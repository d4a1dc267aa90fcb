/// One record of a list of ``FenceRecords`` chunks: chunk number and index within it.
struct RecordReference: Hashable, Sendable {
    var chunk: Int32
    var index: Int32
}

/// Sorting records by id (UTF-8 byte order, the slot order of a ``FenceSet``).
enum FenceIDOrder {
    /// One record in id order.
    struct Entry: Sendable {
        /// The id's first 8 bytes, big-endian, zero-padded: comparing these compares most ids.
        var prefix: UInt64
        var reference: RecordReference
    }

    /// Every record of the chunks, by id, then by input order (chunks in order, then index):
    /// records with equal ids end up next to each other, the first one read first.
    /// - Complexity: O(n log n) comparisons, each O(1) unless two ids share 8 bytes.
    static func sorted(_ chunks: [FenceRecords]) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
        for (c, chunk) in chunks.enumerated() {
            chunk.ids.bytes.withUnsafeBufferPointer { blob in
                for i in 0..<chunk.count {
                    let from = Int(chunk.ids.offsets[i]), to = Int(chunk.ids.offsets[i + 1])
                    var prefix: UInt64 = 0
                    for k in 0..<8 { prefix = prefix << 8 | UInt64(from + k < to ? blob[from + k] : 0) }
                    entries.append(Entry(prefix: prefix, reference: RecordReference(chunk: Int32(c), index: Int32(i))))
                }
            }
        }
        entries.sort { a, b in precedes(a, b, chunks) }
        return entries
    }

    /// Id order, then input order.
    @inline(__always)
    static func precedes(_ a: Entry, _ b: Entry, _ chunks: [FenceRecords]) -> Bool {
        if a.prefix != b.prefix { return a.prefix < b.prefix }
        let order = compare(a.reference, b.reference, chunks)
        if order != 0 { return order < 0 }
        return (a.reference.chunk, a.reference.index) < (b.reference.chunk, b.reference.index)
    }

    /// Negative, zero or positive as the id of `a` sorts before, equal to, or after `b`'s.
    static func compare(_ a: RecordReference, _ b: RecordReference, _ chunks: [FenceRecords]) -> Int {
        let x = chunks[Int(a.chunk)].ids.slice(Int(a.index)), y = chunks[Int(b.chunk)].ids.slice(Int(b.index))
        if x.elementsEqual(y) { return 0 }
        return x.lexicographicallyPrecedes(y) ? -1 : 1
    }
}

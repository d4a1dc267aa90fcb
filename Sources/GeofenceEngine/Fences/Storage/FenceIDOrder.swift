/// One record of a list of ``FenceRecords`` chunks: chunk number and index within it.
struct RecordReference: Hashable, Sendable {
    var chunk: Int32
    var index: Int32
}

/// Sorting fences by id (UTF-8 byte order, the slot order of a ``FenceSet``) and finding
/// duplicate ids.
enum FenceIDOrder {
    /// One id in id order.
    struct Entry: Sendable {
        /// The id's first 8 bytes, big-endian, zero-padded: comparing these compares most ids.
        var prefix: UInt64
        var reference: RecordReference
        var featureIndex: Int
    }

    /// Every id of the lists, by id, then by feature index: equal ids end up next to each
    /// other, the first one in the file first.
    /// - Complexity: O(n log n) comparisons, each O(1) unless two ids share 8 bytes.
    static func sorted(_ lists: [(ids: ByteTableBuilder, featureIndexes: [Int])]) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(lists.reduce(0) { $0 + $1.featureIndexes.count })
        for (c, list) in lists.enumerated() {
            list.ids.bytes.withUnsafeBufferPointer { blob in
                for i in list.featureIndexes.indices {
                    let from = Int(list.ids.offsets[i]), to = Int(list.ids.offsets[i + 1])
                    var prefix: UInt64 = 0
                    for k in 0..<8 { prefix = prefix << 8 | UInt64(from + k < to ? blob[from + k] : 0) }
                    entries.append(Entry(
                        prefix: prefix, reference: RecordReference(chunk: Int32(c), index: Int32(i)),
                        featureIndex: list.featureIndexes[i]))
                }
            }
        }
        entries.sort { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            let order = compare(a.reference, b.reference, lists)
            return order != 0 ? order < 0 : a.featureIndex < b.featureIndex
        }
        return entries
    }

    /// Negative, zero or positive as the id of `a` sorts before, equal to, or after `b`'s.
    static func compare(_ a: RecordReference, _ b: RecordReference, _ lists: [(ids: ByteTableBuilder, featureIndexes: [Int])]) -> Int {
        let x = lists[Int(a.chunk)].ids.slice(Int(a.index)), y = lists[Int(b.chunk)].ids.slice(Int(b.index))
        if x.elementsEqual(y) { return 0 }
        return x.lexicographicallyPrecedes(y) ? -1 : 1
    }

    /// The slots of the records (the first `recordLists` lists) in id order, and a problem
    /// for every id used before: the feature is named, with the first feature that used it
    /// (semantics §1). Lists after the records hold ids that count for the check only.
    static func resolve(_ lists: [(ids: ByteTableBuilder, featureIndexes: [Int])], recordLists: Int) -> (slots: [RecordReference], duplicates: [FenceValidationError.Problem]) {
        var slots: [RecordReference] = [], duplicates: [FenceValidationError.Problem] = []
        let entries = sorted(lists)
        slots.reserveCapacity(entries.count)
        var first = 0
        for (k, entry) in entries.enumerated() {
            if k > 0, entries[k - 1].prefix == entry.prefix, compare(entries[first].reference, entry.reference, lists) == 0 {
                let id = lists[Int(entry.reference.chunk)].ids.slice(Int(entry.reference.index))
                let text = String(decoding: id, as: UTF8.self)
                duplicates.append(FenceValidationError.Problem(
                    featureIndex: entry.featureIndex, id: text,
                    reason: "duplicate id \(JSONWriter.quoted(text)) (also used by feature \(entries[first].featureIndex))"))
                continue
            }
            first = k
            if Int(entry.reference.chunk) < recordLists { slots.append(entry.reference) }
        }
        return (slots, duplicates)
    }
}

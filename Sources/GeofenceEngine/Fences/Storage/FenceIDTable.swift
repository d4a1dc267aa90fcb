/// Id → slot: a flat open-addressing hash table over the set's id blob.
///
/// `entries` has a power-of-two size at least twice the fence count; entry `e` holds
/// `slot + 1`, or 0 when empty. An id's home entry is its 64-bit FNV-1a hash (the same hash
/// `--shard` uses) masked to the table size; collisions probe the next entries in turn. The
/// table is stored in compiled fence files, so opening one needs no hashing.
struct FenceIDTable: Sendable {
    let entries: FrozenBuffer<UInt32>

    /// Builds the table for the ids of a set.
    /// - Complexity: O(n) expected.
    init(ids: ByteTable) {
        let n = ids.count
        var size = 16
        while size < 2 * n { size *= 2 }
        let mask = size - 1
        entries = FrozenBuffer(count: size) { table in
            table.initialize(repeating: 0)
            for slot in 0..<n {
                var e = Int(truncatingIfNeeded: Self.hash(UnsafeRawBufferPointer(ids[slot]))) & mask
                while table[e] != 0 { e = (e + 1) & mask }
                table[e] = UInt32(slot + 1)
            }
        }
    }

    /// A table read from a compiled file (checked by the reader: power-of-two size, entries ≤ n).
    init(entries: FrozenBuffer<UInt32>) { self.entries = entries }

    /// 64-bit FNV-1a of the bytes.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h = FNV1a()
        for b in bytes { h.add(b) }
        return h.value
    }

    /// The slot whose id has exactly these bytes, or nil.
    /// - Complexity: O(1) expected.
    func slot(of id: UnsafeRawBufferPointer, ids: ByteTable) -> Int? {
        let mask = entries.count - 1
        var e = Int(truncatingIfNeeded: Self.hash(id)) & mask
        // At most `entries.count` probes, even in a table without an empty entry.
        for _ in 0..<entries.count {
            let entry = entries[e]
            if entry == 0 { return nil }
            let slot = Int(entry) - 1
            let candidate = ids[slot]
            if candidate.count == id.count,
                candidate.count == 0 || Platform.bytesEqual(candidate.baseAddress!, id.baseAddress!, count: id.count)
            {
                return slot
            }
            e = (e + 1) & mask
        }
        return nil
    }

    var memoryBytes: Int { entries.count * 4 }
}

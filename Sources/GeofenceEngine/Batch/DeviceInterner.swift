/// Dense integer indices for device ids, looked up straight from CSV bytes.
///
/// Ids live once in a byte arena; an open-addressing table maps FNV-1a hashes to indices.
/// Looking up an id that is already known allocates nothing.
struct DeviceInterner {
    private(set) var arena: [UInt8] = []
    /// Start of each id in the arena; `offsets[i + 1]` is its end.
    private(set) var offsets: [Int] = [0]
    /// The FNV-1a hash of each id (also its shard hash).
    private(set) var hashes: [UInt64] = []
    /// Open addressing: index + 1, or 0 for an empty slot. Size is a power of two.
    private var table: [UInt32] = Array(repeating: 0, count: 1024)

    var count: Int { hashes.count }

    /// The index of the id `bytes[start ..< end]` (already unquoted), adding it if new; nil
    /// when the id is new and not valid UTF-8 (the row is rejected, reason `encoding`; ids
    /// already held were checked when they were added).
    ///
    /// - Complexity: O(length) expected.
    @inline(__always)
    mutating func intern(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, hash: UInt64) -> UInt32? {
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = table[slot]
            if entry == 0 { break }
            let index = Int(entry - 1)
            if hashes[index] == hash && equals(index, p, start, end) { return UInt32(index) }
            slot = (slot + 1) & mask
        }
        guard UTF8Validation.isValid(p, start, end) else { return nil }
        let index = hashes.count
        hashes.append(hash)
        arena.append(contentsOf: UnsafeBufferPointer(start: p + start, count: end - start))
        offsets.append(arena.count)
        table[slot] = UInt32(index + 1)
        if hashes.count * 2 > table.count { grow() }
        return UInt32(index)
    }

    /// Interns another interner's id `index` (used to merge per-thread interners).
    mutating func intern(from other: DeviceInterner, index: Int) -> UInt32 {
        other.arena.withUnsafeBufferPointer { a in
            // Valid: the other interner checked it.
            intern(a.baseAddress ?? UnsafePointer(bitPattern: 1)!, other.offsets[index], other.offsets[index + 1], hash: other.hashes[index])!
        }
    }

    @inline(__always)
    private func equals(_ index: Int, _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let a = offsets[index], b = offsets[index + 1]
        guard b - a == end - start else { return false }
        return arena.withUnsafeBufferPointer { stored in
            var i = 0
            while i < b - a {
                if stored[a + i] != p[start + i] { return false }
                i += 1
            }
            return true
        }
    }

    private mutating func grow() {
        var bigger = [UInt32](repeating: 0, count: table.count * 2)
        let mask = bigger.count - 1
        for index in 0..<hashes.count {
            var slot = Int(truncatingIfNeeded: hashes[index]) & mask
            while bigger[slot] != 0 { slot = (slot + 1) & mask }
            bigger[slot] = UInt32(index + 1)
        }
        table = bigger
    }

    /// The id of `index` as a string.
    func id(_ index: Int) -> String {
        String(decoding: arena[offsets[index]..<offsets[index + 1]], as: UTF8.self)
    }

    /// Bytes held (arena, offsets, hashes, table): the "plus the device ids" of the memory bound.
    var memoryBytes: Int { arena.count + offsets.count * 8 + hashes.count * 8 + table.count * 4 }
}

/// A lookup from device ids of up to 16 bytes to interner indices, keyed by the id's bytes
/// as two machine words: the parser's shortcut past hashing the id byte by byte (FNV-1a) and
/// comparing it byte by byte, for the ids it has already met.
///
/// Only a cache: a miss goes to the ``DeviceInterner``, which stays the owner of the ids.
struct ShortIDTable {
    /// The id's first and second eight bytes (zero beyond its length) and its length.
    struct Key {
        var low: UInt64
        var high: UInt64
        var length: Int
    }

    /// One probe reads one entry: the key's words, its length and the index.
    private struct Entry {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var length: Int32 = 0
        /// Interner index + 1; 0 marks an empty entry.
        var value: UInt32 = 0
    }

    private var entries = [Entry](repeating: Entry(), count: 256)
    private var count = 0

    /// The key of the id `p[start ..< end]`, or nil when it is longer than 16 bytes or its
    /// words would be loaded past `readable`.
    @inline(__always)
    static func key(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, readable: Int) -> Key? {
        let length = end - start
        guard length <= 16, start + 16 <= readable else { return nil }
        let raw = UnsafeRawPointer(p + start)
        var low = raw.loadUnaligned(as: UInt64.self)
        var high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        if length < 8 {
            low &= (1 << UInt64(length << 3)) &- 1
            high = 0
        } else if length < 16 {
            high &= (1 << UInt64((length - 8) << 3)) &- 1
        }
        return Key(low: low, high: high, length: length)
    }

    @inline(__always)
    private func slot(_ key: Key, mask: Int) -> Int {
        let mixed = (key.low ^ (key.high &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(key.length)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    /// The index stored for `key`, or nil.
    @inline(__always)
    func index(of key: Key) -> UInt32? {
        entries.withUnsafeBufferPointer { e in
            let mask = e.count - 1
            var s = slot(key, mask: mask)
            while true {
                let entry = e[s]
                if entry.value == 0 { return nil }
                if entry.low == key.low && entry.high == key.high && Int(entry.length) == key.length { return entry.value - 1 }
                s = (s + 1) & mask
            }
        }
    }

    /// Stores `index` for `key` (not present yet).
    mutating func insert(_ key: Key, index: UInt32) {
        if (count + 1) * 2 > entries.count { grow() }
        let mask = entries.count - 1
        var s = slot(key, mask: mask)
        while entries[s].value != 0 { s = (s + 1) & mask }
        entries[s] = Entry(low: key.low, high: key.high, length: Int32(key.length), value: index + 1)
        count += 1
    }

    private mutating func grow() {
        let old = entries
        entries = [Entry](repeating: Entry(), count: old.count * 2)
        count = 0
        for entry in old where entry.value != 0 {
            insert(Key(low: entry.low, high: entry.high, length: Int(entry.length)), index: entry.value - 1)
        }
    }
}

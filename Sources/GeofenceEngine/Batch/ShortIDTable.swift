/// A lookup from device ids of up to 16 bytes to interner indices, keyed by the id's bytes
/// as two machine words: the parser's shortcut past hashing the id byte by byte (FNV-1a) and
/// comparing it byte by byte, for the ids it has already met.
///
/// Only a cache: a miss goes to the ``DeviceInterner``, which stays the owner of the ids.
struct ShortIDTable {
    /// The id's first and second eight bytes (zero beyond its length) and its length.
    struct Key: Equatable {
        var low: UInt64
        var high: UInt64
        var length: Int
    }

    private var keys: [Key] = []
    /// Interner index + 1 per entry; 0 marks an empty entry.
    private var values: [UInt32]
    private var count = 0

    init() {
        keys = Array(repeating: Key(low: 0, high: 0, length: 0), count: 256)
        values = Array(repeating: 0, count: 256)
    }

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
        let mask = values.count - 1
        var s = slot(key, mask: mask)
        return values.withUnsafeBufferPointer { v in
            keys.withUnsafeBufferPointer { k in
                while true {
                    let value = v[s]
                    if value == 0 { return nil }
                    if k[s] == key { return value - 1 }
                    s = (s + 1) & mask
                }
            }
        }
    }

    /// Stores `index` for `key` (not present yet).
    mutating func insert(_ key: Key, index: UInt32) {
        if (count + 1) * 2 > values.count { grow() }
        let mask = values.count - 1
        var s = slot(key, mask: mask)
        while values[s] != 0 { s = (s + 1) & mask }
        keys[s] = key
        values[s] = index + 1
        count += 1
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: Key(low: 0, high: 0, length: 0), count: oldValues.count * 2)
        values = Array(repeating: 0, count: oldValues.count * 2)
        count = 0
        for k in oldValues.indices where oldValues[k] != 0 { insert(oldKeys[k], index: oldValues[k] - 1) }
    }
}

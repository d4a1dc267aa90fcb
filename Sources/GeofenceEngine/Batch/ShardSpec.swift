/// Which share of the devices a process evaluates: `--shard K/N` keeps the devices whose
/// stable hash of the id is K mod N.
///
/// The hash is 64-bit FNV-1a over the id's UTF-8 bytes (offset basis 0xcbf29ce484222325,
/// prime 0x100000001b3): stable across machines, processes and versions, so N processes on N
/// machines partition the devices without talking to each other.
package struct ShardSpec: Hashable, Sendable, CustomStringConvertible {
    package var index: Int
    package var count: Int

    /// The whole input (shard 0 of 1).
    package static let all = ShardSpec(uncheckedIndex: 0, count: 1)

    init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Shard `index` of `count`; nil unless 0 ≤ index < count.
    package init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.init(uncheckedIndex: index, count: count)
    }

    /// Parses `K/N`.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    /// True when a device whose id hashes to `hash` belongs to this shard.
    @inlinable
    package func contains(hash: UInt64) -> Bool { count == 1 || hash % UInt64(count) == UInt64(index) }

    /// True when the device id belongs to this shard.
    package func contains(deviceID: String) -> Bool { contains(hash: Self.hash(deviceID)) }

    package var description: String { "\(index)/\(count)" }

    /// 64-bit FNV-1a of the id's UTF-8 bytes.
    package static func hash(_ id: String) -> UInt64 {
        var h = FNV1a()
        for b in id.utf8 { h.add(b) }
        return h.value
    }
}

/// Incremental 64-bit FNV-1a.
@usableFromInline
struct FNV1a {
    @usableFromInline var value: UInt64 = 0xcbf2_9ce4_8422_2325

    @inlinable init() {}

    @inlinable @inline(__always)
    mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
}

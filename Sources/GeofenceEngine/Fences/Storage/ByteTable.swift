/// Variable-length byte strings by index, flat: one blob and the offset where each ends.
///
/// String `i` is `bytes[offsets[i] ..< offsets[i + 1]]`; `offsets` has `count + 1` entries,
/// starting at 0 and never decreasing. Fence ids, libraries, pass-through properties and event
/// fragments are kept this way, so a million of them are two allocations (or two ranges of
/// a compiled file), not a million strings.
struct ByteTable: Sendable {
    let bytes: FrozenBuffer<UInt8>
    let offsets: FrozenBuffer<UInt64>

    /// Number of strings.
    var count: Int { offsets.count - 1 }

    /// The bytes of string `i` (valid while the table lives).
    @inline(__always)
    subscript(i: Int) -> UnsafeBufferPointer<UInt8> {
        let from = Int(truncatingIfNeeded: offsets[i]), to = Int(truncatingIfNeeded: offsets[i + 1])
        return UnsafeBufferPointer(start: bytes.pointer + from, count: to - from)
    }

    /// String `i` decoded as UTF-8 (the tables hold valid UTF-8).
    func string(_ i: Int) -> String { String(decoding: self[i], as: UTF8.self) }

    /// Bytes held.
    var memoryBytes: Int { bytes.count + offsets.count * 8 }

    /// The length of the longest string (0 for none).
    /// - Complexity: O(count).
    var longest: Int {
        var most: UInt64 = 0
        for i in 0..<count { most = Swift.max(most, offsets[i + 1] &- offsets[i]) }
        return Int(truncatingIfNeeded: most)
    }
}

/// Builds a ``ByteTable`` by appending strings.
struct ByteTableBuilder: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var offsets: [UInt64] = [0]

    init() {}

    var count: Int { offsets.count - 1 }

    /// Appends one string.
    mutating func append<C: Collection>(_ string: C) where C.Element == UInt8 {
        bytes.append(contentsOf: string)
        offsets.append(UInt64(bytes.count))
    }

    /// Appends the UTF-8 of `string`.
    mutating func append(_ string: String) {
        var s = string
        s.withUTF8 { append($0) }
    }

    /// Appends a string written in place by `body` (which appends to the blob).
    mutating func appendWriting(_ body: (inout [UInt8]) -> Void) {
        body(&bytes)
        offsets.append(UInt64(bytes.count))
    }

    /// The bytes of string `i`.
    func slice(_ i: Int) -> ArraySlice<UInt8> { bytes[Int(offsets[i])..<Int(offsets[i + 1])] }

    /// String `i` decoded as UTF-8.
    func string(_ i: Int) -> String { String(decoding: slice(i), as: UTF8.self) }

    /// Drops every string from `count` on (the blob too): a rollback to an earlier count.
    mutating func truncate(to count: Int) {
        offsets.removeLast(offsets.count - 1 - count)
        bytes.removeLast(bytes.count - Int(offsets[count]))
    }

    func frozen() -> ByteTable { ByteTable(bytes: FrozenBuffer(bytes), offsets: FrozenBuffer(offsets)) }
}

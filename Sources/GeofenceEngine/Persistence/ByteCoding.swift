/// Little helpers for the compact binary forms (state files): LEB128 varints, zigzag for
/// signed values, raw little-endian words; and a reader that checks every read against the
/// end of its bytes, so a truncated or damaged input is an error, never a trap.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A signed value, zigzag-encoded: small magnitudes of either sign take few bytes.
    mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    /// Eight bytes, little-endian, from a typed buffer: `append(contentsOf:)` of a raw buffer
    /// took the generic sequence path, a few percent of a server's encoding.
    mutating func word(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    mutating func double(_ value: Double) { word(value.bitPattern) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// A length, then the bytes.
    mutating func blob(_ value: some Collection<UInt8>) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}

/// Why bytes could not be decoded: where, and what was expected.
struct ByteReadError: Error {
    var offset: Int
    var truncated: Bool
    var detail: String
}

struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer, from offset: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.end = end ?? bytes.count
    }

    var isAtEnd: Bool { offset >= end }

    func fail(_ detail: String) -> ByteReadError { ByteReadError(offset: offset, truncated: false, detail: detail) }
    func short(_ what: String) -> ByteReadError { ByteReadError(offset: offset, truncated: true, detail: "ends inside \(what)") }

    mutating func byte(_ what: String) throws(ByteReadError) -> UInt8 {
        guard offset < end else { throw short(what) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint(_ what: String) throws(ByteReadError) -> UInt64 {
        // Most varints are one byte.
        if offset < end, bytes[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(bytes[offset])
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte(what)
            if shift == 63 && b > 1 { throw fail("\(what): a varint longer than 64 bits") }
            value |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return value }
            shift += 7
            if shift > 63 { throw fail("\(what): a varint longer than 64 bits") }
        }
    }

    mutating func signed(_ what: String) throws(ByteReadError) -> Int64 {
        let v = try varint(what)
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    /// A varint that must be a count or index below `limit`.
    mutating func count(_ what: String, below limit: Int) throws(ByteReadError) -> Int {
        let v = try varint(what)
        guard v < UInt64(limit) else { throw fail("\(what) \(v) is out of range (below \(limit) expected)") }
        return Int(v)
    }

    mutating func word(_ what: String) throws(ByteReadError) -> UInt64 {
        guard end - offset >= 8 else { throw short(what) }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func double(_ what: String) throws(ByteReadError) -> Double { Double(bitPattern: try word(what)) }

    /// A length-prefixed run of bytes, as a range of `bytes`.
    mutating func blob(_ what: String) throws(ByteReadError) -> Range<Int> {
        let n = try varint(what)
        guard n <= UInt64(end - offset) else { throw short(what) }
        defer { offset += Int(n) }
        return offset..<offset + Int(n)
    }
}

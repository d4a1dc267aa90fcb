import GeofenceEngine

/// The order-independent checksum the peer programs print (`Benchmarks/peers/world.h`):
/// the wrapping sum over (fix, fence) pairs of `mix64(fix << 20 | fence)`, indices 0-based
/// in file order. Equal checksums mean equal answers, whatever order pairs were found in.
struct PairChecksum: Equatable {
    var pairs = 0
    var sum: UInt64 = 0

    /// SplitMix64's finaliser, as in the peers' `mix64`.
    @inline(__always)
    static func mix64(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    mutating func add(fix: Int, fence: Int) {
        pairs += 1
        sum &+= Self.mix64(UInt64(fix) << 20 | UInt64(fence))
    }

    mutating func merge(_ other: PairChecksum) {
        pairs += other.pairs
        sum &+= other.sum
    }

    /// 16 lowercase hex digits.
    var hex: String {
        let s = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The checksum of a pair file: a header line, then `row,fenceId[,…]` lines with the row
    /// counted from 1 (`geofence contains --format csv`, `duckdb_peer.py --mode whole`). The
    /// fence id must be the fence's 0-based index in its file, as gen_world.py's ids are; a
    /// line without an id (a rejected row) fails.
    static func ofPairFile(_ path: String) throws -> PairChecksum {
        let bytes = try FileBytes.read(path)
        var sum = PairChecksum()
        var lineNumber = 0
        var i = 0
        while i < bytes.count {
            var end = i
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            defer { i = end + 1 }
            lineNumber += 1
            if lineNumber == 1 || end == i { continue }
            var fields: [Int] = []
            var value = 0, digits = 0
            for b in bytes[i..<end] {
                if b >= 0x30 && b <= 0x39 {
                    value = value * 10 + Int(b - 0x30)
                    digits += 1
                } else if b == UInt8(ascii: ",") {
                    guard digits > 0 else { break }
                    fields.append(value)
                    value = 0
                    digits = 0
                    if fields.count == 2 { break }
                } else if b != UInt8(ascii: "\"") && b != 0x0D {
                    break
                }
            }
            if fields.count < 2 && digits > 0 { fields.append(value) }
            guard fields.count == 2, fields[0] >= 1 else {
                throw BenchError("\(path):\(lineNumber): not a row,fenceId pair")
            }
            sum.add(fix: fields[0] - 1, fence: fields[1])
        }
        return sum
    }
}

/// The order-independent checksum the peer programs print (`../shared/peers/common.h`):
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
}

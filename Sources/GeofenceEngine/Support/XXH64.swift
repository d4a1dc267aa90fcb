/// XXH64 (Yann Collet's xxHash, 64-bit), the checksum of compiled fence files.
///
/// The published algorithm, so a section's digest can be checked with any xxHash
/// implementation (`xxhsum -H1`, python's `xxhash.xxh64`). It reads 32 bytes per round in four
/// independent lanes: several GB/s per core, which is what lets a compiled file of a million
/// fences be verified within its open budget.
enum XXH64 {
    static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always)
    private static func rotate(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 &- r)) }

    @inline(__always)
    private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotate(acc &+ input &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        (acc ^ round(0, value)) &* prime1 &+ prime4
    }

    /// The digest of `bytes` with `seed`.
    /// - Complexity: O(n).
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let n = bytes.count
        guard let base = bytes.baseAddress else { return finish(seed &+ prime5, bytes, from: 0) }
        @inline(__always) func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        var p = 0
        var h: UInt64
        if n >= 32 {
            var v1 = seed &+ prime1 &+ prime2, v2 = seed &+ prime2, v3 = seed, v4 = seed &- prime1
            while p &+ 32 <= n {
                v1 = round(v1, word(p))
                v2 = round(v2, word(p &+ 8))
                v3 = round(v3, word(p &+ 16))
                v4 = round(v4, word(p &+ 24))
                p &+= 32
            }
            h = rotate(v1, 1) &+ rotate(v2, 7) &+ rotate(v3, 12) &+ rotate(v4, 18)
            h = merge(merge(merge(merge(h, v1), v2), v3), v4)
        } else {
            h = seed &+ prime5
        }
        return finish(h, bytes, from: p)
    }

    /// The tail (fewer than 32 bytes from `p`) and the final avalanche.
    @inline(__always)
    private static func finish(_ h0: UInt64, _ bytes: UnsafeRawBufferPointer, from p0: Int) -> UInt64 {
        var h = h0 &+ UInt64(bytes.count)
        var p = p0
        let n = bytes.count
        while p &+ 8 <= n {
            let k = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: p, as: UInt64.self))
            h = rotate(h ^ round(0, k), 27) &* prime1 &+ prime4
            p &+= 8
        }
        if p &+ 4 <= n {
            let k = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
            h = rotate(h ^ (k &* prime1), 23) &* prime2 &+ prime3
            p &+= 4
        }
        while p < n {
            h = rotate(h ^ (UInt64(bytes[p]) &* prime5), 11) &* prime1
            p &+= 1
        }
        h ^= h >> 33
        h = h &* prime2
        h ^= h >> 29
        h = h &* prime3
        h ^= h >> 32
        return h
    }
}

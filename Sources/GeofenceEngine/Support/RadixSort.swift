/// Least-significant-digit radix sort of 64-bit keys by their upper 32 bits: stable, linear
/// in the keys (a pass per 11 bits of the largest key's upper word).
enum RadixSort {
    /// Sorts `keys()[0 ..< n]` by their upper 32 bits (all at most `largest`), stably, in passes
    /// of 11 bits through `spare()`, calling `swap` after each pass (so `keys()` holds the result).
    static func byHighWord(
        count n: Int, largest: UInt64, keys: () -> UnsafeMutablePointer<UInt64>, spare: () -> UnsafeMutablePointer<UInt64>,
        swap: () -> Void
    ) {
        guard n > 1 else { return }
        let bits = 64 - largest.leadingZeroBitCount
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2049) { counts in
            for shift in stride(from: 32, to: 32 + Swift.max(1, bits), by: 11) {
                if pass(keys(), into: spare(), count: n, shift: shift, counts: counts) { swap() }
            }
        }
    }

    /// Sorts `keys[0 ..< n]` ascending (as unsigned integers), through `spare`: six passes of
    /// 11 bits, a pass skipped when every key has the same digit there.
    /// - Complexity: O(n), two reads and one write of each key per pass.
    static func sort(_ keys: UnsafeMutablePointer<UInt64>, spare: UnsafeMutablePointer<UInt64>, count n: Int) {
        guard n > 1 else { return }
        var source = keys, target = spare
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2049) { counts in
            for shift in stride(from: 0, to: 64, by: 11) where pass(source, into: target, count: n, shift: shift, counts: counts) {
                Swift.swap(&source, &target)
            }
        }
        if source != keys { keys.update(from: source, count: n) }
    }

    /// One stable counting pass over the 11-bit digit at `shift`: `source` into `target`;
    /// false (nothing written) when every key has the same digit there.
    @inline(__always)
    private static func pass(
        _ source: UnsafeMutablePointer<UInt64>, into target: UnsafeMutablePointer<UInt64>, count n: Int, shift: Int,
        counts: UnsafeMutableBufferPointer<Int>
    ) -> Bool {
        @inline(__always) func digit(_ key: UInt64) -> Int { Int(truncatingIfNeeded: key >> UInt64(shift)) & 0x7FF }
        counts.initialize(repeating: 0)
        for k in 0..<n { counts[digit(source[k]) &+ 1] &+= 1 }
        if counts[digit(source[0]) &+ 1] == n { return false }
        for b in 0..<2048 { counts[b &+ 1] &+= counts[b] }
        for k in 0..<n {
            let b = digit(source[k])
            target[counts[b]] = source[k]
            counts[b] &+= 1
        }
        return true
    }
}

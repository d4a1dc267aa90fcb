/// Least-significant-digit radix sort of 64-bit keys by their upper 32 bits: stable, linear
/// in the keys (a pass per 11 bits, at most, of the largest key's upper word).
enum RadixSort {
    /// Sorts `keys()[0 ..< n]` by their upper 32 bits (all at most `largest`), stably, in passes
    /// of at most 11 bits through `spare()`, calling `swap` after each pass (so `keys()` holds
    /// the result).
    /// - Complexity: O(n) per pass, ⌈b / 11⌉ passes for the b bits of `largest`.
    static func byHighWord(
        count n: Int, largest: UInt64, keys: () -> UnsafeMutablePointer<UInt64>, spare: () -> UnsafeMutablePointer<UInt64>,
        swap: () -> Void
    ) {
        guard n > 1 else { return }
        let bits = Swift.max(1, 64 - largest.leadingZeroBitCount)
        // Digits as even as the passes allow: 10 + 10 bits for a million fixes, not 11 + 9, half
        // the buckets, so the scatter's open lines fit the first-level cache better (the batch
        // at 10k fences 34.0 → 31.8 ms; three passes of 7 bits 33.6).
        let passes = (bits + 10) / 11
        let width = (bits + passes - 1) / passes
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2049) { counts in
            for shift in stride(from: 32, to: 32 + bits, by: width) {
                if pass(keys(), into: spare(), count: n, shift: shift, width: width, counts: counts) { swap() }
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
            for shift in stride(from: 0, to: 64, by: 11) where pass(source, into: target, count: n, shift: shift, width: 11, counts: counts) {
                Swift.swap(&source, &target)
            }
        }
        if source != keys { keys.update(from: source, count: n) }
    }

    /// One stable counting pass over the `width`-bit digit (at most 11) at `shift`: `source` into `target`;
    /// false (nothing written) when every key has the same digit there.
    @inline(__always)
    private static func pass(
        _ source: UnsafeMutablePointer<UInt64>, into target: UnsafeMutablePointer<UInt64>, count n: Int, shift: Int,
        width: Int, counts: UnsafeMutableBufferPointer<Int>
    ) -> Bool {
        let mask = (1 &<< width) &- 1
        @inline(__always) func digit(_ key: UInt64) -> Int { Int(truncatingIfNeeded: key >> UInt64(shift)) & mask }
        counts.initialize(repeating: 0)
        for k in 0..<n { counts[digit(source[k]) &+ 1] &+= 1 }
        if counts[digit(source[0]) &+ 1] == n { return false }
        for b in 0..<mask { counts[b &+ 1] &+= counts[b] }
        for k in 0..<n {
            let b = digit(source[k])
            target[counts[b]] = source[k]
            counts[b] &+= 1
        }
        return true
    }
}

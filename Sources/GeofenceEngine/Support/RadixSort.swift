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
        var shift = 32
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2049) { counts in
            while shift < 32 + Swift.max(1, bits) {
                let source = keys(), target = spare()
                counts.initialize(repeating: 0)
                for k in 0..<n { counts[Int(source[k] >> UInt64(shift) & 0x7FF) &+ 1] &+= 1 }
                if counts[Int(source[0] >> UInt64(shift) & 0x7FF) &+ 1] == n {
                    shift += 11  // one bucket holds everything: this digit is already sorted
                    continue
                }
                for b in 0..<2048 { counts[b &+ 1] &+= counts[b] }
                for k in 0..<n {
                    let b = Int(source[k] >> UInt64(shift) & 0x7FF)
                    target[counts[b]] = source[k]
                    counts[b] &+= 1
                }
                swap()
                shift += 11
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
            for shift in stride(from: 0, to: 64, by: 11) {
                counts.initialize(repeating: 0)
                for k in 0..<n { counts[Int(truncatingIfNeeded: source[k] >> UInt64(shift)) & 0x7FF &+ 1] &+= 1 }
                if counts[Int(truncatingIfNeeded: source[0] >> UInt64(shift)) & 0x7FF &+ 1] == n { continue }
                for b in 0..<2048 { counts[b &+ 1] &+= counts[b] }
                for k in 0..<n {
                    let b = Int(truncatingIfNeeded: source[k] >> UInt64(shift)) & 0x7FF
                    target[counts[b]] = source[k]
                    counts[b] &+= 1
                }
                Swift.swap(&source, &target)
            }
        }
        if source != keys { keys.update(from: source, count: n) }
    }
}

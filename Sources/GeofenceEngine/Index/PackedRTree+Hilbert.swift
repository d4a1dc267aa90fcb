import GeofenceGeometry

extension PackedRTree {
    /// Item indices sorted by the Hilbert value of their box centres (ties by index, so the
    /// order, and the whole tree, is deterministic).
    ///
    /// Hilbert order keeps items that are close in space close in the array, so the leaf
    /// groups are compact and a point query visits few of them.
    /// - Complexity: O(n log n).
    ///
    /// The keys are computed on `threads` threads (the values do not depend on it).
    static func hilbertOrder(_ items: [BoundingBox], threads: Int = 1) -> [Int] {
        var extent = BoundingBox.empty
        for box in items where !box.isEmpty && box.center.latitude.isFinite && box.center.longitude.isFinite {
            extent = extent.including(latitude: box.center.latitude, longitude: box.center.longitude)
        }
        let maxCell = Double((1 << 16) - 1)
        let width = extent.maxLongitude - extent.minLongitude, height = extent.maxLatitude - extent.minLatitude
        let scaleX = width > 0 && width.isFinite ? maxCell / width : 0
        let scaleY = height > 0 && height.isFinite ? maxCell / height : 0
        let n = items.count
        guard n > 1 else { return Array(0..<n) }
        // Keys `hilbert << 32 | index`, put in order by a stable radix sort of their high words
        // (ties keep the index order): the order `keys.sort()` gives, in linear time.
        var keys = UnsafeMutablePointer<UInt64>.allocate(capacity: n)
        var spare = UnsafeMutablePointer<UInt64>.allocate(capacity: n)
        defer { keys.deallocate(); spare.deallocate() }
        let parts = Swift.max(1, Swift.min(threads, n / 16384))
        let largestOf = DisjointSlots<UInt64>(repeating: 0, count: parts)
        let (target, minLongitude, minLatitude) = (SharedPointer(keys), extent.minLongitude, extent.minLatitude)
        ParallelWorkers.run(count: parts, threads: threads) { k, _ in
            var largest: UInt64 = 0
            for i in (n * k / parts)..<(n * (k + 1) / parts) {
                let c = items[i].center
                let x = UInt32(((c.longitude - minLongitude) * scaleX).rounded(.down).clamped(0, maxCell))
                let y = UInt32(((c.latitude - minLatitude) * scaleY).rounded(.down).clamped(0, maxCell))
                let h = UInt64(hilbert(x: x, y: y))
                largest = Swift.max(largest, h)
                target[i] = h << 32 | UInt64(i)
            }
            largestOf[k] = largest
        }
        let largest = largestOf.storage.max() ?? 0
        RadixSort.byHighWord(count: n, largest: largest, keys: { keys }, spare: { spare }, swap: { Swift.swap(&keys, &spare) })
        return (0..<n).map { Int(keys[$0] & 0xFFFF_FFFF) }
    }

    /// Position of cell (x, y), each in 0..<65,536, along the Hilbert curve of order 16.
    ///
    /// The branch-free bit-twiddling form (from "Fast Hilbert curve generation, sorting and
    /// range queries", rawrunprotected.net, as flatbush uses it).
    /// - Complexity: O(1).
    static func hilbert(x: UInt32, y: UInt32) -> UInt32 {
        var a = x ^ y
        var b = 0xFFFF ^ a
        var c = 0xFFFF ^ (x | y)
        var d = x & (y ^ 0xFFFF)

        var A = a | (b >> 1)
        var B = (a >> 1) ^ a
        var C = ((c >> 1) ^ (b & (d >> 1))) ^ c
        var D = ((a & (c >> 1)) ^ (d >> 1)) ^ d

        a = A; b = B; c = C; d = D
        A = (a & (a >> 2)) ^ (b & (b >> 2))
        B = (a & (b >> 2)) ^ (b & ((a ^ b) >> 2))
        C ^= (a & (c >> 2)) ^ (b & (d >> 2))
        D ^= (b & (c >> 2)) ^ ((a ^ b) & (d >> 2))

        a = A; b = B; c = C; d = D
        A = (a & (a >> 4)) ^ (b & (b >> 4))
        B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4))
        C ^= (a & (c >> 4)) ^ (b & (d >> 4))
        D ^= (b & (c >> 4)) ^ ((a ^ b) & (d >> 4))

        a = A; b = B; c = C; d = D
        C ^= (a & (c >> 8)) ^ (b & (d >> 8))
        D ^= (b & (c >> 8)) ^ ((a ^ b) & (d >> 8))

        a = C ^ (C >> 1)
        b = D ^ (D >> 1)

        var i0 = x ^ y
        var i1 = b | (0xFFFF ^ (i0 | a))

        i0 = (i0 | (i0 << 8)) & 0x00FF_00FF
        i0 = (i0 | (i0 << 4)) & 0x0F0F_0F0F
        i0 = (i0 | (i0 << 2)) & 0x3333_3333
        i0 = (i0 | (i0 << 1)) & 0x5555_5555

        i1 = (i1 | (i1 << 8)) & 0x00FF_00FF
        i1 = (i1 | (i1 << 4)) & 0x0F0F_0F0F
        i1 = (i1 | (i1 << 2)) & 0x3333_3333
        i1 = (i1 | (i1 << 1)) & 0x5555_5555

        return (i1 << 1) | i0
    }
}

extension Double {
    /// The value limited to [low, high].
    @inline(__always)
    /// (NaN, from an empty or non-finite box, becomes `low`: such an item is never found by a
    /// search, so its place on the curve does not matter, but it must not trap.)
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double {
        guard self >= low else { return low }
        return self <= high ? self : high
    }
}

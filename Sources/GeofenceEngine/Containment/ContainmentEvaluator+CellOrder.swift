import GeofenceGEOS

extension ContainmentEvaluator {
    /// The batch query in grid-cell order: sort the fixes by cell (least-significant-digit
    /// radix sort of `cell << 32 | index`, 11 bits a pass), gather them in that order, run the
    /// blocked query over them, then put the pairs back in input order (a counting sort by fix
    /// index, which keeps each fix's slots ascending).
    ///
    /// In the fixes' own order, neighbouring fixes rarely share a cell (devices interleave in
    /// time), so once the fences' data outgrows the caches every fix's cell, boxes, records and
    /// edges are cache misses; in cell order they are hits for all but the first fix of a cell.
    /// - Complexity: O(n) time for n fixes, O(n) scratch (40 bytes a fix, kept for the next call).
    func containingInCellOrder(
        _ lat: UnsafePointer<Double>, _ lon: UnsafePointer<Double>, _ levels: UnsafePointer<Int>?, count n: Int,
        options: ContainmentOptions, scratch: BatchScratch
    ) throws(GEOSError) -> Int {
        let directory = hot.directory
        scratch.reserve(n)
        // Outside the grid (or NaN): one past the last cell, so those fixes sort last.
        let outside = UInt64(directory.columns &* directory.rows)
        let keys = scratch.sortKeys
        for i in 0..<n {
            let cell = directory.cell(latitude: lat[i], longitude: lon[i])
            keys[i] = (cell == .max ? outside : UInt64(cell)) << 32 | UInt64(i)
        }
        Self.radixSortByHighWord(count: n, largest: outside, keys: { scratch.sortKeys }, spare: { scratch.sortSpare }, swap: scratch.swapSortBuffers)
        let sorted = scratch.sortKeys
        let sLat = scratch.latitudes, sLon = scratch.longitudes, sIndex = scratch.indexes, sLevel = scratch.levels
        for k in 0..<n {
            let i = Int(UInt32(truncatingIfNeeded: sorted[k]))
            sLat[k] = lat[i]
            sLon[k] = lon[i]
            sIndex[k] = Int32(truncatingIfNeeded: i)
            if let levels { sLevel[k] = levels[i] }
        }
        let found = try blocks(
            sLat, sLon, levels == nil ? nil : UnsafePointer(sLevel), indexes: sIndex, count: n, options: options, scratch: scratch)
        // Back to input order: a stable sort by fix keeps each fix's slots ascending.
        Self.radixSortByHighWord(
            count: found, largest: UInt64(n), keys: { scratch.pairs }, spare: { scratch.pairSpare }, swap: scratch.swapPairBuffers)
        return found
    }

    /// Sorts `keys()[0 ..< n]` by their upper 32 bits (all at most `largest`), stably, in passes
    /// of 11 bits through `spare()`, calling `swap` after each pass (so `keys()` holds the result).
    static func radixSortByHighWord(
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
}

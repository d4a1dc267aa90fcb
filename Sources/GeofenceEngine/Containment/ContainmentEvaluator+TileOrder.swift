import GeofenceGEOS

extension ContainmentEvaluator {
    /// The batch query in tile order: the grid is cut into tiles of cells whose fence data
    /// fits a core's second-level cache (``tileBytes``); the fixes are moved tile by tile (one
    /// counting pass and one scatter, carrying their coordinates), the blocked query runs over
    /// them, and the pairs are put back in input order by a stable radix sort by fix index
    /// (which keeps each fix's slots ascending).
    ///
    /// In the fixes' own order, neighbouring fixes rarely share a region (devices interleave
    /// in time), so once the fences' data outgrows the caches every fix's cell, boxes, records
    /// and edges are cache misses; tile by tile they are mostly hits. A full sort by cell
    /// would add little locality for two more passes and a random gather (measured: the sort
    /// was half of the batch at 10k fences).
    /// `tileBytes` is the fence data a tile aims for (the tests make it tiny, so that tiles are
    /// single cells and the reordering is thorough). Returns the pairs' count in `scratch.pairs`.
    /// - Complexity: O(n) time for n fixes, O(n) scratch (about 40 bytes a fix, kept).
    func containingInTileOrder(
        _ lat: UnsafePointer<Double>, _ lon: UnsafePointer<Double>, _ levels: UnsafePointer<Int>?, count n: Int,
        options: ContainmentOptions, scratch: BatchScratch, tileBytes: Int = tileBytes
    ) throws(GEOSError) -> Int {
        let directory = hot.directory
        scratch.reserve(n)
        let layout = TileLayout(directory: directory, hotBytes: fenceSet.hotBytes, tileBytes: tileBytes)
        let tiles = layout.count
        // Pass 1: each fix's tile (the last bucket: outside the grid), and the tiles' sizes.
        let tileOf = scratch.tileOf
        scratch.reserveTiles(tiles)
        let starts = scratch.tileStarts
        starts.initialize(repeating: 0, count: tiles + 1)
        for i in 0..<n {
            let t = layout.tile(directory.cellCoordinates(latitude: lat[i], longitude: lon[i]))
            tileOf[i] = UInt32(truncatingIfNeeded: t)
            starts[t &+ 1] &+= 1
        }
        for t in 0..<tiles { starts[t &+ 1] &+= starts[t] }
        // Pass 2: the fixes tile by tile, in input order within a tile.
        let sLat = scratch.latitudes, sLon = scratch.longitudes, sIndex = scratch.indexes, sLevel = scratch.levels
        for i in 0..<n {
            let t = Int(tileOf[i])
            let at = starts[t]
            starts[t] = at &+ 1
            sLat[at] = lat[i]
            sLon[at] = lon[i]
            sIndex[at] = Int32(truncatingIfNeeded: i)
            if let levels { sLevel[at] = levels[i] }
        }
        let found = try blocks(
            sLat, sLon, levels == nil ? nil : UnsafePointer(sLevel), indexes: sIndex, count: n, options: options, scratch: scratch)
        // Back to input order.
        RadixSort.byHighWord(
            count: found, largest: UInt64(n), keys: { scratch.pairs }, spare: { scratch.pairSpare }, swap: scratch.swapPairBuffers)
        return found
    }

    /// Bytes of fence data a tile aims for: a share of a core's second-level cache.
    static let tileBytes = 256 << 10

    /// Tiles of the grid directory: squares of 2^k × 2^k cells, about ``tileBytes`` of the
    /// fences' hot data each (assuming it is spread evenly over the cells), numbered row by row.
    struct TileLayout {
        let shift: Int
        let columns: Int
        let count: Int

        init(directory: CellDirectory.View, hotBytes: Int, tileBytes: Int = ContainmentEvaluator.tileBytes) {
            let cells = Swift.max(1, directory.columns &* directory.rows)
            let wanted = Swift.max(1, hotBytes / Swift.max(1, tileBytes))
            var shift = 0
            while shift < 30 && (1 << (2 * (shift + 1))) * wanted <= cells { shift += 1 }
            self.shift = shift
            columns = (directory.columns + (1 << shift) - 1) >> shift
            let rows = (directory.rows + (1 << shift) - 1) >> shift
            count = columns * rows + 1  // the last one: outside the grid
        }

        @inline(__always)
        func tile(_ cell: (column: Int, row: Int)?) -> Int {
            guard let cell else { return count &- 1 }
            return (cell.row >> shift) &* columns &+ (cell.column >> shift)
        }
    }
}

import GeofenceGEOS

extension ContainmentEvaluator {
    /// The batch query in tile order: the first pass (``CellDirectory/View/locate(latitudes:longitudes:count:indexes:fine:coordinates:)``)
    /// keeps the fixes whose fine cell some fence's box reaches (in a large batch with their
    /// coordinates side by side); those alone are grouped by tiles of cells, in input order
    /// within a tile (a counting pass, then a scatter of their indexes, and of their
    /// coordinates in a large batch, which a small one gathers after); the later stages run
    /// over them tile by tile, and the pairs are put back in input order, each fix's slots
    /// still ascending. `moving` forces the large batch's way or the small one's (tests).
    ///
    /// When the located fixes are at least a quarter of the directory's cells (`sweep` on),
    /// every tile is one cell and the cell is swept fence by fence
    /// (``sweepCells(cells:ends:coordinates:_:indexes:options:runs:scratch:)``; `tileBytes` then
    /// plays no part); the pairs go back by whole runs a fix (``placeRuns(count:located:fixes:indexes:scratch:)``)
    /// from two pairs a fix, else by a stable radix sort by fix index. Otherwise the tiles are
    /// squares of cells of about `tileBytes` of fence data (``TileLayout``), answered by the
    /// fix-major blocks, and the radix sort puts the pairs back.
    ///
    /// In the fixes' own order, neighbouring fixes rarely share a region (devices interleave
    /// in time), so once the fences' data outgrows the caches every fix's cell, boxes, records
    /// and edges are cache misses; cell by cell, the fixes of a cell share its entries,
    /// records, polygon cells and edges, first-level cache hits after the first fix. Fixes no
    /// box reaches (nine in ten with 1k fences) are never moved. Returns the pairs' count in
    /// `scratch.pairs`.
    /// - Complexity: O(n + c) time for n fixes and the c tiles (at most 4m cells when sweeping,
    ///   else m / ``minimumFixesPerTile`` squares, for the m located), O(n) scratch (about 110
    ///   bytes a fix, kept).
    func containingInTileOrder(
        _ lat: UnsafePointer<Double>, _ lon: UnsafePointer<Double>, _ levels: UnsafePointer<Int>?, count n: Int,
        options: ContainmentOptions, scratch: BatchScratch, tileBytes: Int = tileBytes, sweep: Bool = true,
        moving: Bool? = nil
    ) throws(GEOSError) -> Int {
        let directory = hot.directory
        scratch.reserve(n)
        // Pass 1: the fixes some box may hold, with their fine cells (and coordinates, when
        // they are moved with the fix; see pass 3).
        let moving = moving ?? (n >= Self.movingMinimum)
        let everyIndex = scratch.everyIndex, everyFine = scratch.everyFine, everyCoordinates = scratch.everyCoordinates
        let m = moving
            ? directory.locate(
                latitudes: lat, longitudes: lon, count: n, indexes: everyIndex, fine: everyFine, coordinates: everyCoordinates)
            : directory.locate(latitudes: lat, longitudes: lon, count: n, indexes: everyIndex, fine: everyFine)
        guard m > 0 else { return 0 }
        // One tile per cell when the fixes are not much fewer than the cells: the exact stage
        // then sweeps each cell fence by fence (``sweepCells``); else squares of cells.
        let cellLayout = TileLayout(directory: directory, hotBytes: Int.max, tileBytes: 1, fixes: m)
        let sweeping = sweep && cellLayout.shift == 0
        let layout = sweeping ? cellLayout : TileLayout(
            directory: directory, hotBytes: fenceSet.hotBytes, tileBytes: tileBytes, fixes: m / Self.minimumFixesPerTile)
        let tiles = layout.count
        // Pass 2: their tiles, and the tiles' sizes.
        let tileOf = scratch.tileOf
        scratch.reserveTiles(tiles)
        let starts = scratch.tileStarts
        starts.initialize(repeating: 0, count: tiles + 1)
        let fineShift = directory.fineShift
        for k in 0..<m {
            let f = everyFine[k]
            let column = Int(truncatingIfNeeded: f & 0xFFFF_FFFF) &>> fineShift, row = Int(truncatingIfNeeded: f &>> 32) &>> fineShift
            let t = layout.tile((column, row))
            tileOf[k] = UInt32(truncatingIfNeeded: t)
            starts[t &+ 1] &+= 1
        }
        for t in 0..<tiles { starts[t &+ 1] &+= starts[t] }
        // Pass 3: their indexes in tile order, and their coordinates: moved with the index from
        // the first pass's copy in a large batch, gathered from the input by index after in a
        // small one. With one tile per cell thousands of places are written at once, each
        // write a cache miss; but a write does not hold up what follows, where a read does, and
        // a large batch's input is out of the caches: the gather's two reads a fix, each a
        // miss, took 9.6 ns a fix with 1M fixes at 10k fences, where moving was 1.08–1.10×
        // faster (1.00× at 1k and 100k). A small batch's input is in the caches, and there
        // the gather wins: 1.05× with 125k fixes, equal at 250k, moving 1.02× at 500k
        // (``movingMinimum``). The coordinates move as one 16-byte value, one miss: the index
        // and two coordinate arrays scattered were three (16 % of the batch at 10k).
        // Scattering first into 256 bands of tiles, then band by band, was slower; a two-pass
        // radix sort by tile carrying the coordinates measured no better.
        let sLat = scratch.latitudes, sLon = scratch.longitudes, sIndex = scratch.indexes, sLevel = scratch.levels
        let sCoordinates = scratch.coordinates
        for k in 0..<m {
            let t = Int(tileOf[k])
            let at = starts[t]
            starts[t] = at &+ 1
            sIndex[at] = everyIndex[k]
            if moving { sCoordinates[at] = everyCoordinates[k] }
        }
        if !moving {
            // Independent reads, in flight together.
            for k in 0..<m {
                let i = Int(sIndex[k])
                sCoordinates[k] = SIMD2(lon[i], lat[i])
            }
        }
        // The squares' blocks take the coordinates as two arrays.
        if !sweeping {
            for k in 0..<m {
                sLat[k] = sCoordinates[k].y
                sLon[k] = sCoordinates[k].x
            }
        }
        if let levels { for k in 0..<m { sLevel[k] = levels[Int(sIndex[k])] } }
        // Their cells are computed again from the coordinates: cheaper than a gathered read.
        let found = sweeping
            ? try sweepCells(
                cells: tiles &- 1, ends: starts, coordinates: sCoordinates, levels == nil ? nil : UnsafePointer(sLevel),
                indexes: sIndex, options: options, runs: scratch.runs, scratch: scratch)
            : try answer(
            sLat, sLon, levels == nil ? nil : UnsafePointer(sLevel), indexes: sIndex, located: nil, base: 0, fine: nil,
            count: m, found: 0, options: options, scratch: scratch)
        // Back to input order.
        // Runs cost two passes over the batch's fixes, the sort two over the pairs.
        if sweeping && found >= 2 &* n {
            Self.placeRuns(count: found, located: m, fixes: n, indexes: sIndex, scratch: scratch)
        } else {
            RadixSort.byHighWord(
                count: found, largest: UInt64(n), keys: { scratch.pairs }, spare: { scratch.pairSpare }, swap: scratch.swapPairBuffers)
        }
        return found
    }

    /// Puts the sweep's `count` pairs in input order: they are fix by fix in tile order, the
    /// located fix q (input index `indexes[q]`) having `scratch.runs[q]` of them, so each fix's
    /// run moves whole to where the fixes before it in input order end (a counting sort by
    /// fix with one count per fix, not per pair).
    /// - Complexity: O(n + count) for n fixes.
    static func placeRuns(count: Int, located m: Int, fixes n: Int, indexes: UnsafePointer<Int32>, scratch: BatchScratch) {
        let runs = scratch.runs, starts = scratch.runStarts
        starts.initialize(repeating: 0, count: n)
        for q in 0..<m { starts[Int(indexes[q])] = Int(runs[q]) }
        var sum = 0
        for i in 0..<n {
            let c = starts[i]
            starts[i] = sum
            sum &+= c
        }
        // Where each run goes, in tile order: independent reads, in flight together (read
        // inside the copy's loop, whose length changes from fix to fix, they waited in turn).
        let targets = scratch.runTargets
        for q in 0..<m { targets[q] = starts[Int(indexes[q])] }
        let source = scratch.pairs, target = scratch.pairSpare
        var from = 0
        for q in 0..<m {
            let c = Int(runs[q])
            let to = targets[q]
            for r in 0..<c { target[to &+ r] = source[from &+ r] }
            from &+= c
        }
        scratch.swapPairBuffers()
    }

    /// Fixes from which a tile-order batch moves each located fix's coordinates with it
    /// instead of gathering them after (see pass 3 of
    /// ``containingInTileOrder(_:_:_:count:options:scratch:tileBytes:sweep:moving:)``): 2¹⁸, 4 MiB of
    /// input. `geofence contains` hands over about 90,000 fixes a call, and gathers.
    static let movingMinimum = 1 << 18

    /// Bytes of fence data a tile aims for: 1 KiB, less than any directory cell holds on the
    /// peers' world, so a tile is one cell. Measured on the peers' 1M fixes (one thread, in
    /// process; 2026-11-25): one-cell tiles 26.2–27.3 M fixes/s at 10k fences and 3.46–3.55 M
    /// at 100k, where tiles of 256 KiB (a share of a core's second-level cache, the previous
    /// choice) gave 18.5–18.7 M and 3.07–3.09 M; 8–16 KiB lay between.
    static let tileBytes = 1 << 10
    /// Fixes a square tile gets at least, on average: fewer tiles than cells when the batch is
    /// small and too few for the sweep's one tile a cell, so the tiles' counts never cost more
    /// than the fixes (at most n / 4 of them). 4 and 16 measured the same.
    static let minimumFixesPerTile = 4

    /// Tiles of the grid directory: squares of 2^k × 2^k cells, about `tileBytes` of the
    /// fences' hot data each (assuming it is spread evenly over the cells) and at most `fixes`
    /// of them, numbered row by row.
    struct TileLayout {
        let shift: Int
        let columns: Int
        let count: Int

        init(directory: CellDirectory.View, hotBytes: Int, tileBytes: Int = ContainmentEvaluator.tileBytes, fixes: Int = Int.max) {
            let cells = Swift.max(1, directory.columns &* directory.rows)
            let wanted = Swift.max(1, Swift.min(fixes, hotBytes / Swift.max(1, tileBytes)))
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

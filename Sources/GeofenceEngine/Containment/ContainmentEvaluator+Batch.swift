import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry
import RealModule

extension ContainmentEvaluator {
    /// Every (fix, fence) pair where the fence contains the fix, for many fixes at once: the
    /// form Shapely's and DuckDB's users think in, and faster than one query per fix.
    ///
    /// Fixes are taken in blocks of ``BatchScratch/blockSize``: the block's cell lookups are
    /// issued together (their cache misses overlap), then its box checks, then its exact tests
    /// (circles, the polygons' classified cells, GEOS for what rounding cannot decide). With
    /// ``ContainmentPairs/Order/tiles`` the fixes are first grouped by tiles of the grid sized to the
    /// caches, so a tile's fences stay in cache while its fixes are tested, and the pairs are
    /// put back in input order. `levels[i]` is fix i's level, `Int.min` for none (no array: no level).
    ///
    /// `pairs` is replaced by the answer, in input order (fix ascending, then slot ascending); its
    /// arrays and the evaluator's scratch keep their capacity, so a warm call allocates
    /// nothing. Same pairs as ``containing(latitude:longitude:level:options:into:)`` fix by fix.
    /// A fix whose coordinate is not valid (NaN, infinite, latitude beyond ±90, longitude
    /// beyond ±180: see ``CoordinateError``) is in no pair; unlike the per-fix queries, which
    /// throw ``CoordinateError``, a batch does not stop at one bad row. To reject such rows
    /// with their reason, check `CoordinateError(Coordinate(latitude:longitude:))` first, as
    /// `geofence contains` does.
    /// - Precondition: the arrays have equal counts, below 2³¹.
    /// - Complexity: O(n) for n fixes (the sort is two or three linear passes), plus the
    ///   per-fix candidates' exact tests.
    public func containing(
        latitudes: UnsafeBufferPointer<Double>, longitudes: UnsafeBufferPointer<Double>,
        levels: UnsafeBufferPointer<Int>? = nil, options: ContainmentOptions = ContainmentOptions(),
        order: ContainmentPairs.Order = .automatic, into pairs: inout ContainmentPairs
    ) throws(GEOSError) {
        let n = Self.batchCount(latitudes, longitudes, levels)
        guard n > 0, hot.directoryEnabled else {
            pairs.removeAll()
            guard n > 0 else { return }
            // No grid: the tree answers fix by fix.
            let lat = latitudes.baseAddress!, lon = longitudes.baseAddress!, lev = levels?.baseAddress
            var slots = candidates
            candidates = []
            defer { candidates = slots }
            for i in 0..<n {
                try containing(latitude: lat[i], longitude: lon[i], level: Self.level(lev, i), options: options, into: &slots)
                for s in slots { pairs.append(fix: Int32(truncatingIfNeeded: i), slot: s) }
            }
            return
        }
        let found: Int
        do {
            found = try packedPairs(
                latitudes.baseAddress!, longitudes.baseAddress!, levels?.baseAddress, count: n, options: options, order: order)
        } catch {
            pairs.removeAll()
            throw error
        }
        pairs.fill(from: batchScratch().pairs, count: found)
    }

    /// The batch query with a grid directory (``HotPath/directoryEnabled``), its pairs left
    /// packed (`fix << 32 | slot`, in input order) at the start of `batchScratch().pairs` until
    /// the evaluator's next batch: their count is returned. ``ParallelContainmentEvaluator``
    /// copies them from there straight to their place in the batch's pairs.
    /// - Precondition: `n > 0` and the directory is enabled.
    func packedPairs(
        _ lat: UnsafePointer<Double>, _ lon: UnsafePointer<Double>, _ lev: UnsafePointer<Int>?, count n: Int,
        options: ContainmentOptions, order: ContainmentPairs.Order
    ) throws(GEOSError) -> Int {
        let scratch = batchScratch()
        if Self.takesTileOrder(order, fixes: n, hotBytes: fenceSet.hotBytes) {
            return try containingInTileOrder(lat, lon, lev, count: n, options: options, scratch: scratch)
        }
        return try blocks(lat, lon, lev, indexes: nil, count: n, options: options, scratch: scratch)
    }

    /// ``containing(latitudes:longitudes:levels:options:order:into:)`` over arrays.
    public func containing(
        latitudes: [Double], longitudes: [Double], levels: [Int]? = nil, options: ContainmentOptions = ContainmentOptions(),
        order: ContainmentPairs.Order = .automatic, into pairs: inout ContainmentPairs
    ) throws(GEOSError) {
        try Self.withBuffers(latitudes, longitudes, levels) { (lat, lon, lev) throws(GEOSError) in
            try containing(latitudes: lat, longitudes: lon, levels: lev, options: options, order: order, into: &pairs)
        }
    }

    /// Whether a batch of `n` fixes in `order` goes tile by tile (see ``ContainmentPairs/Order``),
    /// for fences of `hotBytes` of hot data.
    static func takesTileOrder(_ order: ContainmentPairs.Order, fixes n: Int, hotBytes: Int) -> Bool {
        order == .tiles || (order == .automatic && n >= sortingMinimum && hotBytes >= sortingThreshold)
    }

    /// The fixes of a batch, its arrays checked.
    /// - Precondition: the arrays have equal counts, below 2³¹.
    static func batchCount(
        _ latitudes: UnsafeBufferPointer<Double>, _ longitudes: UnsafeBufferPointer<Double>, _ levels: UnsafeBufferPointer<Int>?
    ) -> Int {
        let n = latitudes.count
        precondition(longitudes.count == n && (levels?.count ?? n) == n, "latitudes, longitudes and levels differ in count")
        precondition(n < Int(Int32.max), "a batch holds fewer than 2³¹ fixes")
        return n
    }

    /// `body` on the arrays' memory (the batch queries' array forms).
    static func withBuffers(
        _ latitudes: [Double], _ longitudes: [Double], _ levels: [Int]?,
        _ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>, UnsafeBufferPointer<Int>?) throws(GEOSError) -> Void
    ) throws(GEOSError) {
        try latitudes.withUnsafeBufferPointer { (lat) throws(GEOSError) in
            try longitudes.withUnsafeBufferPointer { (lon) throws(GEOSError) in
                guard let levels else { return try body(lat, lon, nil) }
                try levels.withUnsafeBufferPointer { (lev) throws(GEOSError) in try body(lat, lon, lev) }
            }
        }
    }

    /// Bytes of hot fence data (directory, records, cells, vertices) above which taking the
    /// fixes tile by tile pays (see ``ContainmentPairs/Order/automatic``): 256 KiB, more than a
    /// core's first-level cache holds. Only the fixes some box may hold are moved, so with 1k
    /// fences (0.6 MiB, nine fixes in ten held by no box) tile order is 1.2× input order.
    public static let sortingThreshold = 256 << 10
    /// Fixes below which a batch is not reordered: too few share a tile.
    static let sortingMinimum = 4_096

    /// The level of fix `i`, nil for none.
    @inline(__always)
    static func level(_ levels: UnsafePointer<Int>?, _ i: Int) -> Int? {
        guard let levels, levels[i] != Int.min else { return nil }
        return levels[i]
    }

    /// The evaluator's batch scratch, made on first use.
    func batchScratch() -> BatchScratch {
        if let made = batch { return made }
        let made = BatchScratch(maximumCandidates: fenceSet.directory.maximumCandidates)
        batch = made
        return made
    }

    /// The blocked query over `count` fixes, writing their pairs (`fix << 32 | slot`) to
    /// `scratch.pairs` in the order given, and returning how many; the fix index of position k
    /// is `indexes[k]`, or k when there are none.
    ///
    /// The fixes go in chunks of ``BatchScratch/chunkSize``: one tight pass locates each
    /// fix's cell and keeps only those whose cell has entries (with few fences, most cells
    /// have none); the kept fixes then go in blocks of ``BatchScratch/blockSize``, each stage
    /// over the whole block before the next starts, so the cache misses of different fixes
    /// and candidates (cell starts, boxes, records, polygon cells, edges) are in flight
    /// together instead of one after the other.
    func blocks(
        _ lat: UnsafePointer<Double>, _ lon: UnsafePointer<Double>, _ levels: UnsafePointer<Int>?,
        indexes: UnsafePointer<Int32>?, count n: Int, options: ContainmentOptions, scratch: BatchScratch
    ) throws(GEOSError) -> Int {
        let directory = hot.directory
        let located = scratch.located, locatedFine = scratch.locatedFine
        var found = 0
        var chunkBase = 0
        while chunkBase < n {
            let chunk = Swift.min(BatchScratch.chunkSize, n &- chunkBase)
            // 1. The chunk's fixes whose cell has entries.
            let listed = directory.locate(
                latitudes: lat + chunkBase, longitudes: lon + chunkBase, count: chunk, indexes: located, fine: locatedFine)
            found = try answer(
                lat, lon, levels, indexes: indexes, located: located, base: chunkBase, fine: locatedFine, count: listed,
                found: found, options: options, scratch: scratch)
            chunkBase &+= chunk
        }
        return found
    }

    /// The stages after the first pass, for `listed` located fixes: fix t is at position
    /// `base + located[t]` of `lat`, `lon` and `levels` (`base + t` without `located`), in fine
    /// cell `fine[t]` (without `fine`, its cell is computed again); its pairs go to `scratch.pairs` from `found` on, under its index there
    /// (`indexes[position]`, or the position). Returns the pairs' new count.
    func answer(
        _ lat: UnsafePointer<Double>, _ lon: UnsafePointer<Double>, _ levels: UnsafePointer<Int>?,
        indexes: UnsafePointer<Int32>?, located: UnsafePointer<Int32>?, base: Int, fine locatedFine: UnsafePointer<UInt64>?,
        count listed: Int, found pairsBefore: Int, options: ContainmentOptions, scratch: BatchScratch
    ) throws(GEOSError) -> Int {
        let hot = self.hot, directory = hot.directory
        let keys = scratch.keys, first = scratch.first, end = scratch.end, keyEnds = scratch.keyEnds, active = scratch.active
        let verdicts = scratch.verdicts, lists = scratch.lists
        let degreesToRadians = Double.pi / 180.0
        var found = pairsBefore
        do {
            var next = 0
            while next < listed {
                let a = Swift.min(BatchScratch.blockSize, listed &- next)
                // 2. The block's cells' entries.
                for j in 0..<a {
                    let position = base &+ (located.map { Int($0[next &+ j]) } ?? next &+ j)
                    active[j] = position
                    let cell: Int
                    if let locatedFine {
                        cell = directory.cell(fine: locatedFine[next &+ j])
                    } else {
                        // A located fix is inside the grid.
                        let c = directory.cellCoordinates(latitude: lat[position], longitude: lon[position])!
                        cell = c.row &* directory.columns &+ c.column
                    }
                    first[j] = Int(directory.starts[cell])
                    end[j] = Int(directory.starts[cell &+ 1])
                }
                next &+= a
                // 3. Box checks: each fix's candidate keys, by slot.
                var used = 0
                for j in 0..<a {
                    let i = active[j]
                    used &+= directory.keys(latitude: lat[i], longitude: lon[i], entries: first[j], end[j], writingTo: keys + used)
                    keyEnds[j] = used
                }
                if used == 0 { continue }
                // 4. Records: levels, circles decided, polygons located in their cells.
                var from = 0
                for j in 0..<a {
                    let to = keyEnds[j]
                    if to > from {
                        let i = active[j], y = lat[i], x = lon[i]
                        let level = Self.level(levels, i)
                        let latR = y * degreesToRadians, lonR = x * degreesToRadians
                        for k in from..<to {
                            let position = Int(UInt32(truncatingIfNeeded: keys[k]))
                            guard hot.levelMatches(position: position, level: level, options: options) else {
                                verdicts[k] = 0
                                continue
                            }
                            let low = hot.records[2 &* position], high = hot.records[2 &* position &+ 1]
                            if low.w >= 0 {
                                verdicts[k] = Sphere.capHolds(
                                    low.w, latitude1: latR, longitude1: lonR,
                                    latitude2: low.x, longitude2: low.y, cosLatitude2: low.z, sinLatitude2: high.x) ? 1 : 0
                                continue
                            }
                            if high.z.bitPattern == 0 {
                                verdicts[k] = 3
                                continue
                            }
                            let hit = hot.cells.cell(low, high, x: x, y: y)
                            if hit.from == hit.to {
                                verdicts[k] = hit.odd ? 1 : 0
                            } else {
                                verdicts[k] = hit.odd ? 6 : 2
                                lists[k] = UInt64(hit.from) | UInt64(hit.to) << 32
                            }
                        }
                    }
                    from = to
                }
                // 5. Crossed cells' edges; the edge runs of polygons without cells; GEOS for what
                //    rounding cannot decide.
                from = 0
                for j in 0..<a {
                    let to = keyEnds[j]
                    let i = active[j]
                    for k in from..<to where verdicts[k] >= 2 {
                        let y = lat[i], x = lon[i]
                        let test: PolygonTestResult
                        if verdicts[k] == 3 {
                            test = hot.polygons.test(slot: Int(UInt32(truncatingIfNeeded: keys[k])), x: x, y: y)
                        } else {
                            let list = lists[k]
                            test = hot.cells.edges(
                                PolygonCellIndex.CellHit(
                                    from: Int(list & 0xFFFF_FFFF), to: Int(list >> 32), odd: verdicts[k] == 6),
                                x: x, y: y)
                        }
                        let inside: Bool
                        switch test {
                        case .inside: inside = true
                        case .outside: inside = false
                        case .undecided: inside = try polygonCovers(slot: Int(keys[k] >> 32), latitude: y, longitude: x)
                        }
                        verdicts[k] = inside ? 1 : 0
                    }
                    from = to
                }
                // 6. The pairs, fix by fix (each fix's keys are in slot order).
                scratch.reservePairs(found &+ used, keeping: found)
                let out = scratch.pairs
                from = 0
                for j in 0..<a {
                    let to = keyEnds[j]
                    let i = active[j]
                    let fix = UInt64(UInt32(bitPattern: indexes?[i] ?? Int32(truncatingIfNeeded: i)))
                    for k in from..<to where verdicts[k] == 1 {
                        out[found] = fix << 32 | keys[k] >> 32
                        found &+= 1
                    }
                    from = to
                }
            }
        }
        return found
    }
}

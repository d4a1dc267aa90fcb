import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

extension ContainmentEvaluator {
    /// The exact stage of the tile order when every tile is one directory cell: cell by cell,
    /// fence by fence over the cell's fixes (fence-major), where the fix-major blocks of
    /// ``answer(_:_:_:indexes:located:base:fine:count:found:options:scratch:)`` go fix by fix.
    ///
    /// Fix by fix, every box check and every answer is a branch that follows no pattern (a
    /// fix's candidates alternate circles and polygons, inside and outside), and at 100k fences
    /// those mispredictions were most of a fix's time. Fence by fence the loops are uniform:
    /// one box against the cell's fixes, kept by a count that moves without a branch; one
    /// circle's estimate over the fixes its box holds; one polygon's cells, the fixes in a cell
    /// the boundary does not reach answered by its bit, the others' edges tested after.
    /// Only what rounding cannot decide takes a branch to the exact tests.
    ///
    /// The fixes of tile t are `ends[t - 1] ..< ends[t]` (from 0 for the first) of the gathered
    /// arrays; a fix's pairs are written in ascending slot order (the cell's entries are sorted
    /// by slot, merged with the large entries), so the stable sort by fix that follows puts
    /// every pair where the fix-major stage would have.
    /// - Complexity: O(e · k) box checks for the e entries and k fixes of each cell, plus the
    ///   candidates' exact tests.
    func sweepCells(
        cells: Int, ends: UnsafePointer<Int>, coordinates: UnsafePointer<SIMD2<Double>>,
        _ levels: UnsafePointer<Int>?, indexes: UnsafePointer<Int32>, options: ContainmentOptions,
        runs: UnsafeMutablePointer<Int32>, scratch: BatchScratch
    ) throws(GEOSError) -> Int {
        // No fence on a level and global fences not wanted: nothing can match.
        if !hot.anyLevelFence && !options.globalFences {
            runs.initialize(repeating: 0, count: ends[cells &- 1])
            return 0
        }
        var found = 0
        var begin = 0
        for cell in 0..<cells {
            let end = ends[cell]
            if end > begin {
                found = try sweep(
                    cell: cell, begin, end, coordinates: coordinates, levels, indexes: indexes, options: options, found: found, runs: runs,
                    scratch: scratch)
            }
            begin = end
        }
        return found
    }

    /// ``sweepCells(cells:ends:coordinates:_:indexes:options:runs:scratch:)`` for the fixes `begin ..< end`
    /// of one cell; returns the pairs' new count.
    private func sweep(
        cell: Int, _ begin: Int, _ end: Int, coordinates: UnsafePointer<SIMD2<Double>>,
        _ levels: UnsafePointer<Int>?, indexes: UnsafePointer<Int32>, options: ContainmentOptions, found pairsBefore: Int,
        runs: UnsafeMutablePointer<Int32>, scratch: BatchScratch
    ) throws(GEOSError) -> Int {
        let hot = self.hot, directory = hot.directory
        // The cell's fixes from 0: their coordinates (longitude, latitude), query boxes, radians
        // and pairs' upper halves.
        let k = end &- begin
        let coordinates = coordinates + begin, levels = levels.map { $0 + begin }, indexes = indexes + begin
        scratch.reserveSweep(k)
        let query = scratch.queries, latR = scratch.radianLatitudes, lonR = scratch.radianLongitudes
        let degreesToRadians = Double.pi / 180.0
        for j in 0..<k {
            let c = coordinates[j]
            let x = Float(c.x), y = Float(c.y)
            query[j] = SIMD4(x, y, -x, -y)
            latR[j] = c.y * degreesToRadians
            lonR[j] = c.x * degreesToRadians
        }
        let candidates = scratch.sweepCandidates
        // The cell's pairs, fence by fence (`j << 32 | slot` for the cell's fix j).
        var found = 0
        var p = Int(directory.starts[cell]), l = 0
        let cellEnd = Int(directory.starts[cell &+ 1]), largeCount = directory.largeCount
        while p < cellEnd || l < largeCount {
            // The next fence in slot order: its boxes in this cell and among the large entries
            // (a fence has two boxes when it crosses the antimeridian).
            let key = l == largeCount || (p < cellEnd && directory.slots[p] <= directory.largeSlots[l])
                ? directory.slots[p] : directory.largeSlots[l]
            let p0 = p, l0 = l
            while p < cellEnd && directory.slots[p] == key { p &+= 1 }
            while l < largeCount && directory.largeSlots[l] == key { l &+= 1 }
            var count: Int
            if p &- p0 &+ l &- l0 == 1 {
                let box = p > p0 ? directory.boxes[p0] : directory.largeBoxes[l0]
                count = 0
                for j in 0..<k {
                    candidates[count] = Int32(truncatingIfNeeded: j)
                    count &+= CellDirectory.View.holds(box, query[j])
                }
            } else {
                count = Self.inBoxes(directory, cell: p0..<p, large: l0..<l, fixes: 0..<k, query: query, into: candidates)
            }
            if count == 0 { continue }
            let position = Int(UInt32(truncatingIfNeeded: key))
            if hot.anyLevelFence {
                var kept = 0
                for c in 0..<count {
                    let j = Int(candidates[c])
                    candidates[kept] = candidates[c]
                    kept &+= hot.levelMatches(position: position, level: Self.level(levels, j), options: options) ? 1 : 0
                }
                count = kept
                if count == 0 { continue }
            }
            scratch.reserveCellPairs(found &+ count, keeping: found)
            let out = scratch.cellPairs
            let slot = key &>> 32
            let low = hot.records[2 &* position], high = hot.records[2 &* position &+ 1]
            if low.w >= 0 {
                // A circle: the plain squares for two fixes a step, in the two lanes of one SSE2
                // register; a lane they leave undecided (near the edge: rare) goes on to the
                // series and the exact term, and an odd last fix takes the one-fix test.
                var c = 0
                while c &+ 1 < count {
                    let j0 = Int(candidates[c]), j1 = Int(candidates[c &+ 1])
                    let v = Sphere.capSquares(
                        low.w, latitudes: SIMD2(latR[j0], latR[j1]), longitudes: SIMD2(lonR[j0], lonR[j1]),
                        latitude2: low.x, longitude2: low.y, cosLatitude2: low.z)
                    var v0 = Int(truncatingIfNeeded: v.x), v1 = Int(truncatingIfNeeded: v.y)
                    if v0 > 1 { v0 = circlePastSquares(low, high, latR[j0], lonR[j0]) }
                    if v1 > 1 { v1 = circlePastSquares(low, high, latR[j1], lonR[j1]) }
                    out[found] = UInt64(truncatingIfNeeded: j0) &<< 32 | slot
                    found &+= v0
                    out[found] = UInt64(truncatingIfNeeded: j1) &<< 32 | slot
                    found &+= v1
                    c &+= 2
                }
                if c < count {
                    let j = Int(candidates[c])
                    out[found] = UInt64(truncatingIfNeeded: j) &<< 32 | slot
                    found &+= circleCount(low, high, latR[j], lonR[j])
                }
            } else if high.z.bitPattern == 0 {
                // A polygon without cells: its edge runs.
                for c in 0..<count {
                    let j = Int(candidates[c])
                    let p = coordinates[j]
                    let inside = try answerBit(
                        hot.polygons.test(slot: position, x: p.x, y: p.y), slot: Int(slot), latitude: p.y, longitude: p.x)
                    out[found] = UInt64(truncatingIfNeeded: j) &<< 32 | slot
                    found &+= inside
                }
            } else {
                // A polygon's cells: the fixes in cells the boundary does not reach are answered by
                // the cells' parity; the others are kept with their cells' edges, tested after.
                let lists = scratch.sweepLists, odd = scratch.sweepOdd
                var crossed = 0
                for c in 0..<count {
                    let j = Int(candidates[c])
                    let p = coordinates[j]
                    let hit = hot.cells.cell(low, high, x: p.x, y: p.y)
                    // 1 when the cell lists edges (to > from), as arithmetic: `from != to ? 1 : 0`
                    // was compiled to a branch, mispredicted for two cells in five.
                    let isCrossed = ((0 &- (hit.to &- hit.from)) &>> 63) & 1
                    out[found] = UInt64(truncatingIfNeeded: j) &<< 32 | slot
                    found &+= (1 &- isCrossed) & (hit.odd ? 1 : 0)
                    candidates[crossed] = candidates[c]
                    lists[crossed] = UInt64(truncatingIfNeeded: hit.from) | UInt64(truncatingIfNeeded: hit.to) &<< 32
                    odd[crossed] = hit.odd
                    crossed &+= isCrossed
                }
                for c in 0..<crossed {
                    let j = Int(candidates[c])
                    let p = coordinates[j]
                    let list = lists[c]
                    let hit = PolygonCellIndex.CellHit(
                        from: Int(truncatingIfNeeded: list & 0xFFFF_FFFF), to: Int(truncatingIfNeeded: list &>> 32),
                        odd: odd[c])
                    let inside = try answerBit(
                        hot.cells.edgesWithoutBranches(hit, x: p.x, y: p.y), slot: Int(slot), latitude: p.y, longitude: p.x)
                    out[found] = UInt64(truncatingIfNeeded: j) &<< 32 | slot
                    found &+= inside
                }
            }
        }
        return transpose(scratch.cellPairs, count: found, fixes: k, indexes: indexes, into: pairsBefore, runs: runs + begin, scratch: scratch)
    }

    /// The one-fix circle test as a count (1 inside): the circle's record halves, the fix's
    /// latitude and longitude in radians.
    @inline(__always)
    private func circleCount(_ low: SIMD4<Double>, _ high: SIMD4<Double>, _ latitude: Double, _ longitude: Double) -> Int {
        Sphere.capCount(
            low.w, latitude1: latitude, longitude1: longitude,
            latitude2: low.x, longitude2: low.y, cosLatitude2: low.z, sinLatitude2: high.x)
    }

    /// The circle test's series and exact term as a count, for a fix the plain squares left
    /// undecided.
    @inline(__always)
    private func circlePastSquares(_ low: SIMD4<Double>, _ high: SIMD4<Double>, _ latitude: Double, _ longitude: Double) -> Int {
        Sphere.capCountPastSquares(
            low.w, latitude1: latitude, longitude1: longitude,
            latitude2: low.x, longitude2: low.y, cosLatitude2: low.z, sinLatitude2: high.x)
    }

    /// Moves a cell's `count` pairs (fence by fence, `j << 32 | slot` for the cell's fix j) to
    /// `scratch.pairs` from `start` on, fix by fix (`index << 32 | slot`, each fix's slots still
    /// ascending: a stable counting sort by j), and writes each fix's pair count to `runs[j]`.
    /// Returns the pairs' new count.
    /// - Complexity: O(count + fixes), in memory the size of the cell's pairs.
    @inline(__always)
    private func transpose(
        _ cellPairs: UnsafePointer<UInt64>, count: Int, fixes k: Int, indexes: UnsafePointer<Int32>, into start: Int,
        runs: UnsafeMutablePointer<Int32>, scratch: BatchScratch
    ) -> Int {
        let at = scratch.sweepStarts
        at.initialize(repeating: 0, count: k &+ 1)
        for c in 0..<count { at[Int(truncatingIfNeeded: cellPairs[c] &>> 32) &+ 1] &+= 1 }
        var sum = start
        for j in 0..<k {
            let n = at[j &+ 1]
            runs[j] = Int32(truncatingIfNeeded: n)
            at[j] = sum
            sum &+= n
        }
        scratch.reservePairs(sum, keeping: start)
        let out = scratch.pairs
        for c in 0..<count {
            let pair = cellPairs[c]
            let j = Int(truncatingIfNeeded: pair &>> 32)
            out[at[j]] = UInt64(UInt32(bitPattern: indexes[j])) &<< 32 | pair & 0xFFFF_FFFF
            at[j] &+= 1
        }
        return sum
    }

    /// The fixes (of `fixes`) some box of one fence holds, each once: its boxes in the cell
    /// (`cell`, positions in the directory's entries) and among the large entries (`large`).
    /// The rare path of ``sweep``: a fence with more than one box.
    private static func inBoxes(
        _ directory: CellDirectory.View, cell: Range<Int>, large: Range<Int>, fixes: Range<Int>,
        query: UnsafePointer<SIMD4<Float>>, into candidates: UnsafeMutablePointer<Int32>
    ) -> Int {
        var count = 0
        for j in fixes {
            var held = false
            for p in cell where all(directory.boxes[p] .<= query[j]) { held = true }
            for l in large where all(directory.largeBoxes[l] .<= query[j]) { held = true }
            candidates[count] = Int32(truncatingIfNeeded: j)
            count &+= held ? 1 : 0
        }
        return count
    }
}

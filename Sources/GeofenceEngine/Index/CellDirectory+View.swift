import GeofenceGeometry

extension CellDirectory {
    /// The directory as plain numbers and pointers, for hot loops (valid while `self` lives).
    var view: View {
        View(
            minLongitude: minLongitude, minLatitude: minLatitude, maxLongitude: maxLongitude, maxLatitude: maxLatitude,
            inverseCellWidth: inverseCellWidth, inverseCellHeight: inverseCellHeight, columns: columns, rows: rows,
            starts: starts.pointer, occupied: occupied.pointer, boxes: boxes.pointer, slots: slots.pointer, largeBoxes: largeBoxes.pointer,
            largeSlots: largeSlots.pointer, largeCount: largeCount, maximumCandidates: maximumCandidates, fineShift: fineShift)
    }

    /// The search over raw pointers: no reference counting per query.
    struct View {
        let minLongitude, minLatitude, maxLongitude, maxLatitude: Double
        let inverseCellWidth, inverseCellHeight: Double
        let columns, rows: Int
        let starts: UnsafePointer<UInt32>
        let occupied: UnsafePointer<UInt64>
        let boxes: UnsafePointer<SIMD4<Float>>
        let slots: UnsafePointer<UInt64>
        let largeBoxes: UnsafePointer<SIMD4<Float>>
        let largeSlots: UnsafePointer<UInt64>
        let largeCount: Int
        let maximumCandidates: Int
        let fineShift: Int

        /// The column and row of the point's cell, or nil outside the grid (or NaN).
        @inline(__always)
        func cellCoordinates(latitude: Double, longitude: Double) -> (column: Int, row: Int)? {
            guard longitude >= minLongitude, longitude <= maxLongitude, latitude >= minLatitude, latitude <= maxLatitude
            else { return nil }
            return (Swift.min(columns &- 1, Int((longitude - minLongitude) * inverseCellWidth)),
                    Swift.min(rows &- 1, Int((latitude - minLatitude) * inverseCellHeight)))
        }

        /// Where the point's cell's entries are in `boxes` and `slots`: `first ..< end`; end −1
        /// outside the grid (or for NaN), where no entry can hold the point. A batch reads these
        /// for a block of points first, so their cache misses overlap.
        @inline(__always)
        func entries(latitude: Double, longitude: Double) -> (first: Int, end: Int) {
            let coverage = PointCoverage(self)
            guard let fine = coverage.fine(latitude: latitude, longitude: longitude) else { return (0, -1) }
            // A fine cell no box reaches (most of them with few fences) answers from the bits
            // alone; large entries are checked for every point.
            if largeCount == 0 && !coverage.isReached(fine) { return (0, 0) }
            return entries(cell: coverage.cell(fine))
        }

        /// The entries of directory cell `cell`: `first ..< end` in `boxes` and `slots`.
        @inline(__always)
        func entries(cell: Int) -> (first: Int, end: Int) {
            (Int(starts[cell]), Int(starts[cell &+ 1]))
        }

        /// The fixes among the first `count` of `lat`/`lon` that may have candidates, in order:
        /// their indexes into `indexes` and their fine cells into `fine` (column | row << 32;
        /// ``cell(fine:)`` gives the cell); returns how many. Those are the fixes in a fine cell
        /// some entry's box reaches, or with large entries every fix inside the grid.
        ///
        /// A batch's first pass: one tight loop, where a fix in an empty fine cell costs the
        /// cell's computation and one bit of a table that stays in the cache, and nothing else
        /// (the cells' starts are read later, for the fixes kept only). Not inlined: alone, its
        /// few loop values stay in registers (inlined into the batch's large loop they were
        /// spilled to the stack and reloaded for every fix). It is ``PointCoverage/fineCell(latitude:longitude:)``
        /// and ``PointCoverage/reachedBit(_:)`` folded without a branch; `LocateTwinTests` checks
        /// it point by point against the plain ``PointCoverage/fine(latitude:longitude:)`` and
        /// ``PointCoverage/isReached(_:)``. With 1k fences, where this pass is half of a batch,
        /// 7.1–7.6 → 6.1–6.7 ms a million fixes.
        /// - Complexity: O(count).
        @inline(never)
        func locate(
            latitudes lat: UnsafePointer<Double>, longitudes lon: UnsafePointer<Double>, count n: Int,
            indexes: UnsafeMutablePointer<Int32>, fine: UnsafeMutablePointer<UInt64>
        ) -> Int {
            locating(lat, lon, count: n, indexes: indexes, fine: fine, coordinates: nil)
        }

        /// ``locate(latitudes:longitudes:count:indexes:fine:)`` that also writes each kept fix's
        /// coordinates, side by side, to `coordinates` (longitude, latitude as x, y), for the tile
        /// order to move with the fix: a sequential write here, where the fix's values are at
        /// hand, instead of two reads of the input later, each a cache miss.
        /// - Complexity: O(count).
        @inline(never)
        func locate(
            latitudes lat: UnsafePointer<Double>, longitudes lon: UnsafePointer<Double>, count n: Int,
            indexes: UnsafeMutablePointer<Int32>, fine: UnsafeMutablePointer<UInt64>,
            coordinates: UnsafeMutablePointer<SIMD2<Double>>
        ) -> Int {
            locating(lat, lon, count: n, indexes: indexes, fine: fine, coordinates: coordinates)
        }

        /// The loop of both `locate`s (inlined into each, so the one without coordinates has no
        /// test for them).
        @inline(__always)
        private func locating(
            _ lat: UnsafePointer<Double>, _ lon: UnsafePointer<Double>, count n: Int,
            indexes: UnsafeMutablePointer<Int32>, fine: UnsafeMutablePointer<UInt64>,
            coordinates: UnsafeMutablePointer<SIMD2<Double>>?
        ) -> Int {
            let coverage = PointCoverage(self)
            // Large entries are checked for every point: every fix inside the grid goes on.
            let everyFix = largeCount > 0 ? 1 : 0
            var a = 0
            for i in 0..<n {
                // A point outside the grid (or not a number) has a fine cell in bounds, not kept.
                let f = coverage.fineCell(latitude: lat[i], longitude: lon[i])
                // Written for every fix, kept (the count moves on) only when its fine cell is reached.
                indexes[a] = Int32(truncatingIfNeeded: i)
                fine[a] = UInt64(truncatingIfNeeded: f.column) | UInt64(truncatingIfNeeded: f.row) &<< 32
                if let coordinates { coordinates[a] = SIMD2(lon[i], lat[i]) }
                a &+= (coverage.reachedBit((f.column, f.row)) | everyFix) & (f.inside ? 1 : 0)
            }
            return a
        }

        /// The cell of a fine cell from ``locate(latitudes:longitudes:count:indexes:fine:)``.
        @inline(__always)
        func cell(fine: UInt64) -> Int {
            let fx = Int(truncatingIfNeeded: fine & 0xFFFF_FFFF), fy = Int(truncatingIfNeeded: fine &>> 32)
            return (fy &>> fineShift) &* columns &+ (fx &>> fineShift)
        }

        /// Writes the candidate keys of the point to `out` (room for ``CellDirectory/maximumCandidates``)
        /// in ascending slot order, each once, and returns how many. No allocation.
        @inline(__always)
        func searchKeys(latitude: Double, longitude: Double, writingTo out: UnsafeMutablePointer<UInt64>) -> Int {
            let (first, end) = entries(latitude: latitude, longitude: longitude)
            return keys(latitude: latitude, longitude: longitude, entries: first, end, writingTo: out)
        }

        /// ``searchKeys(latitude:longitude:writingTo:)`` given the point's ``entries(latitude:longitude:)``.
        @inline(__always)
        func keys(latitude: Double, longitude: Double, entries first: Int, _ end: Int, writingTo out: UnsafeMutablePointer<UInt64>) -> Int {
            if first == end && largeCount == 0 || end < 0 { return 0 }
            var n = 0
            let x = Float(longitude), y = Float(latitude)
            let query = SIMD4(x, y, -x, -y)
            var last = UInt64.max
            var p = first
            // Without a branch on the box: the entry's key is written each time and kept when
            // the box holds the point (and the key is not the last kept one: a fence's two boxes
            // can share a cell only in a world-wide grid). Its box and key are read together,
            // not the key after the box's test, and no misprediction follows a box.
            while p < end {
                let key = slots[p]
                let held = (Self.holds(boxes[p], query) != 0) && key != last
                out[n] = key
                n &+= held ? 1 : 0
                last = held ? key : last
                p &+= 1
            }
            if largeCount > 0 {
                let before = n
                for k in 0..<largeCount where all(largeBoxes[k] .<= query) { out[n] = largeSlots[k]; n &+= 1 }
                if n > before && before > 0 {
                    // Merge: insertion sort of the whole run, then drop repeats.
                    for i in 1..<n {
                        let v = out[i]
                        var j = i
                        while j > 0 && out[j - 1] > v { out[j] = out[j - 1]; j -= 1 }
                        out[j] = v
                    }
                    var w = 1
                    for r in 1..<n where out[r] != out[w - 1] { out[w] = out[r]; w += 1 }
                    n = w
                }
            }
            return n
        }

        /// 1 when the stored box (minLon, minLat, −maxLon, −maxLat) holds the query (x, y, −x, −y),
        /// else 0, as arithmetic on the comparison's lanes (`all(…) ? 1 : 0` became a branch).
        @inline(__always)
        static func holds(_ box: SIMD4<Float>, _ query: SIMD4<Float>) -> Int {
            let lanes = unsafeBitCast(box .<= query, to: SIMD4<Int32>.self)
            return Int(truncatingIfNeeded: lanes[0] & lanes[1] & lanes[2] & lanes[3] & 1)
        }

        /// ``searchKeys(latitude:longitude:writingTo:)`` appending to an array.
        func search(latitude: Double, longitude: Double, into result: inout [UInt64]) {
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Swift.max(1, maximumCandidates)) { buffer in
                let n = searchKeys(latitude: latitude, longitude: longitude, writingTo: buffer.baseAddress!)
                result.append(contentsOf: buffer[0..<n])
            }
        }
    }
}

import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

/// What the containment query does for a set of fixes, counted step by step: the figures
/// behind "exact tests per fix" (`geofence-bench contains --work`).
package struct ContainmentWorkCounts: Sendable, Equatable {
    /// Fixes counted.
    package var fixes = 0
    /// Fixes in a fine cell some box reaches (the others cost one bit).
    package var located = 0
    /// Directory entries whose boxes were checked.
    package var entries = 0
    /// Candidates: boxes holding the fix (one per fence) whose fence the level rule lets through.
    package var candidates = 0
    /// Circle tests.
    package var circles = 0
    /// Polygon candidates answered by their cell's bit alone, with no edge test.
    package var polygonCells = 0
    /// Polygon candidates in a crossed cell, and the listed edges they tested.
    package var crossedCells = 0
    package var crossedEdges = 0
    /// Polygon candidates without cells (the run test).
    package var edgeRuns = 0
    /// The edges the run test (``PolygonEdgeIndex``, the polygon test before the cells) would
    /// have tested for the same polygon candidates: the "before" of ``crossedEdges``.
    package var runTestEdges = 0
    /// Polygon answers GEOS settled (the point within rounding of an edge).
    package var undecided = 0
    /// Pairs found.
    package var pairs = 0

    package init() {}

    /// Exact tests: circle tests, crossed cells and edge runs (a cell bit is no test).
    package var exactTests: Int { circles + crossedCells + edgeRuns }
}

extension ContainmentEvaluator {
    /// Counts the work of the grid directory's query for each fix (see
    /// ``ContainmentWorkCounts``), the steps taken one by one as the batch and per-fix paths
    /// take them, for fixes without a level and the default options (a fence on a level is not
    /// a candidate). Without a grid directory (the tree answers) only fixes and pairs are
    /// counted. Slow (instrumented): for reports, never for answers, though its pairs count is
    /// checked against the query's.
    /// - Complexity: that of the query.
    package func workCounts(latitudes: UnsafeBufferPointer<Double>, longitudes: UnsafeBufferPointer<Double>) throws(GEOSError)
        -> ContainmentWorkCounts
    {
        var counts = ContainmentWorkCounts()
        let hot = self.hot, directory = hot.directory
        guard hot.directoryEnabled else {
            var slots: [Int32] = []
            for i in 0..<latitudes.count {
                try containing(latitude: latitudes[i], longitude: longitudes[i], level: nil, into: &slots)
                counts.fixes += 1
                counts.pairs += slots.count
            }
            return counts
        }
        let options = ContainmentOptions()
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: Swift.max(1, directory.maximumCandidates))
        defer { keys.deallocate() }
        for i in 0..<latitudes.count {
            let y = latitudes[i], x = longitudes[i]
            counts.fixes += 1
            let (first, end) = directory.entries(latitude: y, longitude: x)
            guard end >= 0, first != end || directory.largeCount > 0 else { continue }
            counts.located += 1
            counts.entries += end - first + directory.largeCount
            let found = directory.keys(latitude: y, longitude: x, entries: first, end, writingTo: keys)
            // The level rule first, as the query applies it.
            var n = 0
            for k in 0..<found where hot.levelMatches(position: Int(UInt32(truncatingIfNeeded: keys[k])), level: nil, options: options) {
                keys[n] = keys[k]
                n += 1
            }
            counts.candidates += n
            for k in 0..<n {
                let position = Int(UInt32(truncatingIfNeeded: keys[k]))
                let low = hot.records[2 * position], high = hot.records[2 * position + 1]
                let inside: Bool
                if low.w >= 0 {
                    counts.circles += 1
                    inside = try covers(slot: Int(keys[k] >> 32), latitude: y, longitude: x)
                } else {
                    counts.runTestEdges += Self.runTestEdges(hot.polygons, position: position, x: x, y: y)
                    let test: PolygonTestResult
                    if high.z.bitPattern == 0 {
                        counts.edgeRuns += 1
                        test = hot.polygons.test(slot: position, x: x, y: y)
                    } else {
                        let hit = hot.cells.cell(low, high, x: x, y: y)
                        if hit.from == hit.to {
                            counts.polygonCells += 1
                        } else {
                            counts.crossedCells += 1
                            counts.crossedEdges += hit.to - hit.from
                        }
                        test = hot.cells.edges(hit, x: x, y: y)
                    }
                    switch test {
                    case .inside: inside = true
                    case .outside: inside = false
                    case .undecided:
                        counts.undecided += 1
                        inside = try polygonCovers(slot: Int(keys[k] >> 32), latitude: y, longitude: x)
                    }
                }
                if inside { counts.pairs += 1 }
            }
        }
        return counts
    }

    /// The edges ``PolygonEdgeIndex/View/test(slot:x:y:)`` examines for the point: those of
    /// the runs whose latitude span holds it and which reach east of it (all of them, as when
    /// no edge stops the test early).
    static func runTestEdges(_ runs: PolygonEdgeIndex.View, position: Int, x: Double, y: Double) -> Int {
        let range = runs.slotChunks[position]
        guard range.y > 0 else { return 0 }
        var edges = 0
        for c in Int(range.x)..<Int(range.x + range.y) {
            let b = runs.chunkBounds[c]
            if y < b.x || y > b.y || x > b.z { continue }
            edges += Int(runs.chunkRanges[c].y)
        }
        return edges
    }
}

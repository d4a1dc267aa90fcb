import GeofenceTestSupport
import Testing
@_spi(Engine) import GeofenceGeometry
@testable import GeofenceEngine

/// The batch's fence-by-fence sweep of each cell against its twins: the fix-major blocks of
/// the same tile order, and the scan, fix by fix, in input order.
@Suite("Cell sweep")
struct CellSweepTwinTests {
    /// Pairs of the scan, fix by fix (`fix << 32 | slot`), for one level array and options.
    static func scan(
        _ evaluator: ContainmentEvaluator, _ points: [Coordinate], levels: [Int]?, options: ContainmentOptions
    ) throws -> [UInt64] {
        var expected: [UInt64] = []
        for (k, p) in points.enumerated() {
            let level = levels.flatMap { $0[k] == Int.min ? nil : $0[k] }
            let slots = try evaluator.containingByScan(latitude: p.latitude, longitude: p.longitude, level: level, options: options)
            expected += slots.map { UInt64(k) << 32 | UInt64($0) }
        }
        return expected
    }

    /// The tile order's pairs, the sweep on or off, the coordinates moved with the fixes or
    /// gathered after.
    static func tileOrder(
        _ evaluator: ContainmentEvaluator, _ points: [Coordinate], levels: [Int]?, options: ContainmentOptions, sweep: Bool,
        moving: Bool = false
    ) throws -> [UInt64] {
        let latitudes = points.map(\.latitude), longitudes = points.map(\.longitude)
        let scratch = evaluator.batchScratch()
        let found = try latitudes.withUnsafeBufferPointer { lat in
            try longitudes.withUnsafeBufferPointer { lon in
                try withLevels(levels) { lev in
                    try evaluator.containingInTileOrder(
                        lat.baseAddress!, lon.baseAddress!, lev, count: points.count, options: options, scratch: scratch, sweep: sweep,
                        moving: moving)
                }
            }
        }
        return Array(UnsafeBufferPointer(start: scratch.pairs, count: found))
    }

    static func withLevels<T>(_ levels: [Int]?, _ body: (UnsafePointer<Int>?) throws -> T) rethrows -> T {
        guard let levels else { return try body(nil) }
        return try levels.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// Dense fences (several pairs a fix, so the pairs are placed by runs), fences too wide for
    /// the cells (the large entries merged into each cell's), fences split at the antimeridian
    /// (two boxes) and caps over the pole, with and without levels, under every option.
    @Test("the sweep equals the fix-major blocks and the scan", arguments: testSeeds(sized(full: 2, quick: 1), base: 71))
    func sweepEqualsTwins(seed: UInt64) throws {
        for (name, base) in IndexedContainmentTests.worlds {
            var rng = SeededGenerator(seed: seed)
            let (world, fences) = base.denseFences(&rng)
            let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
            let directory = evaluator.hot.directory
            #expect(evaluator.hot.directoryEnabled, "seed \(seed) \(name): no directory")
            // Enough fixes for one tile per cell (the antimeridian's grid spans every longitude).
            let cells = directory.columns * directory.rows
            var points = world.queryPoints(count: max(sized(full: 3_000, quick: 800), cells / 4 + 100), fences: fences, &rng)
            points += [Coordinate(latitude: .nan, longitude: 0), points[0], points[0]]
            // One tile per cell: the sweep runs.
            let m = points.count
            let layout = ContainmentEvaluator.TileLayout(directory: directory, hotBytes: Int.max, tileBytes: 1, fixes: m)
            #expect(layout.shift == 0, "seed \(seed) \(name): \(directory.columns * directory.rows) cells for \(m) fixes")
            let levels = points.map { _ in rng.chance(0.4) ? Int.min : rng.int(0...2) }
            var densest = 0
            // Every option with and without levels under `make test-long`; under `make test`
            // each option once, levels on for the two that concern them (the scan, run for
            // each, takes most of the time).
            let all = [ContainmentOptions(), ContainmentOptions(levelFences: false), ContainmentOptions(globalFences: false)]
            let cases = sized(
                full: [false, true].flatMap { withLevels in all.map { (withLevels, $0) } },
                quick: [(false, all[0]), (true, all[1]), (true, all[2])])
            for (withLevels, options) in cases {
                let lev = withLevels ? levels : nil
                let expected = try Self.scan(evaluator, points, levels: lev, options: options)
                for moving in [false, true] {
                    let swept = try Self.tileOrder(evaluator, points, levels: lev, options: options, sweep: true, moving: moving)
                    let blocks = try Self.tileOrder(evaluator, points, levels: lev, options: options, sweep: false, moving: moving)
                    #expect(swept == expected, "seed \(seed) \(name) levels \(withLevels) \(options) moving \(moving): sweep \(swept.count) pairs, scan \(expected.count)")
                    #expect(blocks == expected, "seed \(seed) \(name) levels \(withLevels) \(options) moving \(moving): blocks \(blocks.count) pairs, scan \(expected.count)")
                }
                densest = max(densest, expected.count)
            }
            // The placement by runs is taken from two pairs a fix.
            #expect(densest >= 2 * points.count, "seed \(seed) \(name): \(densest) pairs for \(points.count) fixes")
        }
    }

    /// Caps over the pole make the grid one cell wide, so circles split at the antimeridian
    /// (not reaching the pole) have both their boxes in one cell: a fix in either is one pair.
    @Test("a fence with both its boxes in one cell", arguments: testSeeds(2, base: 75))
    func twoBoxesInOneCell(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var fences = (0..<20).map { k in
            Fence(geofenceID: "cap\(k)", shape: .circle(
                center: Coordinate(latitude: 89.995, longitude: rng.double(-180...180)), radius: rng.double(700...2_000)))
        }
        let centers = (0..<10).map { _ in Coordinate(latitude: rng.double(89.985...89.99), longitude: 180 - rng.double(0...0.01)) }
        fences += centers.enumerated().map { Fence(geofenceID: "split\($0.offset)", shape: .circle(center: $0.element, radius: 300)) }
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        // Some cell lists one fence twice.
        let directory = evaluator.fenceSet.directory
        let keys = directory.slots, starts = directory.starts
        let twice = (0..<(starts.count - 1)).contains { c in
            (Int(starts[c]) + 1 ..< Int(starts[c + 1])).contains { keys[$0] == keys[$0 - 1] }
        }
        #expect(twice, "seed \(seed): no fence with two boxes in a cell")
        let points = (0..<6_000).map { _ in
            Sphere.destination(from: centers[rng.int(0...9)], distance: rng.double(0...400), bearing: rng.double(0...(2 * .pi)))
        }
        let expected = try Self.scan(evaluator, points, levels: nil, options: ContainmentOptions())
        let swept = try Self.tileOrder(evaluator, points, levels: nil, options: ContainmentOptions(), sweep: true)
        #expect(swept == expected, "seed \(seed): sweep \(swept.count) pairs, scan \(expected.count)")
        // The per-fix query's box step keeps such a fence once too.
        var perFix: [UInt64] = [], slots: [Int32] = []
        for (k, p) in points.enumerated() {
            try evaluator.containing(latitude: p.latitude, longitude: p.longitude, level: nil, into: &slots)
            perFix += slots.map { UInt64(k) << 32 | UInt64($0) }
        }
        #expect(perFix == expected, "seed \(seed): per fix \(perFix.count) pairs, scan \(expected.count)")
    }

    /// A fence crossing the antimeridian whose one box is too large for the cells (a large
    /// entry, merged into every cell's) and whose other box sits in cells: a fix in either is
    /// one pair, in the sweep as in the scan.
    @Test("a fence with one box among the large entries and one in the cells", arguments: testSeeds(sized(full: 2, quick: 1), base: 79))
    func largeAndCellBoxes(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let world = RandomWorld.antimeridian
        var fences = world.fences(count: 300, &rng)
        // Centred 2.2° west of the antimeridian and reaching 0.001° beyond it: a box of 4.4°
        // (hundreds of cells: large) and a sliver one cell wide.
        let center = Coordinate(latitude: world.center.latitude, longitude: 177.8)
        let radius = Sphere.distance(center, Coordinate(latitude: center.latitude, longitude: -179.999))
        fences.append(Fence(geofenceID: "straddling", shape: .circle(center: center, radius: radius)))
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        let directory = evaluator.fenceSet.directory
        let large = Set((0..<directory.largeSlots.count).map { directory.largeSlots[$0] })
        let inCells = Set((0..<directory.slots.count).map { directory.slots[$0] })
        #expect(!large.intersection(inCells).isEmpty, "seed \(seed): no fence with boxes both large and in cells (\(large.count) large, \(directory.columns) × \(directory.rows) cells)")
        let cells = directory.columns * directory.rows
        // `make test`: fewer world fixes (the scan of each takes the time), the same two clusters.
        var points = world.queryPoints(count: sized(full: max(3_000, cells / 4 + 100), quick: 1_000), fences: fences, &rng)
        let cluster = sized(full: 1_000, quick: 600)
        points += (0..<cluster).map { _ in
            Sphere.destination(from: center, distance: rng.double(0...(radius * 1.05)), bearing: rng.double(0...(2 * .pi)))
        }
        // Around the sliver (a few hundred metres wide).
        let sliver = Coordinate(latitude: center.latitude, longitude: -179.9995)
        points += (0..<cluster).map { _ in
            Sphere.destination(from: sliver, distance: rng.double(0...4_000), bearing: rng.double(0...(2 * .pi)))
        }
        let expected = try Self.scan(evaluator, points, levels: nil, options: ContainmentOptions())
        let swept = try Self.tileOrder(evaluator, points, levels: nil, options: ContainmentOptions(), sweep: true)
        #expect(swept == expected, "seed \(seed): sweep \(swept.count) pairs, scan \(expected.count)")
    }

    /// The instrumented walk behind `geofence-bench contains --work` finds the query's pairs,
    /// and its counts add up: every candidate is a circle or a polygon, every polygon candidate
    /// is answered by its cell or tested on its crossed cell's edges.
    @Test("the step counts find the query's pairs and add up", arguments: testSeeds(2, base: 77))
    func workCounts(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var world = RandomWorld.city
        world.levelShare = 0
        let fences = world.fences(count: 500, &rng)
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        let points = world.queryPoints(count: 4_000, fences: fences, &rng)
        let latitudes = points.map(\.latitude), longitudes = points.map(\.longitude)
        var pairs = ContainmentPairs()
        try evaluator.containing(latitudes: latitudes, longitudes: longitudes, into: &pairs)
        let c = try latitudes.withUnsafeBufferPointer { lat in
            try longitudes.withUnsafeBufferPointer { lon in try evaluator.workCounts(latitudes: lat, longitudes: lon) }
        }
        #expect(c.fixes == points.count && c.pairs == pairs.count, "seed \(seed): \(c.pairs) pairs counted, \(pairs.count) found")
        #expect(c.candidates == c.circles + c.polygonCells + c.crossedCells + c.edgeRuns, "seed \(seed): \(c)")
        #expect(c.exactTests >= c.pairs - c.polygonCells && c.entries >= c.candidates && c.located <= c.fixes, "seed \(seed): \(c)")
        #expect(c.crossedEdges >= c.crossedCells && c.runTestEdges > 0, "seed \(seed): \(c)")
    }

    /// The circle estimate without branches (which the cap test now starts from) against the
    /// direct computation, at and around the edge of circles of every size, and far from them.
    @Test("the circle estimate agrees with the direct computation", arguments: testSeeds(2, base: 73))
    func capEstimate(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let world = RandomWorld.city
        var total = 0, undecided = 0
        for _ in 0..<2_000 {
            let center = world.point(&rng)
            let radius = rng.logUniform(1, 50_000)
            let threshold = Sphere.capThreshold(radius: radius)
            let lat2 = center.latitude * Sphere.degreesToRadians, lon2 = center.longitude * Sphere.degreesToRadians
            for _ in 0..<8 {
                let d = rng.chance(0.5) ? radius * (1 + rng.double(-1e-9...1e-9)) : radius * rng.double(0...3)
                let p = Sphere.destination(from: center, distance: d, bearing: rng.double(0...(2 * .pi)))
                let lat1 = p.latitude * Sphere.degreesToRadians, lon1 = p.longitude * Sphere.degreesToRadians
                // The direct computation, with `cos` of both latitudes.
                let holds = Sphere.haversineTerm(
                    latitude1: lat1, longitude1: lon1, cosLatitude1: Double.cos(lat1),
                    latitude2: lat2, longitude2: lon2, cosLatitude2: Double.cos(lat2)) <= threshold
                let estimate = Sphere.capEstimate(
                    threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2,
                    cosLatitude2: Double.cos(lat2), sinLatitude2: Double.sin(lat2))
                #expect(estimate == 2 || (estimate == 1) == holds, "seed \(seed): radius \(radius) at \(d) m: estimate \(estimate), test \(holds)")
                total += 1
                if estimate == 2 { undecided += 1 }
            }
        }
        // Undecided only within about a nanometre a kilometre of the edge (half the probes lie
        // within 1e-9 of the radius) or beyond 0.01 rad: most probes are decided.
        #expect(undecided < total * 6 / 10, "seed \(seed): \(undecided) of \(total) undecided")
        // Not a number, or far: undecided, and the cap test then says outside.
        for bad in [Double.nan, .infinity, 1.0] {
            let estimate = Sphere.capEstimate(
                Sphere.capThreshold(radius: 100), latitude1: bad, longitude1: 0.5, latitude2: 0.5, longitude2: 0.5,
                cosLatitude2: Double.cos(0.5), sinLatitude2: Double.sin(0.5))
            #expect(estimate == 2, "latitude \(bad): estimate \(estimate)")
            #expect(!Sphere.capHolds(
                Sphere.capThreshold(radius: 100), latitude1: bad, longitude1: 0.5, latitude2: 0.5, longitude2: 0.5,
                cosLatitude2: Double.cos(0.5), sinLatitude2: Double.sin(0.5)))
        }
    }
}

import GeofenceTestSupport
import Testing
@_spi(Engine) import GeofenceGeometry
@testable import GeofenceEngine

/// The batch on several threads against its twins: one evaluator's batch query, and the
/// scan fix by fix.
@Suite("Parallel containment")
struct ParallelContainmentTests {
    /// A seeded world dense enough for several pairs a fix (a wide fence over it all), its
    /// fixes (some outside every box, one not a number) and levels.
    struct Case {
        let fences: [Fence]
        let set: FenceSet
        let points: [Coordinate]
        let levels: [Int]

        init(_ base: RandomWorld, seed: UInt64, fixes: Int) throws {
            var rng = SeededGenerator(seed: seed)
            let (world, fences) = base.denseFences(&rng)
            self.fences = fences
            set = try FenceSet(fences)
            var points = world.queryPoints(count: fixes, fences: fences, &rng)
            points[fixes / 2] = Coordinate(latitude: .nan, longitude: 0)
            self.points = points
            levels = points.map { _ in rng.chance(0.4) ? Int.min : rng.int(0...2) }
        }

        var latitudes: [Double] { points.map(\.latitude) }
        var longitudes: [Double] { points.map(\.longitude) }
    }

    /// Expects two lists of pairs to be equal, naming the first difference when they are not
    /// (an expectation on the lists themselves would print them whole).
    static func expectSame(_ a: [UInt64], _ b: [UInt64], _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let common = min(a.count, b.count)
        let k = (0..<common).first { a[$0] != b[$0] } ?? (a.count == b.count ? nil : common)
        func show(_ list: [UInt64], _ k: Int) -> String { k < list.count ? "fix \(list[k] >> 32) slot \(list[k] & 0xFFFF_FFFF)" : "the end" }
        let difference = k.map { "; first difference at pair \($0): \(show(a, $0)) against \(show(b, $0))" } ?? ""
        #expect(k == nil, "\(message)\(difference)", sourceLocation: sourceLocation)
    }

    static func packed(_ pairs: ContainmentPairs) -> [UInt64] {
        (0..<pairs.count).map { UInt64(UInt32(bitPattern: pairs.fixes[$0])) << 32 | UInt64(UInt32(bitPattern: pairs.slots[$0])) }
    }

    /// One evaluator's batch query: the twin.
    static func single(_ c: Case, levels: [Int]?, options: ContainmentOptions, order: ContainmentPairs.Order) throws -> [UInt64] {
        var pairs = ContainmentPairs()
        try ContainmentEvaluator(fenceSet: c.set).containing(
            latitudes: c.latitudes, longitudes: c.longitudes, levels: levels, options: options, order: order, into: &pairs)
        return packed(pairs)
    }

    /// The split by ranges equals one evaluator and the scan, with and without levels, under
    /// every option, in both orders and with one range, one a thread or four; and so does the
    /// public call, in every order.
    @Test("the ranges equal one evaluator and the scan", arguments: testSeeds(sized(full: 2, quick: 1), base: 301))
    func equalsTwins(seed: UInt64) throws {
        for (name, base) in IndexedContainmentTests.worlds {
            let probe = try Case(base, seed: seed, fixes: 1)
            let cells = probe.set.directory.view.columns * probe.set.directory.view.rows
            // At least a tile a cell; the dense pole world (every fence over the pole, many
            // exact tests a fix) at 800 fixes under `make test`.
            let c = try Case(base, seed: seed, fixes: max(sized(full: 3_000, quick: 800), cells / 4 + 500))
            // Three threads: ranges of unequal sizes.
            let team = try [3, 2].map { try ParallelContainmentEvaluator(fenceSet: c.set, threads: $0, minimumFixes: 500) }
            // Every option with and without levels under `make test-long`; under `make test`
            // (and `make sanitize`) each option once, levels on for the two that concern them.
            let all = [ContainmentOptions(), ContainmentOptions(levelFences: false), ContainmentOptions(globalFences: false)]
            let cases = sized(
                full: [false, true].flatMap { withLevels in all.map { (withLevels, $0) } },
                quick: [(false, all[0]), (true, all[1]), (true, all[2])])
            for (withLevels, options) in cases {
                let levels = withLevels ? c.levels : nil
                let expected = try Self.single(c, levels: levels, options: options, order: .input)
                if !withLevels && options == ContainmentOptions() {
                    let scanned = try CellSweepTwinTests.scan(ContainmentEvaluator(fenceSet: c.set), c.points, levels: levels, options: options)
                    Self.expectSame(expected, scanned, "seed \(seed) \(name): one evaluator \(expected.count) pairs, scan \(scanned.count)")
                }
                for parallel in team.prefix(1) {
                    let what = "seed \(seed) \(name) threads \(parallel.threads) levels \(withLevels) \(options)"
                    // One range a thread and tile order, four a thread and input order, and one range.
                    for (order, ranges) in [(ContainmentPairs.Order.tiles, parallel.threads), (.input, 4 * parallel.threads), (.input, 1)] {
                        let got = try Self.run(parallel, c, levels: levels, options: options) { input, pairs in
                            try parallel.splitByFixes(input, order: order, ranges: ranges, into: &pairs)
                        }
                        Self.expectSame(got, expected, "\(what) \(order) \(ranges) ranges: \(got.count) pairs, one evaluator \(expected.count)")
                    }
                }
            }
            // The public call, in each order, on both.
            let expected = try Self.single(c, levels: c.levels, options: ContainmentOptions(), order: .input)
            for parallel in team {
                for order in [ContainmentPairs.Order.automatic, .input, .tiles] {
                    var pairs = ContainmentPairs()
                    try parallel.containing(latitudes: c.latitudes, longitudes: c.longitudes, levels: c.levels, order: order, into: &pairs)
                    Self.expectSame(Self.packed(pairs), expected, "seed \(seed) \(name) threads \(parallel.threads) \(order): public call \(pairs.count) pairs, one evaluator \(expected.count)")
                }
            }
        }
    }

    /// One of the evaluator's ways over the case's arrays.
    static func run(
        _ parallel: ParallelContainmentEvaluator, _ c: Case, levels: [Int]?, options: ContainmentOptions,
        _ body: (BatchInput, inout ContainmentPairs) throws -> Void
    ) throws -> [UInt64] {
        var pairs = ContainmentPairs()
        let lat = c.latitudes, lon = c.longitudes
        try lat.withUnsafeBufferPointer { la in
            try lon.withUnsafeBufferPointer { lo in
                try CellSweepTwinTests.withLevels(levels) { lev in
                    try body(BatchInput(latitudes: la.baseAddress!, longitudes: lo.baseAddress!, levels: lev, count: c.points.count, options: options), &pairs)
                }
            }
        }
        return packed(pairs)
    }

    /// A warm evaluator gives each call its own answer: a large call, a smaller one, one with
    /// every fix outside the fences (no pair), one below the threads' minimum, an empty one,
    /// and one of near and far fixes, in tile order and in input order. The callers' pairs are
    /// reused from call to call, as the arrays are resized rather than cleared (nothing of a
    /// larger answer before may stay); and without a grid (no fences) a reused answer empties.
    @Test("calls in a row, each its own answer", arguments: testSeeds(sized(full: 2, quick: 1), base: 307))
    func callsInARow(seed: UInt64) throws {
        let c = try Case(.city, seed: seed, fixes: 6_000)
        let parallel = try ParallelContainmentEvaluator(fenceSet: c.set, threads: 2, minimumFixes: 1_000)
        let single = try ContainmentEvaluator(fenceSet: c.set)
        let far = (0..<4_000).map { k in Coordinate(latitude: -60 + Double(k % 100) * 0.01, longitude: 100 + Double(k / 100) * 0.01) }
        let mixed = Array(c.points.prefix(2_000)) + far
        let batches: [[Coordinate]] = [c.points, Array(c.points[1_000..<5_000]), far, Array(c.points.prefix(500)), [], mixed, c.points]
        // Threads out of range are clamped, as BatchOptions clamps them.
        #expect(try ParallelContainmentEvaluator(fenceSet: c.set, threads: 0).threads == 1)
        #expect(try ParallelContainmentEvaluator(fenceSet: c.set, threads: -3).threads == 1)
        var got = ContainmentPairs(), reused = ContainmentPairs()
        for (k, points) in batches.enumerated() {
            var expected = ContainmentPairs()
            let lat = points.map(\.latitude), lon = points.map(\.longitude)
            try ContainmentEvaluator(fenceSet: c.set).containing(latitudes: lat, longitudes: lon, order: .input, into: &expected)
            for order in [ContainmentPairs.Order.tiles, .input] {
                try parallel.containing(latitudes: lat, longitudes: lon, order: order, into: &got)
                Self.expectSame(Self.packed(got), Self.packed(expected), "seed \(seed) batch \(k) \(order): \(got.count) pairs, one evaluator \(expected.count)")
                try single.containing(latitudes: lat, longitudes: lon, order: order, into: &reused)
                Self.expectSame(Self.packed(reused), Self.packed(expected), "seed \(seed) batch \(k) \(order), warm evaluator and pairs: \(reused.count) pairs, a fresh one \(expected.count)")
            }
        }
        let none = try FenceSet([])
        #expect(!none.directory.isEnabled)
        try ParallelContainmentEvaluator(fenceSet: none, threads: 2, minimumFixes: 1_000).containing(
            latitudes: c.latitudes, longitudes: c.longitudes, into: &got)
        #expect(got.count == 0 && got.slots.isEmpty, "seed \(seed): no fences, \(got.count) pairs")
    }
}

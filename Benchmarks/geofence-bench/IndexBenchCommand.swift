import ArgumentParser
import GeofenceEngine

/// `geofence-bench index`: R-tree build, point queries and nearest-10 against brute force.
struct IndexBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Packed R-tree: build time, containment queries/s and nearest-10/s vs brute force.",
        discussion: """
            Fences: a 50 km x 50 km world centred on 40.75,-73.98: \
            even features are circles (radius log-uniform 50-500 m), odd ones star-shaped polygons \
            (size log-uniform 50-500 m, 5-40 vertices, 20% with a hole), generated with a fixed \
            seed. Queries: uniform random points in the world. Every rate is single-threaded; \
            brute force (the scan twins) runs in the same process on a prefix of the same \
            queries, and both answers are compared (pairs and checksum must agree). boxes/s is \
            the tree's box search alone (candidates, no exact test); query/s is the full \
            containment query (search, level rule, exact circle test or GEOS covers).
            """
    )

    @Option(name: .long, parsing: .upToNextOption, help: "Fence counts (default: 1000 10000 100000 1000000).")
    var sizes: [Int] = [1_000, 10_000, 100_000, 1_000_000]

    @Option(name: .long, help: "Seconds per timed query loop (default: 1.0).")
    var seconds = 1.0

    @Option(name: .long, help: "Random seed (default: 42).")
    var seed: UInt64 = 42

    @Flag(name: .long, help: "Circles only (no polygons): the index and the circle test without GEOS.")
    var circlesOnly = false

    func run() throws {
        var rows: [[String]] = []
        let header = [
            "fences", "set build s", "tree build s", "tree MB", "levels", "boxes/s", "query/s tree", "query/s brute", "ratio",
            "pairs/query", "nearest10/s tree", "nearest10/s brute", "ratio",
        ]
        for n in sizes {
            var rng = IndexBenchRandom(seed: seed)
            let fences = IndexBenchWorld.fences(count: n, circlesOnly: circlesOnly, &rng)
            var t0 = RTreeBench.now()
            let set = try FenceSet(fences)
            let setBuild = RTreeBench.now() - t0
            // The tree alone, on the same entries the set indexes (median of 3 builds).
            var boxes: [BoundingBox] = [], values: [Int32] = []
            for slot in 0..<set.count {
                for box in set.boundingBoxes(at: slot) { boxes.append(box); values.append(Int32(slot)) }
            }
            var builds: [Double] = []
            for _ in 0..<3 {
                t0 = RTreeBench.now()
                let tree = PackedRTree(boxes: boxes, values: values)
                builds.append(RTreeBench.now() - t0)
                precondition(tree.count == boxes.count)
            }
            builds.sort()
            let evaluator = try ContainmentEvaluator(fenceSet: set)
            let queries = (0..<200_000).map { _ in IndexBenchWorld.point(&rng) }
            let point = try Self.pointQueries(evaluator, queries, seconds: seconds)
            let nearest = try Self.nearestQueries(evaluator, queries, seconds: seconds)
            rows.append([
                "\(n)", RTreeBench.fixed(setBuild, 3), RTreeBench.fixed(builds[1], 4),
                RTreeBench.fixed(Double(set.index.memoryBytes) / 1_048_576, 2), "\(set.index.levelCount)",
                RTreeBench.rate(point.boxesOnly), RTreeBench.rate(point.tree), RTreeBench.rate(point.brute), RTreeBench.fixed(point.tree / point.brute, 0) + "x",
                RTreeBench.fixed(point.pairsPerQuery, 2),
                RTreeBench.rate(nearest.tree), RTreeBench.rate(nearest.brute), RTreeBench.fixed(nearest.tree / nearest.brute, 0) + "x",
            ])
            print("n=\(n): checked \(point.checked) point queries and \(nearest.checked) nearest-10 queries against brute force: identical")
            Platform.flushStandardStreams()
        }
        print("")
        print(RTreeBench.table(header: header, rows: rows))
    }

    /// Containment rates (queries per second), tree and scan, after checking they agree.
    static func pointQueries(_ e: ContainmentEvaluator, _ queries: [Coordinate], seconds: Double) throws
        -> (tree: Double, brute: Double, pairsPerQuery: Double, checked: Int, boxesOnly: Double)
    {
        var buffer: [Int32] = []
        // Warm-up: builds every GEOS locator the queries need, so neither side pays for it.
        for q in queries { try e.containing(latitude: q.latitude, longitude: q.longitude, level: nil, into: &buffer) }
        var pairs = 0, done = 0
        var checksum: UInt64 = 0
        let start = RTreeBench.now()
        var elapsed = 0.0
        repeat {
            for q in queries {
                try e.containing(latitude: q.latitude, longitude: q.longitude, level: nil, into: &buffer)
                pairs += buffer.count
            }
            done += queries.count
            elapsed = RTreeBench.now() - start
        } while elapsed < seconds
        let treeRate = Double(done) / elapsed
        // The tree's box search alone (candidates, no exact test), to tell index cost from
        // exact-test cost.
        var candidates = 0, searched = 0
        let searchStart = RTreeBench.now()
        repeat {
            for q in queries {
                buffer.removeAll(keepingCapacity: true)
                e.fenceSet.index.search(latitude: q.latitude, longitude: q.longitude, into: &buffer)
                candidates += buffer.count
            }
            searched += queries.count
            elapsed = RTreeBench.now() - searchStart
        } while elapsed < seconds
        let boxesRate = Double(searched) / elapsed
        if candidates < 0 { print("") }
        // Brute force on a prefix, time-bounded; the tree must give the same pairs there.
        var bruteDone = 0
        var brutePairs = 0, treePairs = 0
        var bruteChecksum: UInt64 = 0
        let bruteStart = RTreeBench.now()
        while bruteDone < queries.count && (bruteDone < 20 || RTreeBench.now() - bruteStart < seconds) {
            let q = queries[bruteDone]
            let scan = try e.containingByScan(latitude: q.latitude, longitude: q.longitude, level: nil)
            brutePairs += scan.count
            for s in scan { bruteChecksum &+= IndexBenchRandom.mix(UInt64(bruteDone) << 20 | UInt64(s)) }
            bruteDone += 1
        }
        let bruteRate = Double(bruteDone) / (RTreeBench.now() - bruteStart)
        for i in 0..<bruteDone {
            try e.containing(latitude: queries[i].latitude, longitude: queries[i].longitude, level: nil, into: &buffer)
            treePairs += buffer.count
            for s in buffer { checksum &+= IndexBenchRandom.mix(UInt64(i) << 20 | UInt64(s)) }
        }
        guard treePairs == brutePairs, checksum == bruteChecksum else {
            throw ValidationError("tree and scan disagree: \(treePairs) vs \(brutePairs) pairs")
        }
        return (treeRate, bruteRate, Double(pairs) / Double(done), bruteDone, boxesRate)
    }

    /// Nearest-10 rates, tree and scan, after checking they agree.
    static func nearestQueries(_ e: ContainmentEvaluator, _ queries: [Coordinate], seconds: Double) throws
        -> (tree: Double, brute: Double, checked: Int)
    {
        var done = 0, sink = 0.0
        let start = RTreeBench.now()
        while done < queries.count && (done < 100 || RTreeBench.now() - start < seconds) {
            let q = queries[done]
            sink += try e.nearestSlots(latitude: q.latitude, longitude: q.longitude, count: 10).last?.distance ?? 0
            done += 1
        }
        let treeRate = Double(done) / (RTreeBench.now() - start)
        var bruteDone = 0
        let bruteStart = RTreeBench.now()
        while bruteDone < queries.count && (bruteDone < 3 || RTreeBench.now() - bruteStart < seconds) {
            let q = queries[bruteDone]
            let scan = try e.nearestByScan(latitude: q.latitude, longitude: q.longitude, count: 10)
            let tree = try e.nearestSlots(latitude: q.latitude, longitude: q.longitude, count: 10)
            guard scan == tree else { throw ValidationError("nearest: tree and scan disagree at \(q)") }
            bruteDone += 1
        }
        // Each brute iteration also ran one tree query: take its share out.
        let bruteSeconds = RTreeBench.now() - bruteStart - Double(bruteDone) / treeRate
        if sink.isNaN { print("") }  // keeps the loop's results alive
        return (treeRate, Double(bruteDone) / bruteSeconds, bruteDone)
    }
}

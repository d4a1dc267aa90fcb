import Foundation
import ArgumentParser
import GeofenceEngine

/// `geofence-bench contains`: the scriptable containment case, one JSON line per run.
struct ContainsBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contains",
        abstract: "Time containment (fixes → containing fences) on a fence file and a gen_world.py fixes file.",
        discussion: """
            Prints one JSON line: {"case":"contains","method":..,"api":"fix"|"batch","fences":F, \
            "fixes":N,"threads":T,"seconds":<median>,"fixesPerSecond":..,"pairs":..,"checksum":"<16 hex>"}. \
            Loading and index build are excluded from "seconds" and reported as "loadSeconds". \
            "seconds" is the median over the timed repeats of one pass's time; a repeat makes \
            as many passes as last 50 ms (1M fixes at 1k fences take under 10 ms; at most 1000), \
            counted from untimed warm passes after the first repeat, or --passes. --api fix \
            calls the per-fix query once per fix, timed with its checksum as the C grid's loop \
            is; --api batch hands the fixes to the batch query in one call \
            a pass (--order input|tiles|automatic): on several threads to \
            ParallelContainmentEvaluator, whose pairs come joined in input order (--by-ranges: \
            each thread's share to its own evaluator, pairs kept apart), timed as the Python \
            peers time theirs, the checksum taken after the clock (with --batch N, inside it). \
            The checksum is the peers' (Benchmarks/peers/world.h), so answers can be compared \
            with Shapely's and the C grid's exactly.
            """
    )

    @Option(help: "GeoJSON fences (e.g. fences_10000.geojson from gen_world.py).")
    var fences: String

    @Option(help: "Fixes: little-endian f64 (lat, lon) pairs (e.g. fixes_1000000.f64).")
    var fixes: String

    @Option(help: "Worker threads, 1 to 256.")
    var threads = 1

    @Option(help: "Timed repeats; the median is reported.")
    var repeats = 3

    @Option(help: "Method: engine, brute (slow twin) or geos (naive GEOS C API).")
    var method = "engine"

    @Option(help: "The engine's API: fix (one query per fix) or batch (all of a thread's fixes in one call).")
    var api = "fix"

    @Option(help: "Batch order: automatic, input or tiles.")
    var order = "automatic"

    @Option(help: "--api batch: fixes per call (default: each thread's share in one call; geofence contains hands over about 90,000).")
    var batch: Int?

    @Option(help: "Ranges a pass is cut into, taken by the threads as they come free (default: one per thread for --api batch and on one thread, 8 per thread for --api fix).")
    var chunks: Int?

    @Flag(help: "--api batch on several threads: each thread's range of fixes to its own evaluator (the default is one call a pass to ParallelContainmentEvaluator, its pairs joined in input order).")
    var byRanges = false

    @Option(help: "Passes over the fixes a timed repeat makes, 1 to 1000 (default: enough to last 50 ms, from the first repeat).")
    var passes: Int?

    @Option(help: "Test only the first N fixes.")
    var limit: Int?

    @Flag(help: "Also count the query's steps per fix (entries, candidates, exact tests) and print them as a second line.")
    var work = false

    func run() throws {
        guard var method = ContainmentMethod(rawValue: method) else {
            throw ValidationError("--method must be one of \(ContainmentMethod.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard ["fix", "batch"].contains(api) else { throw ValidationError("--api must be fix or batch") }
        guard let order = ContainmentRun.orders[order] else { throw ValidationError("--order must be automatic, input or tiles") }
        if api == "batch" {
            guard method == .engine || method == .engineBatch else { throw ValidationError("--api batch needs --method engine") }
            method = .engineBatch
        }
        guard threads >= 1, threads <= WorkerPool.maximumThreads, repeats >= 1 else {
            throw ValidationError("--threads must be 1 to \(WorkerPool.maximumThreads) and --repeats >= 1")
        }
        // The options checked before the files are read.
        guard batch.map({ $0 >= 1 }) ?? true else { throw ValidationError("--batch must be at least 1") }
        guard chunks.map({ $0 >= threads && $0 <= 4_096 }) ?? true else {
            throw ValidationError("--chunks must be at least --threads and at most 4096")
        }
        guard passes.map({ $0 >= 1 && $0 <= 1_000 }) ?? true else { throw ValidationError("--passes must be 1 to 1000") }
        var world: PeerWorld! = nil
        let load = try Measure.time { world = try PeerWorld.load(fences: fences, fixes: self.fixes, limit: limit) }
        let result = try ContainmentRun.measure(
            world: world, method: method, threads: threads, repeats: repeats, order: order, batchSize: batch, chunks: chunks,
            passes: passes, byRanges: byRanges)
        print(result.jsonLine(fences: world.fenceSet.count, loadSeconds: load))
        if work {
            let (line, pairs) = try Self.workLine(world)
            guard pairs == result.checksum.pairs else {
                throw BenchError("the step counts found \(pairs) pairs, the run \(result.checksum.pairs)")
            }
            print(line)
        }
    }

    /// The query's steps per fix on the whole world, one JSON line; its pairs must be the run's.
    static func workLine(_ world: PeerWorld) throws -> (line: String, pairs: Int) {
        let n = world.fixCount
        let latitudes = (0..<n).map { world.fixes[2 * $0] }, longitudes = (0..<n).map { world.fixes[2 * $0 + 1] }
        let evaluator = try ContainmentEvaluator(fenceSet: world.fenceSet)
        let c = try latitudes.withUnsafeBufferPointer { lat in
            try longitudes.withUnsafeBufferPointer { lon in try evaluator.workCounts(latitudes: lat, longitudes: lon) }
        }
        func per(_ v: Int) -> String { String(format: "%.4f", Double(v) / Double(max(1, c.fixes))) }
        return (#"{"case":"contains-work","fences":\#(world.fenceSet.count),"fixes":\#(c.fixes),"perFix":{"#
            + #""located":\#(per(c.located)),"entries":\#(per(c.entries)),"candidates":\#(per(c.candidates)),"#
            + #""circles":\#(per(c.circles)),"polygonCells":\#(per(c.polygonCells)),"crossedCells":\#(per(c.crossedCells)),"#
            + #""crossedEdges":\#(per(c.crossedEdges)),"runTestEdges":\#(per(c.runTestEdges)),"edgeRuns":\#(per(c.edgeRuns)),"undecided":\#(per(c.undecided)),"#
            + #""exactTests":\#(per(c.exactTests)),"pairs":\#(per(c.pairs))},"pairs":\#(c.pairs)}"#, c.pairs)
    }
}

/// One measured containment run: median seconds over repeats, and the checksum.
struct ContainmentRun {
    var method: ContainmentMethod
    var fixes: Int
    var threads: Int
    var seconds: Double
    var firstSeconds: Double
    /// The fastest timed repeat: on a shared host the least disturbed one.
    var bestSeconds: Double
    var checksum: PairChecksum
    /// Ranges each pass was cut into.
    var chunks = 1

    var fixesPerSecond: Double { Double(fixes) / seconds }

    /// Runs `method` over all fixes `repeats` times on `threads` threads. Per-thread workers
    /// (evaluators, GEOS state) are made before timing; the first repeat includes the lazy
    /// locator builds and is reported apart.
    static let orders: [String: ContainmentPairs.Order] = ["automatic": .automatic, "input": .input, "tiles": .tiles]

    static func measure(
        world: PeerWorld, method: ContainmentMethod, threads: Int, repeats: Int, order: ContainmentPairs.Order = .automatic,
        batchSize: Int? = nil, chunks: Int? = nil, passes fixedPasses: Int? = nil, byRanges: Bool = false
    ) throws -> ContainmentRun {
        // The batch on several threads, whole: the library's parallel evaluator, one call a pass.
        if method == .engineBatch && threads > 1 && batchSize == nil && chunks == nil && !byRanges {
            return try measureParallel(world: world, threads: threads, repeats: repeats, order: order, passes: fixedPasses)
        }
        let workers = try (0..<threads).map { _ in
            try ContainmentWorker(world: world, method: method, order: order, batchSize: batchSize)
        }
        // Started before timing, and a thread that cannot start is an error (never a wait,
        // never a silent run on fewer threads).
        let pool = try WorkerPool(threads: threads)
        let n = world.fixCount
        var times: [Double] = []
        var checksum = PairChecksum()
        // A timed repeat makes enough passes over the fixes to last 50 ms or more (sized by
        // ``warmPasses(_:)`` after the first, untimed-for-the-median repeat): 1M fixes at 1k
        // fences take under 10 ms, where waking the threads and the host's hiccups would weigh
        // as much as the work.
        var passes = fixedPasses ?? 1
        // The fixes in `chunks` equal ranges, taken by the threads as they come free (the
        // pool hands out items in order): a thread the host holds up leaves its remaining
        // chunks to the others instead of the pass waiting for it.
        let chunks = chunks ?? Self.defaultChunks(threads: threads, method: method)
        // The batch API (one call a chunk) is timed as the Python peers time theirs: the call
        // that hands back the pairs (here in input order), the checksum taken after the clock
        // stops. The last pass's chunks keep their pairs in a slot each (one item a slot, so no
        // two threads write one); earlier passes write into their worker's own buffer, which
        // only that worker's one item at a time uses. So the memory is the chunks' pairs once
        // plus a chunk's for each worker, whatever the passes.
        // One query a fix is timed with its checksum, as the C grid's loop is.
        let keepsPairs = method == .engineBatch && batchSize == nil
        let found = DisjointSlots<ContainmentPairs>(repeating: ContainmentPairs(), count: keepsPairs ? chunks : 0)
        let boxed = WorkerBox(workers)
        func pass(_ rounds: Int) throws -> Double {
            // One slot per item (chunk k of every pass), so no two threads ever write one slot:
            // chunk k of one pass and of the next can run at the same time.
            let parts = DisjointSlots<PairChecksum?>(repeating: nil, count: keepsPairs ? 0 : rounds * chunks)
            let failure = DisjointSlots<String?>(repeating: nil, count: rounds * chunks)
            let lastPass = (rounds - 1) * chunks
            let t = Measure.time {
                pool.run(count: rounds * chunks) { item, worker in
                    let k = item % chunks
                    let range = (n * k / chunks)..<(n * (k + 1) / chunks)
                    do {
                        if !keepsPairs {
                            parts[item] = try boxed.workers[worker].run(range)
                        } else if item >= lastPass {
                            try found.update(k) { (pairs) throws in try boxed.workers[worker].query(range, into: &pairs) }
                        } else {
                            try boxed.workers[worker].query(range)
                        }
                    } catch { failure[item] = "\(error)" }
                }
            } / Double(rounds)
            if let message = failure.storage.compactMap({ $0 }).first { throw BenchError(message) }
            // The last pass's chunks (every pass gives the same).
            checksum = (0..<chunks).reduce(into: PairChecksum()) { sum, k in
                sum.merge(keepsPairs ? workers[0].checksum(found[k], from: n * k / chunks) : parts[lastPass + k]!)
            }
            return t
        }
        for repeatIndex in 0..<repeats {
            times.append(try pass(passes))
            if repeatIndex == 0 && repeats > 1 && fixedPasses == nil {
                passes = try Self.warmPasses { try pass(1) }
                // The workers' own buffers, first used now: warmed by an untimed pass (each
                // worker that takes one of its earlier passes' items).
                if keepsPairs && passes > 1 { _ = try pass(passes) }
            }
        }
        let timed = times.count > 1 ? Array(times.dropFirst()) : times
        return ContainmentRun(
            method: method, fixes: n, threads: threads, seconds: Measure.median(timed), firstSeconds: times[0],
            bestSeconds: timed.min()!, checksum: checksum, chunks: chunks)
    }

    /// ``measure(world:method:threads:repeats:order:batchSize:chunks:passes:byRanges:)`` of the
    /// batch on `threads` threads through ``ParallelContainmentEvaluator``: all the fixes in
    /// one call a pass, timed as the one-thread batch is (its checksum after the clock).
    static func measureParallel(
        world: PeerWorld, threads: Int, repeats: Int, order: ContainmentPairs.Order, passes fixedPasses: Int?
    ) throws -> ContainmentRun {
        let evaluator = try ParallelContainmentEvaluator(fenceSet: world.fenceSet, threads: threads)
        let n = world.fixCount
        let latitudes = (0..<n).map { world.fixes[2 * $0] }, longitudes = (0..<n).map { world.fixes[2 * $0 + 1] }
        let checker = try ContainmentWorker(world: world, method: .engine)
        var pairs = ContainmentPairs()
        var passes = fixedPasses ?? 1
        var times: [Double] = []
        func pass(_ rounds: Int) throws -> Double {
            try Measure.time {
                for _ in 0..<rounds {
                    try evaluator.containing(latitudes: latitudes, longitudes: longitudes, order: order, into: &pairs)
                }
            } / Double(rounds)
        }
        for repeatIndex in 0..<repeats {
            times.append(try pass(passes))
            if repeatIndex == 0 && repeats > 1 && fixedPasses == nil {
                passes = try Self.warmPasses { try pass(1) }
            }
        }
        let timed = times.count > 1 ? Array(times.dropFirst()) : times
        return ContainmentRun(
            method: .engineBatch, fixes: n, threads: threads, seconds: Measure.median(timed), firstSeconds: times[0],
            bestSeconds: timed.min()!, checksum: checker.checksum(pairs, from: 0), chunks: 0)
    }

    /// How long a timed repeat lasts at least (its passes' time, not counting the checksum).
    static let repeatSeconds = 0.05

    /// Passes a timed repeat makes: enough to last ``repeatSeconds`` at `secondsPerPass`, at
    /// most 1,000.
    static func passes(secondsPerPass: Double) -> Int {
        Swift.min(1_000, Swift.max(1, Int((repeatSeconds / Swift.max(secondsPerPass, 1e-6)).rounded(.up))))
    }

    /// Passes a timed repeat makes, from warm passes: `onePass` (which returns its seconds)
    /// called until ``repeatSeconds`` have gone by (at most 1,000 times), their mean time a
    /// pass giving ``passes(secondsPerPass:)``. Untimed for the median.
    ///
    /// Sized from the first pass instead, which is cold, repeats were shorter than they should
    /// be and held the slow passes right after it: at 1k fences on two threads the first pass
    /// took 6–15 ms and the next ones up to 12, so a repeat made 4–5 passes (about 20 ms) and
    /// 12 runs gave medians of 6.6–10.8 ms a pass, where runs of 20 passes a repeat (timed
    /// from the 21st) gave 3.6–4.4 ms, in the same minutes.
    static func warmPasses(_ onePass: () throws -> Double) rethrows -> Int {
        var total = 0.0, count = 0
        while total < repeatSeconds && count < 1_000 {
            total += try onePass()
            count += 1
        }
        return passes(secondsPerPass: total / Double(count))
    }

    /// Chunks a pass is cut into: one per thread for the batch (its cell sweep gains from
    /// large batches: at 100k fences on two threads, 98.8–106.9 ms a pass with one chunk a
    /// thread, 105.3–113.8 with two), eight per thread one query per fix.
    static func defaultChunks(threads: Int, method: ContainmentMethod) -> Int {
        threads == 1 || method == .engineBatch ? threads : threads * 8
    }

    func jsonLine(fences: Int, loadSeconds: Double) -> String {
        #"{"case":"contains","method":"\#(method.rawValue)","api":"\#(method == .engineBatch ? "batch" : "fix")","fences":\#(fences),"fixes":\#(fixes),"threads":\#(threads),"chunks":\#(chunks),"#
            + #""seconds":\#(seconds),"firstSeconds":\#(firstSeconds),"bestSeconds":\#(bestSeconds),"#
            + #""fixesPerSecond":\#(Int(fixesPerSecond)),"bestFixesPerSecond":\#(Int(Double(fixes) / bestSeconds)),"#
            + #""pairs":\#(checksum.pairs),"checksum":"\#(checksum.hex)","loadSeconds":\#(loadSeconds),"#
            + #""peakRSSMiB":\#(Measure.peakRSSMiB()),"load1":\#(Measure.loadAverage())}"#
    }
}

/// Hands the per-thread workers to the worker threads (each uses only its own).
final class WorkerBox: @unchecked Sendable {
    let workers: [ContainmentWorker]
    init(_ workers: [ContainmentWorker]) { self.workers = workers }
}

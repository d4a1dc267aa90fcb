import GeofenceGEOS

/// The batch containment query on several threads: one ``ContainmentEvaluator`` per thread
/// over one shared ``FenceSet``, and the threads to run them, kept between calls.
///
/// Same pairs as `ContainmentEvaluator.containing(latitudes:longitudes:levels:options:order:into:)`,
/// in the same order (input order, each fix's slots ascending), for any number of threads.
/// The fixes are cut into ranges, each answered by one evaluator's batch query, and the
/// ranges' pairs are copied to their places by the threads. In tile order each thread gets one
/// range, as large as can be (a larger batch shares each cell's fence data among more fixes);
/// in input order there are four ranges a thread, taken as the threads come free, so a thread
/// the system holds up leaves its later ranges to the others.
///
/// One call at a time: it is not `Sendable`, like the evaluators it holds.
public final class ParallelContainmentEvaluator {
    public let fenceSet: FenceSet
    /// The threads a call runs on, the calling thread one of them (``WorkerPool``): its share
    /// of a call runs on the caller's stack, as a one-thread query does, so call from a thread
    /// with a full-sized stack (deep polygons recurse in GEOS).
    public let threads: Int
    let pool: WorkerPool
    let team: EvaluatorBox
    /// Each range's pairs (one slot a range), and each range's error.
    private let rangePairs: DisjointSlots<ContainmentPairs>
    private let failures: DisjointSlots<GEOSError?>
    /// Each range's pairs while they are still packed in its evaluator's scratch (nil once
    /// moved to ``rangePairs``), and their count; each worker's range held so.
    private let packed: DisjointSlots<UnsafePointer<UInt64>?>
    private let counts: DisjointSlots<Int>
    private let held: DisjointSlots<Int>
    /// Fixes below which a call runs on the calling thread (``parallelMinimum``).
    let minimumFixes: Int

    /// Evaluators for `threads` threads (default: one per core; clamped to 1 ... 256, as
    /// ``BatchOptions`` clamps its threads), and the threads, started now.
    /// - Throws: `GEOSError` when an evaluator's GEOS context cannot be made;
    ///   ``ThreadStartError`` when a thread cannot be started (none is left running).
    public convenience init(fenceSet: FenceSet, threads: Int = ParallelContainmentEvaluator.defaultThreads) throws {
        try self.init(fenceSet: fenceSet, threads: threads, minimumFixes: Self.parallelMinimum)
    }

    /// As ``init(fenceSet:threads:)``, with the fixes below which a call runs on the calling
    /// thread given (tests use small batches).
    init(fenceSet: FenceSet, threads: Int, minimumFixes: Int) throws {
        let threads = Swift.min(Swift.max(1, threads), WorkerPool.maximumThreads)
        self.fenceSet = fenceSet
        self.threads = threads
        team = EvaluatorBox(try (0..<threads).map { _ in try ContainmentEvaluator(fenceSet: fenceSet) })
        pool = try WorkerPool(threads: threads)
        rangePairs = DisjointSlots(repeating: ContainmentPairs(), count: threads * Self.rangesPerThread)
        failures = DisjointSlots(repeating: nil, count: threads * Self.rangesPerThread)
        packed = DisjointSlots(repeating: nil, count: threads * Self.rangesPerThread)
        counts = DisjointSlots(repeating: 0, count: threads * Self.rangesPerThread)
        held = DisjointSlots(repeating: -1, count: threads)
        self.minimumFixes = minimumFixes
    }

    /// One thread per core this process may use: its CPU affinity on Linux, bounded by a cgroup
    /// CPU quota (`docker run --cpus`, a Kubernetes CPU limit); the cores online elsewhere.
    public static var defaultThreads: Int { Swift.min(Platform.coreCount, WorkerPool.maximumThreads) }

    /// Every (fix, fence) pair where the fence contains the fix, found on ``threads`` threads:
    /// the arguments and the answer of `ContainmentEvaluator.containing(latitudes:longitudes:levels:options:order:into:)`.
    /// A batch of fewer than ``parallelMinimum`` fixes runs on the calling thread.
    /// - Precondition: the arrays have equal counts, below 2³¹.
    /// - Complexity: O(n / t) per thread for n fixes on t threads, plus the exact tests.
    public func containing(
        latitudes: UnsafeBufferPointer<Double>, longitudes: UnsafeBufferPointer<Double>,
        levels: UnsafeBufferPointer<Int>? = nil, options: ContainmentOptions = ContainmentOptions(),
        order: ContainmentPairs.Order = .automatic, into pairs: inout ContainmentPairs
    ) throws(GEOSError) {
        let n = ContainmentEvaluator.batchCount(latitudes, longitudes, levels)
        guard threads > 1, n >= minimumFixes else {
            return try team.evaluators[0].containing(
                latitudes: latitudes, longitudes: longitudes, levels: levels, options: options, order: order, into: &pairs)
        }
        let input = BatchInput(
            latitudes: latitudes.baseAddress!, longitudes: longitudes.baseAddress!, levels: levels?.baseAddress, count: n,
            options: options)
        let tiled = ContainmentEvaluator.takesTileOrder(order, fixes: n, hotBytes: fenceSet.hotBytes)
        try splitByFixes(input, order: order, ranges: tiled ? threads : threads &* Self.rangesPerThread, into: &pairs)
    }

    /// ``containing(latitudes:longitudes:levels:options:order:into:)`` over arrays.
    public func containing(
        latitudes: [Double], longitudes: [Double], levels: [Int]? = nil, options: ContainmentOptions = ContainmentOptions(),
        order: ContainmentPairs.Order = .automatic, into pairs: inout ContainmentPairs
    ) throws(GEOSError) {
        try ContainmentEvaluator.withBuffers(latitudes, longitudes, levels) { (lat, lon, lev) throws(GEOSError) in
            try containing(latitudes: lat, longitudes: lon, levels: lev, options: options, order: order, into: &pairs)
        }
    }

    /// Fixes below which a batch runs on the calling thread. At 1k fences, the cheapest fixes
    /// to answer, one thread against two per call (medians of 3 runs): 9,000 fixes 76 against
    /// 41 µs, 15,000 78 against 75 µs, 30,000 251 against 135 µs; so two pay from about here.
    public static let parallelMinimum = 8_192

    /// Ranges of fixes a thread in input order (taken as the threads come free; input order
    /// gains nothing from larger calls).
    static let rangesPerThread = 4

    /// The batch in `ranges` ranges of fixes, each answered by one evaluator's batch query in
    /// `order`, the ranges' pairs then copied to their places by the threads.
    ///
    /// A range's pairs stay packed in its evaluator's scratch, and go from there straight to
    /// their place: one pass over the pairs, as on one thread. Only when a thread takes a
    /// second range are the first one's pairs moved to its slot (``rangePairs``) before. (The
    /// ranges' own arrays, then the joined ones, were two more passes: at 100k fences, 5.3M
    /// pairs a million fixes, the join was 4.6 ms of an 88 ms call on two threads.)
    /// - Complexity: O(n / t) per thread, plus the exact tests.
    func splitByFixes(_ input: BatchInput, order: ContainmentPairs.Order, ranges wanted: Int, into pairs: inout ContainmentPairs) throws(GEOSError) {
        let n = input.count
        let ranges = Swift.max(1, Swift.min(wanted, n, rangePairs.count))
        let found = rangePairs, failures = self.failures, team = self.team
        let packed = self.packed, counts = self.counts, held = self.held
        for k in 0..<ranges {
            failures[k] = nil
            packed[k] = nil
        }
        for w in 0..<threads { held[w] = -1 }
        pool.run(count: ranges) { k, worker in
            let a = n &* k / ranges, b = n &* (k &+ 1) / ranges
            let evaluator = team.evaluators[worker]
            do throws(GEOSError) {
                // This thread's range before, out of the scratch this range reuses.
                if case let before = held[worker], before >= 0, let pointer = packed[before] {
                    found.update(before) { $0.fill(from: pointer, count: counts[before]) }
                    packed[before] = nil
                }
                guard evaluator.hot.directoryEnabled else {
                    try found.update(k) { (out) throws(GEOSError) in
                        try evaluator.containing(
                            latitudes: UnsafeBufferPointer(start: input.latitudes + a, count: b &- a),
                            longitudes: UnsafeBufferPointer(start: input.longitudes + a, count: b &- a),
                            levels: input.levels.map { UnsafeBufferPointer(start: $0 + a, count: b &- a) },
                            options: input.options, order: order, into: &out)
                    }
                    counts[k] = found[k].count
                    return
                }
                counts[k] = try evaluator.packedPairs(
                    input.latitudes + a, input.longitudes + a, input.levels.map { $0 + a }, count: b &- a,
                    options: input.options, order: order)
                packed[k] = UnsafePointer(evaluator.batchScratch().pairs)
                held[worker] = k
            } catch {
                failures[k] = error
                counts[k] = 0
            }
        }
        for k in 0..<ranges { if let error = failures[k] { throw error } }
        // Where each range's pairs go, then the copies (the range's fix indexes moved up by its
        // first fix's), a range a thread.
        var total = 0
        let starts = (0..<ranges).map { k in
            defer { total &+= counts[k] }
            return total
        }
        pairs.fill(count: total) { fixes, slots in
            let outFixes = SharedPointer(fixes), outSlots = SharedPointer(slots)
            pool.run(count: ranges) { k, _ in
                let offset = Int32(truncatingIfNeeded: n &* k / ranges), at = starts[k]
                if let pointer = packed[k] {
                    ContainmentPairs.unpack(
                        pointer, count: counts[k], fixes: outFixes.base + at, slots: outSlots.base + at, adding: offset)
                    return
                }
                found.update(k) { range in
                    range.fixes.withUnsafeBufferPointer { f in
                        for j in 0..<f.count { outFixes[at &+ j] = f[j] &+ offset }
                    }
                    range.slots.withUnsafeBufferPointer { s in
                        (outSlots.base + at).update(from: s.baseAddress!, count: s.count)
                    }
                }
            }
        }
    }
}

/// The caller's arrays for one call, handed to the worker threads (read only; alive for the
/// call, which waits for the workers).
struct BatchInput: @unchecked Sendable {
    let latitudes: UnsafePointer<Double>
    let longitudes: UnsafePointer<Double>
    let levels: UnsafePointer<Int>?
    let count: Int
    let options: ContainmentOptions
}

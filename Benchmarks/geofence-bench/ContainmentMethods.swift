import GeofenceEngine
import GeofenceGEOS

/// The ways the benchmark answers "which fences contain each fix", all exact.
enum ContainmentMethod: String, CaseIterable {
    /// The engine, one query per fix in file order: grid directory over the packed R-tree's
    /// entries, Swift circles, certified Swift polygon test with GEOS's locator behind it.
    case engine
    /// The engine's batch query (`--api batch`): blocks of fixes with their cell lookups
    /// issued together, in file order or sorted by grid cell (sort timed); pairs in file order.
    case engineBatch = "engine-batch"
    /// The slow twin: every fence's boxes scanned for every fix.
    case brute
    /// The naive GEOS C-API path: GEOS STRtree + a point geometry per fix + prepared covers.
    case geos
}

/// Runs one method over a range of fixes on one thread, accumulating the pair checksum.
final class ContainmentWorker {
    let world: PeerWorld
    let method: ContainmentMethod
    private let evaluator: ContainmentEvaluator
    private let naive: NaiveGEOSContainment?
    let order: ContainmentPairs.Order
    /// Fixes per batch call (nil: the thread's whole range in one call).
    let batchSize: Int?
    private var buffer: [Int32] = []
    private var pairs = ContainmentPairs()
    /// The fixes as the batch API takes them (split once, before timing).
    private let latitudes: [Double]
    private let longitudes: [Double]

    init(world: PeerWorld, method: ContainmentMethod, order: ContainmentPairs.Order = .automatic, batchSize: Int? = nil) throws {
        self.world = world
        self.method = method
        self.order = order
        self.batchSize = batchSize
        latitudes = method == .engineBatch ? (0..<world.fixCount).map { world.fixes[2 * $0] } : []
        longitudes = method == .engineBatch ? (0..<world.fixCount).map { world.fixes[2 * $0 + 1] } : []
        evaluator = try ContainmentEvaluator(fenceSet: world.fenceSet)
        if method == .geos {
            let set = world.fenceSet
            var items: [(box: BoundingBox, polygon: MultiPolygon?)] = []
            for slot in 0..<set.count {
                let box = set.boundingBoxes(at: slot).reduce(BoundingBox.empty) { $0.union($1) }
                if case .polygon(let shape) = set.shape(at: slot) { items.append((box, shape)) } else { items.append((box, nil)) }
            }
            naive = try NaiveGEOSContainment(context: try GEOSContext(), items: items)
        } else {
            naive = nil
        }
    }

    /// The batch API's pairs for fixes `range`, in one call, into `pairs` (indexes from the
    /// range's start): what the batch is timed on, its checksum taken after the clock stops
    /// (``checksum(_:from:)``), as the Python peers time theirs.
    func query(_ range: Range<Int>, into pairs: inout ContainmentPairs) throws {
        precondition(method == .engineBatch)
        try latitudes.withUnsafeBufferPointer { lat in
            try longitudes.withUnsafeBufferPointer { lon in
                try evaluator.containing(
                    latitudes: UnsafeBufferPointer(rebasing: lat[range]), longitudes: UnsafeBufferPointer(rebasing: lon[range]),
                    order: order, into: &pairs)
            }
        }
    }

    /// ``query(_:into:)`` into the worker's own buffer (a pass whose pairs are not checked).
    func query(_ range: Range<Int>) throws {
        try withOwnPairs { pairs in try query(range, into: &pairs) }
    }

    /// `body` on the worker's own pairs buffer, moved out of the object while it runs (a
    /// class property passed inout costs a dynamic exclusivity check per call).
    private func withOwnPairs<R>(_ body: (inout ContainmentPairs) throws -> R) rethrows -> R {
        var pairs = self.pairs
        self.pairs = ContainmentPairs()
        defer { self.pairs = pairs }
        return try body(&pairs)
    }

    /// The checksum of ``query(_:into:)``'s pairs for the fixes from `start`.
    func checksum(_ pairs: ContainmentPairs, from start: Int) -> PairChecksum {
        var sum = PairChecksum()
        let fileIndex = world.fileIndexOfSlot
        for k in 0..<pairs.count { sum.add(fix: start + Int(pairs.fixes[k]), fence: fileIndex[Int(pairs.slots[k])]) }
        return sum
    }

    /// Tests fixes `range` and returns their checksum.
    func run(_ range: Range<Int>) throws -> PairChecksum {
        var sum = PairChecksum()
        if method == .engineBatch {
            let step = Swift.max(1, batchSize ?? range.count)
            try withOwnPairs { pairs in
                for start in stride(from: range.lowerBound, to: range.upperBound, by: step) {
                    try query(start..<Swift.min(range.upperBound, start + step), into: &pairs)
                    sum.merge(checksum(pairs, from: start))
                }
            }
            return sum
        }
        // A local buffer: a class property passed inout costs a dynamic exclusivity check per call.
        var buffer = self.buffer
        self.buffer = []
        defer { self.buffer = buffer }
        let fixes = world.fixes
        let fileIndex = world.fileIndexOfSlot
        if method == .engine {
            // The per-fix API in its own loop (no dispatch per fix), over the fixes' buffer as
            // the C grid reads its array (no bounds check per coordinate).
            let evaluator = self.evaluator
            try fixes.withUnsafeBufferPointer { xy in
                for i in range {
                    try evaluator.containing(latitude: xy[2 * i], longitude: xy[2 * i + 1], level: nil, into: &buffer)
                    for slot in buffer { sum.add(fix: i, fence: fileIndex[Int(slot)]) }
                }
            }
            return sum
        }
        // The slow twins, one fix at a time: brute force, or the naive GEOS path.
        for i in range {
            let lat = fixes[2 * i], lon = fixes[2 * i + 1]
            if method == .brute {
                for slot in try evaluator.containingByScan(latitude: lat, longitude: lon, level: nil) {
                    sum.add(fix: i, fence: fileIndex[slot])
                }
            } else {
                buffer.removeAll(keepingCapacity: true)
                try naive!.query(latitude: lat, longitude: lon, into: &buffer)
                for slot in buffer {
                    let s = Int(slot)
                    if world.fenceSet.isCircle(at: s) {
                        guard try evaluator.covers(slot: s, latitude: lat, longitude: lon) else { continue }
                    }
                    sum.add(fix: i, fence: fileIndex[s])
                }
            }
        }
        return sum
    }
}

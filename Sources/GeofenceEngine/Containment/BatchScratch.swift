/// The memory a batch containment query works in, owned by one ``ContainmentEvaluator`` and
/// reused by each of its queries (grown, never shrunk), so a warm batch allocates nothing.
final class BatchScratch {
    /// Fixes per block: their cell lookups are issued together, then their box checks, then
    /// their exact tests. 64: in tile order a block's fixes mostly share a cell, and 64 measured
    /// 3–6 % faster than 16 at 10k and 100k fences (128 the same as 64; 2026-11-25).
    static let blockSize = 64
    /// Fixes per chunk of the first pass, which keeps those whose cell has entries.
    static let chunkSize = 1024

    /// Candidate keys of one block (room for `blockSize` × the most candidates of a point),
    /// what the exact step decided for each (0 outside, 1 inside, 2 crossed cell with base
    /// parity even, 6 odd, 3 for the edge runs), and a crossed cell's listed edges (from | to << 32).
    let keys: UnsafeMutablePointer<UInt64>
    let verdicts: UnsafeMutablePointer<UInt8>
    let lists: UnsafeMutablePointer<UInt64>
    /// For each fix of a block: its cell's first entry and end (``CellDirectory/View/entries(latitude:longitude:)``),
    /// then where its keys end in `keys`.
    let first: UnsafeMutablePointer<Int>
    let end: UnsafeMutablePointer<Int>
    let keyEnds: UnsafeMutablePointer<Int>
    /// The fixes of a block whose cell has entries (indexes into the batch).
    let active: UnsafeMutablePointer<Int>
    /// The first pass's result for a chunk: the fixes that may have candidates (indexes into
    /// the chunk) and their fine cells (``CellDirectory/View/locate(latitudes:longitudes:count:indexes:fine:)``).
    let located: UnsafeMutablePointer<Int32>
    let locatedFine: UnsafeMutablePointer<UInt64>

    // The tile-order pass (grown to the largest batch seen).
    private(set) var capacity = 0
    /// The first pass over the whole batch: the fixes some box may hold (indexes into the
    /// batch) and their fine cells.
    private(set) var everyIndex: UnsafeMutablePointer<Int32>
    private(set) var everyFine: UnsafeMutablePointer<UInt64>
    /// Their coordinates side by side (longitude, latitude).
    private(set) var everyCoordinates: UnsafeMutablePointer<SIMD2<Double>>
    /// The located fixes' coordinates (longitude, latitude) in tile order.
    private(set) var coordinates: UnsafeMutablePointer<SIMD2<Double>>
    /// Each located fix's tile.
    private(set) var tileOf: UnsafeMutablePointer<UInt32>
    /// Where each tile's fixes start (grown to the most tiles seen).
    private(set) var tileStarts: UnsafeMutablePointer<Int>
    private(set) var tileCapacity = 0
    /// The fixes moved tile by tile: their latitudes and longitudes (for square tiles only; a
    /// sweep reads `coordinates`), levels and input indexes.
    private(set) var latitudes: UnsafeMutablePointer<Double>
    private(set) var longitudes: UnsafeMutablePointer<Double>
    private(set) var levels: UnsafeMutablePointer<Int>
    private(set) var indexes: UnsafeMutablePointer<Int32>
    /// The cell sweep's per-fix values for one cell's fixes (grown to the most fixes a cell
    /// has had; see ``ContainmentEvaluator/sweepCells(cells:ends:coordinates:_:indexes:options:runs:scratch:)``):
    /// query boxes (x, y, −x, −y as `Float`) and radians; for one fence the fixes its box
    /// holds, with their crossed cells' edges and parity; where each fix's pairs go.
    private(set) var sweepCapacity = 0
    private(set) var queries: UnsafeMutablePointer<SIMD4<Float>>
    private(set) var radianLatitudes: UnsafeMutablePointer<Double>
    private(set) var radianLongitudes: UnsafeMutablePointer<Double>
    private(set) var sweepStarts: UnsafeMutablePointer<Int>
    private(set) var sweepCandidates: UnsafeMutablePointer<Int32>
    private(set) var sweepLists: UnsafeMutablePointer<UInt64>
    private(set) var sweepOdd: UnsafeMutablePointer<Bool>
    /// One cell's pairs, fence by fence (`j << 32 | slot` for the cell's fix j).
    private(set) var cellPairs: UnsafeMutablePointer<UInt64>
    private(set) var cellPairCapacity = 0
    /// Each located fix's pair count, in tile order, and the batch's fixes' pair counts then
    /// first pairs, in input order (the sweep's placement).
    private(set) var runs: UnsafeMutablePointer<Int32>
    private(set) var runStarts: UnsafeMutablePointer<Int>
    private(set) var runTargets: UnsafeMutablePointer<Int>
    /// The pairs found, `fix << 32 | slot`, and the radix sort's other half for them.
    private(set) var pairs: UnsafeMutablePointer<UInt64>
    private(set) var pairSpare: UnsafeMutablePointer<UInt64>
    private(set) var pairCapacity = 0

    init(maximumCandidates: Int) {
        let b = Self.blockSize
        keys = .allocate(capacity: b * Swift.max(1, maximumCandidates))
        verdicts = .allocate(capacity: b * Swift.max(1, maximumCandidates))
        lists = .allocate(capacity: b * Swift.max(1, maximumCandidates))
        first = .allocate(capacity: b)
        end = .allocate(capacity: b)
        keyEnds = .allocate(capacity: b)
        active = .allocate(capacity: b)
        located = .allocate(capacity: Self.chunkSize)
        locatedFine = .allocate(capacity: Self.chunkSize)
        tileOf = .allocate(capacity: 1)
        everyIndex = .allocate(capacity: 1)
        everyFine = .allocate(capacity: 1)
        everyCoordinates = .allocate(capacity: 1)
        coordinates = .allocate(capacity: 1)
        tileStarts = .allocate(capacity: 1)
        latitudes = .allocate(capacity: 1)
        longitudes = .allocate(capacity: 1)
        levels = .allocate(capacity: 1)
        indexes = .allocate(capacity: 1)
        runs = .allocate(capacity: 1)
        runStarts = .allocate(capacity: 1)
        runTargets = .allocate(capacity: 1)
        pairs = .allocate(capacity: 1)
        pairSpare = .allocate(capacity: 1)
        queries = .allocate(capacity: 1)
        radianLatitudes = .allocate(capacity: 1)
        radianLongitudes = .allocate(capacity: 1)
        sweepStarts = .allocate(capacity: 1)
        cellPairs = .allocate(capacity: 1)
        sweepCandidates = .allocate(capacity: 1)
        sweepLists = .allocate(capacity: 1)
        sweepOdd = .allocate(capacity: 1)
    }

    deinit {
        for p in [first, end, keyEnds, active] { p.deallocate() }
        located.deallocate(); locatedFine.deallocate()
        keys.deallocate(); verdicts.deallocate(); lists.deallocate()
        pairs.deallocate(); pairSpare.deallocate(); tileStarts.deallocate(); cellPairs.deallocate()
        releaseSortMemory()
        releaseSweepMemory()
    }

    /// Makes room for the sweep over a cell of `k` fixes.
    @inline(__always)
    func reserveSweep(_ k: Int) {
        guard k > sweepCapacity else { return }
        releaseSweepMemory()
        sweepCapacity = Swift.max(k, 2 * sweepCapacity, 256)
        queries = .allocate(capacity: sweepCapacity)
        radianLatitudes = .allocate(capacity: sweepCapacity)
        radianLongitudes = .allocate(capacity: sweepCapacity)
        sweepStarts = .allocate(capacity: sweepCapacity + 1)
        sweepCandidates = .allocate(capacity: sweepCapacity)
        sweepLists = .allocate(capacity: sweepCapacity)
        sweepOdd = .allocate(capacity: sweepCapacity)
    }

    private func releaseSweepMemory() {
        queries.deallocate()
        radianLatitudes.deallocate(); radianLongitudes.deallocate()
        sweepStarts.deallocate()
        sweepCandidates.deallocate(); sweepLists.deallocate(); sweepOdd.deallocate()
    }

    /// Makes room for a cell-order pass over `n` fixes.
    func reserve(_ n: Int) {
        guard n > capacity else { return }
        releaseSortMemory()
        capacity = n
        tileOf = .allocate(capacity: n)
        everyIndex = .allocate(capacity: n)
        everyFine = .allocate(capacity: n)
        everyCoordinates = .allocate(capacity: n)
        coordinates = .allocate(capacity: n)
        latitudes = .allocate(capacity: n)
        longitudes = .allocate(capacity: n)
        levels = .allocate(capacity: n)
        indexes = .allocate(capacity: n)
        runs = .allocate(capacity: n)
        runStarts = .allocate(capacity: n)
        runTargets = .allocate(capacity: n)
    }

    /// Makes room for `count` pairs of one cell, keeping the first `kept`.
    @inline(__always)
    func reserveCellPairs(_ count: Int, keeping kept: Int) {
        guard count > cellPairCapacity else { return }
        let capacity = Swift.max(count, 2 * cellPairCapacity, 1 << 12)
        let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        grown.initialize(from: cellPairs, count: kept)
        cellPairs.deallocate()
        cellPairs = grown
        cellPairCapacity = capacity
    }

    /// Makes room for `count` pairs, keeping the first `kept`.
    @inline(__always)
    func reservePairs(_ count: Int, keeping kept: Int) {
        guard count > pairCapacity else { return }
        let capacity = Swift.max(count, 2 * pairCapacity, 1 << 12)
        let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        grown.initialize(from: pairs, count: kept)
        pairs.deallocate()
        pairSpare.deallocate()
        pairs = grown
        pairSpare = .allocate(capacity: capacity)
        pairCapacity = capacity
    }

    private func releaseSortMemory() {
        tileOf.deallocate()
        everyIndex.deallocate(); everyFine.deallocate(); everyCoordinates.deallocate(); coordinates.deallocate()
        latitudes.deallocate(); longitudes.deallocate(); levels.deallocate()
        indexes.deallocate()
        runs.deallocate(); runStarts.deallocate(); runTargets.deallocate()
    }

    /// Makes room for the starts of `tiles` tiles (and one past the last).
    func reserveTiles(_ tiles: Int) {
        guard tiles + 1 > tileCapacity else { return }
        tileStarts.deallocate()
        tileCapacity = tiles + 1
        tileStarts = .allocate(capacity: tileCapacity)
    }

    /// Swaps the pairs' two buffers.
    func swapPairBuffers() { swap(&pairs, &pairSpare) }
}

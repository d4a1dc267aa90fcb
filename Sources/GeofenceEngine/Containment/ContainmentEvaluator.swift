import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry
import RealModule

/// Answers "which fences contain this point" exactly, for one thread.
///
/// Owns the GEOS state it needs (a context and one point-in-area locator per polygon, built
/// lazily the first time the polygon is a candidate), so it is not `Sendable`: make one
/// per thread from a shared ``FenceSet``.
///
/// Circles: great-circle distance to the centre ≤ radius, computed in Swift. Polygons: GEOS
/// *covers* (edges and vertices inside, holes outside). Then the level rule (semantics §2).
public final class ContainmentEvaluator {
    public let fenceSet: FenceSet
    private let context: GEOSContext
    /// GEOS locators by slot, made on first use. A dictionary, not an array of the set's size:
    /// few polygons ever need one (points within rounding of an edge, polygons of more than
    /// 2,048 edges), and an array cost every evaluator 8 bytes per fence written at creation
    /// (1M fences, 2 threads: 15 MiB and 8 ms of a one-row run, freed again at its end).
    private var locators: [Int: PolygonLocator] = [:]
    /// Candidate slots of the indexed queries, reused so a query allocates nothing once warm.
    var candidates: [Int32] = []
    /// Candidate keys (`slot << 32 | storage position`) of the point query, reused likewise.
    var candidateKeys: [UInt64] = []
    /// Room for the most candidate keys a directory search can give: the point query's
    /// scratch, read and written through a pointer (no reference counting, no exclusivity
    /// check per query).
    let keyScratch: UnsafeMutablePointer<UInt64>
    /// The batch queries' working memory, made on the first batch (see ``BatchScratch``).
    var batch: BatchScratch?
    /// Polygons' edges in runs with boxes, built on first use (see ``PolygonEdgeChunks``).
    var edgeChunks: [Int: PolygonEdgeChunks] = [:]
    /// Scratch for ``PolygonEdgeChunks/distance(from:bounds:)``.
    var chunkBounds: [Double] = []
    /// Every box with its slot, for the scans (the slow twins): built on the first scan, since
    /// ``FenceSet/entries`` makes the list anew on each call.
    private(set) lazy var scanEntries: (boxes: [BoundingBox], slots: [Int32]) = fenceSet.entries

    /// Plain pointers into the fence set's frozen buffers (alive as long as `fenceSet`).
    let hot: HotPath
    /// The directory's coverage, the inlinable first step of a per-fix query.
    @usableFromInline let coverage: PointCoverage

    public init(fenceSet: FenceSet) throws(GEOSError) {
        self.fenceSet = fenceSet
        hot = HotPath(fenceSet)
        coverage = PointCoverage(fenceSet.directory)
        keyScratch = .allocate(capacity: Swift.max(1, fenceSet.directory.maximumCandidates))
        context = try GEOSContext()
    }

    deinit { keyScratch.deallocate() }

    /// Exact test of one fence, ignoring levels. Latitude and longitude in degrees.
    ///
    /// - Complexity: O(1) for a circle; O(log v + k) for a polygon of v vertices (GEOS's
    ///   interval index), plus the locator's one-time build O(v log v) on first use.
    @inline(__always)
    package func covers(slot: Int, latitude: Double, longitude: Double) throws(GEOSError) -> Bool {
        if fenceSet.isCircle(at: slot) {
            let circle = hot.records[2 * Int(hot.storage[slot])]
            let latR = latitude * Sphere.degreesToRadians
            let a = Sphere.haversineTerm(
                latitude1: latR, longitude1: longitude * Sphere.degreesToRadians, cosLatitude1: Double.cos(latR),
                latitude2: circle.x, longitude2: circle.y, cosLatitude2: circle.z)
            return a <= circle.w
        }
        return try polygonCovers(slot: slot, latitude: latitude, longitude: longitude)
    }

    /// The polygon test: the certified Swift test over the polygon's classified cells
    /// (``PolygonCellIndex``; the run test of ``PolygonEdgeIndex`` for a polygon without
    /// cells), and GEOS's indexed locator for the points it cannot certify (on, or within
    /// rounding of, an edge) and for polygons left to it. Same answer as
    /// ``coversByGEOS(slot:latitude:longitude:)``.
    @inline(__always)
    func polygonCovers(slot: Int, latitude: Double, longitude: Double) throws(GEOSError) -> Bool {
        switch hot.polygonTest(position: Int(hot.storage[slot]), x: longitude, y: latitude) {
        case .inside: return true
        case .outside: return false
        case .undecided: return try locator(slot).covers(latitude: latitude, longitude: longitude)
        }
    }

    /// A certified polygon test's answer as 1 (inside) or 0, GEOS's locator deciding what
    /// rounding left undecided (the test is not run again: it would say `undecided` again):
    /// the hot loops add it to a count instead of branching on it.
    @inline(__always)
    func answerBit(_ test: PolygonTestResult, slot: Int, latitude: Double, longitude: Double) throws(GEOSError) -> Int {
        var bit = test == .inside ? 1 : 0
        if test == .undecided { bit = try locator(slot).covers(latitude: latitude, longitude: longitude) ? 1 : 0 }
        return bit
    }

    /// GEOS's answer alone for a polygon (the point-in-area locator), or the circle test:
    /// the obvious twin the certified polygon test is checked against.
    package func coversByGEOS(slot: Int, latitude: Double, longitude: Double) throws(GEOSError) -> Bool {
        if fenceSet.isCircle(at: slot) { return try covers(slot: slot, latitude: latitude, longitude: longitude) }
        return try locator(slot).covers(latitude: latitude, longitude: longitude)
    }

    /// The GEOS locator of the polygon in `slot`, built on first use.
    private func locator(_ slot: Int) throws(GEOSError) -> PolygonLocator {
        if let made = locators[slot] { return made }
        guard case .polygon(let shape) = fenceSet.shape(at: slot) else {
            preconditionFailure("slot \(slot) is not a polygon")
        }
        let made = try PolygonLocator(context: context, shape: shape)
        locators[slot] = made
        return made
    }

    /// The slots of every fence containing the point on `level` (nil: no level), ascending —
    /// that is, in ascending id order. Found by a scan of every fence's bounding boxes.
    ///
    /// This is the obvious, slow twin the indexed query is tested against.
    /// - Complexity: O(n) box checks for n fences, plus the exact tests of the candidates.
    package func containingByScan(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions = ContainmentOptions()
    ) throws(GEOSError) -> [Int] {
        var result: [Int] = []
        let (boxes, slots) = scanEntries
        for e in 0..<boxes.count where boxes[e].contains(latitude: latitude, longitude: longitude) {
            let slot = Int(slots[e])
            guard fenceSet.levelMatches(slot: slot, level: level, options: options) else { continue }
            if try covers(slot: slot, latitude: latitude, longitude: longitude) { result.append(slot) }
        }
        result.sort()
        // A fence split in two boxes can only match through one of them, but stay safe.
        return result.uniqued()
    }

    /// The slots of every fence containing the point, ascending (ascending id), found through
    /// the fence set's R-tree (see ``containing(latitude:longitude:level:options:into:)`` for
    /// the allocation-free form).
    /// - Complexity: O(log n + k) expected for k candidate boxes, plus their exact tests.
    package func containing(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions = ContainmentOptions()
    ) throws(GEOSError) -> [Int] {
        var slots = candidates
        candidates = []
        defer { candidates = slots }
        try containing(latitude: latitude, longitude: longitude, level: level, options: options, into: &slots)
        return slots.map(Int.init)
    }
}

extension Array where Element == Int {
    /// The sorted array without repeated neighbours.
    func uniqued() -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(count)
        for x in self where out.last != x { out.append(x) }
        return out
    }
}

/// What the per-fix containment path reads, as plain values and pointers: reading arrays of
/// a class instance in a loop costs reference counting the optimizer keeps (measured 40 % of
/// a query at 1k fences).
struct HotPath {
    let directoryEnabled: Bool
    let directory: CellDirectory.View
    let polygons: PolygonEdgeIndex.View
    let cells: PolygonCellIndex.View
    /// Slot → storage position; the arrays below are in storage order.
    let storage: UnsafePointer<Int32>
    /// Two per position: the containment record (see ``PolygonCellIndex``).
    let records: UnsafePointer<SIMD4<Double>>
    let levels: UnsafePointer<Int>
    /// False when no fence has a level: the level rule then needs no per-fence load.
    let anyLevelFence: Bool

    init(_ set: FenceSet) {
        directoryEnabled = set.directory.isEnabled
        directory = set.directory.view
        polygons = set.storage.polygonEdges.view
        cells = set.storage.polygonCells.view(vertices: set.storage.shapes.vertices.pointer, vertexCount: set.storage.shapes.vertices.count / 2)
        storage = set.storage.storageIndex.pointer
        records = set.storage.polygonCells.records.pointer
        levels = set.storage.levelBuffer.pointer
        anyLevelFence = set.storage.anyLevelFence
    }

    /// The certified test of the polygon at storage position `position`: its cells, or its
    /// edge runs when it has no cells.
    @inline(__always)
    func polygonTest(position: Int, x: Double, y: Double) -> PolygonTestResult {
        Self.polygonTest(polygons, cells, position: position, records[2 &* position], records[2 &* position &+ 1], x: x, y: y)
    }

    /// ``polygonTest(position:x:y:)`` on the polygon's two records, read already (`low`,
    /// `high`), and the two indexes it needs, not the whole path: called as a method from
    /// the per-fix loop, the path (249 bytes) was copied by a `memcpy` call for every polygon
    /// tested.
    @inline(__always)
    static func polygonTest(
        _ polygons: PolygonEdgeIndex.View, _ cells: PolygonCellIndex.View, position: Int, _ low: SIMD4<Double>,
        _ high: SIMD4<Double>, x: Double, y: Double
    ) -> PolygonTestResult {
        if high.z.bitPattern == 0 { return polygons.test(slot: position, x: x, y: y) }
        return cells.test(low, high, x: x, y: y)
    }

    /// The level rule (semantics §2) for the fence at storage position `position`.
    @inline(__always)
    func levelMatches(position: Int, level: Int?, options: ContainmentOptions) -> Bool {
        if !anyLevelFence { return options.globalFences }
        let fenceLevel = levels[position]
        if fenceLevel == FenceSet.noLevel { return options.globalFences }
        guard options.levelFences, let level else { return false }
        return level == fenceLevel
    }
}

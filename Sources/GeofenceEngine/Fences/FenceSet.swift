import GeofenceGEOS
import GeofenceGeometry

/// An immutable, validated set of fences, shared freely between threads.
///
/// Fences live in dense integer *slots*, ordered by id (UTF-8 byte order), so a sorted list
/// of slots is a list of ids sorted ascending. Everything is flat: per-slot arrays of plain
/// numbers, ids and properties as byte blobs with offsets, polygon rings as one vertex array
/// with ring and part offsets, the R-tree, the cell directory and the polygon edge runs. The
/// arrays live in memory the set owns, or in a read-only mapping of a compiled fence file
/// (``open(path:)``): opening a compiled set parses nothing. ``Fence`` values are made on
/// demand (``fences``, ``fence(at:)``), never kept. GEOS state is not here: each thread gets
/// its own in a ``ContainmentEvaluator``.
public final class FenceSet: Sendable {
    /// Number of fences.
    public let count: Int
    /// How many polygons GEOS MakeValid repaired while building the set.
    public let repairedCount: Int

    // By slot.
    let ids: ByteTable
    let idTable: FenceIDTable
    let properties: ByteTable
    let libraries: ByteTable
    let attributes: FrozenBuffer<FenceAttributes>
    /// The fence's level, or `FenceSet.noLevel`.
    let levels: FrozenBuffer<Int>
    let ranks: FrozenBuffer<Int>
    /// Seconds (meaningful where the attributes say the fence has a dwell time).
    let dwellSeconds: FrozenBuffer<Double>
    /// The fence's own dwell time in ms as the tracker uses it, or `FenceSet.defaultDwell`.
    let dwellMilliseconds: FrozenBuffer<Int64>
    let featureIndexes: FrozenBuffer<Int>
    /// The circle, or the polygon's minimum enclosing circle: (latitude, longitude, radius m, 0).
    let enclosingCircles: FrozenBuffer<SIMD4<Double>>
    /// The per-fence parts of an event line (see ``EventLineFormatter``): for slot s, the id
    /// part is string 2s and the tail 2s + 1.
    let eventFragments: ByteTable

    /// The *storage order* of the hot paths: fences sorted along a Hilbert curve of their box
    /// centres, so the fences a point query meets (neighbours in space) sit next to each other
    /// in memory. `storageIndex[slot]` is a fence's position in that order.
    let storageIndex: FrozenBuffer<Int32>
    /// Every fence's containment record by storage position (one 64-byte line: a circle's
    /// numbers, or a polygon's grid), and every polygon's classified cells (see
    /// ``PolygonCellIndex``), so the test of a candidate starts with one cache line.
    let polygonCells: PolygonCellIndex
    /// `levels` by storage position, read through a pointer by the hot paths.
    let levelBuffer: FrozenBuffer<Int>
    /// Every polygon's parts, rings and vertices, by storage position.
    let shapes: FenceShapes
    /// The polygons' rings in runs with bounds, for the certified Swift point-in-polygon test.
    let polygonEdges: PolygonEdgeIndex
    /// The packed R-tree over every fence's boxes (values: slots); nearest and box queries.
    public let index: PackedRTree
    /// A grid over the same boxes for point queries (see ``CellDirectory``).
    public let directory: CellDirectory

    /// True when some fence has a level (the level rule then reads per-fence levels).
    let anyLevelFence: Bool
    /// The largest radius (circle or enclosing circle) in the set; 0 when empty.
    let largestRadius: Double

    static let noLevel = Int.min
    /// `dwellMilliseconds` of a fence without its own dwell time.
    static let defaultDwell = Int64.min

    /// Validates the fences and builds the set.
    ///
    /// - Parameter repair: fix invalid polygons with GEOS MakeValid instead of rejecting them.
    /// - Throws: ``FenceValidationError`` listing every problem (duplicate ids, invalid
    ///   polygons, bad radii), or ``GEOSError`` when GEOS itself fails.
    /// - Complexity: O(n log n + v log v) for n fences and v polygon vertices (the R-tree's
    ///   bulk load is O(n log n)).
    public convenience init(_ fences: [Fence], repair: Bool = false) throws {
        let outcome = try FenceValidator.validate(fences, repair: repair)
        if !outcome.problems.isEmpty { throw FenceValidationError(problems: outcome.problems) }
        self.init(validated: outcome.fences, repairedCount: outcome.repairedCount)
    }

    /// Builds the set from fences that passed ``FenceValidator`` (enclosing circles filled in,
    /// ids unique).
    convenience init(validated fences: [Fence], repairedCount: Int) {
        var records = FenceRecords()
        for fence in fences { records.append(fence) }
        var chunks = [records]
        let order = FenceIDOrder.sorted(chunks).map(\.reference)
        self.init(storage: FenceSetBuilder.build(&chunks, slots: order), repairedCount: repairedCount)
    }

    /// A set over storage built by ``FenceSetBuilder`` or read from a compiled file.
    init(storage s: FenceStorage, repairedCount: Int) {
        count = s.ids.count
        self.repairedCount = repairedCount
        ids = s.ids
        idTable = s.idTable
        properties = s.properties
        libraries = s.libraries
        attributes = s.attributes
        levels = s.levels
        ranks = s.ranks
        dwellSeconds = s.dwellSeconds
        dwellMilliseconds = s.dwellMilliseconds
        featureIndexes = s.featureIndexes
        enclosingCircles = s.enclosingCircles
        eventFragments = s.eventFragments
        storageIndex = s.storageIndex
        polygonCells = s.polygonCells
        levelBuffer = s.levelBuffer
        shapes = s.shapes
        polygonEdges = s.polygonEdges
        index = s.index
        directory = s.directory
        anyLevelFence = s.anyLevelFence
        largestRadius = s.largestRadius
    }

    /// Bytes of the data a point query reads: the grid directory, containment records and
    /// polygon cells, levels and polygon vertices.
    public var hotBytes: Int {
        directory.memoryBytes + polygonCells.memoryBytes + levelBuffer.count * 8 + shapes.vertices.count * 8
    }

    /// The slot of the fence with this id, or nil.
    /// - Complexity: O(1) expected (a hash table lookup).
    public func slot(of id: String) -> Int? {
        var id = id
        return id.withUTF8 { idTable.slot(of: UnsafeRawBufferPointer($0), ids: ids) }
    }

    /// The fence with this id, or nil.
    public subscript(id id: String) -> Fence? { slot(of: id).map { fence(at: $0) } }

    /// True when the fence in `slot` takes part for a fix on `level`, under `options`
    /// (semantics §2: a level fence matches only the same level; a global fence any fix).
    @inline(__always)
    func levelMatches(slot: Int, level: Int?, options: ContainmentOptions) -> Bool {
        let fenceLevel = levels[slot]
        if fenceLevel == Self.noLevel { return options.globalFences }
        guard options.levelFences, let level else { return false }
        return level == fenceLevel
    }
}

/// Which fences take part in containment (semantics §1: both kinds on by default).
public struct ContainmentOptions: Hashable, Sendable {
    /// Fences with a level.
    public var levelFences: Bool
    /// Fences without a level.
    public var globalFences: Bool

    public init(levelFences: Bool = true, globalFences: Bool = true) {
        self.levelFences = levelFences
        self.globalFences = globalFences
    }
}

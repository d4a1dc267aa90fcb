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

    /// Everything the set holds, as flat buffers (see ``FenceStorage``): per-slot values, the
    /// storage (Hilbert) order of the hot paths, the shapes, the edge runs, the index.
    let storage: FenceStorage

    /// The packed R-tree over every fence's boxes (values: slots); nearest and box queries.
    package var index: PackedRTree {
        // Built for containment alone, the set has its tree only where the directory is off.
        if storage.directory.isEnabled { storage.requireEverything("the R-tree") }
        return storage.index
    }
    /// A grid over the same boxes for point queries (see ``CellDirectory``).
    package var directory: CellDirectory { storage.directory }

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
        let slots = FenceIDOrder.resolve([(records.ids, records.featureIndexes)], recordLists: 1).slots
        var chunks = [records]
        self.init(storage: FenceSetBuilder.build(&chunks, slots: slots), repairedCount: repairedCount)
    }

    /// A set over storage built by ``FenceSetBuilder`` or read from a compiled file.
    init(storage: FenceStorage, repairedCount: Int) {
        count = storage.ids.count
        self.repairedCount = repairedCount
        self.storage = storage
    }

    /// Bytes of the data a point query reads: the grid directory, containment records and
    /// polygon cells, levels and polygon vertices.
    package var hotBytes: Int {
        storage.directory.memoryBytes + storage.polygonCells.memoryBytes + storage.levelBuffer.count * 8 + storage.shapes.vertices.count * 8
    }

    /// The slot of the fence with this id, or nil.
    /// - Complexity: O(1) expected (a hash table lookup).
    public func slot(of id: String) -> Int? {
        var id = id
        return id.withUTF8 { storage.idTable.slot(of: UnsafeRawBufferPointer($0), ids: storage.ids) }
    }

    /// The fence with this id, or nil.
    public subscript(geofenceID id: String) -> Fence? { slot(of: id).map { fence(at: $0) } }

    /// True when the fence in `slot` takes part for a fix on `level`, under `options`
    /// (semantics §2: a level fence matches only the same level; a global fence any fix).
    @inline(__always)
    func levelMatches(slot: Int, level: Int?, options: ContainmentOptions) -> Bool {
        let fenceLevel = storage.levels[slot]
        if fenceLevel == Self.noLevel { return options.globalFences }
        guard options.levelFences, let level else { return false }
        return level == fenceLevel
    }
}

/// Which fences take part in containment (semantics §1: both kinds on by default).
@frozen
public struct ContainmentOptions: Hashable, Sendable {
    /// Fences with a level.
    public var levelFences: Bool
    /// Fences without a level.
    public var globalFences: Bool

    @inlinable
    public init(levelFences: Bool = true, globalFences: Bool = true) {
        self.levelFences = levelFences
        self.globalFences = globalFences
    }
}

import GeofenceGEOS
import GeofenceGeometry
import RealModule

/// An immutable, validated set of fences, shared freely between threads.
///
/// Fences live in dense integer *slots*, ordered by id (UTF-8 byte order), so a sorted list
/// of slots is a list of ids sorted ascending. Everything a query touches per candidate is
/// kept in flat arrays indexed by slot. GEOS state is not here: each thread gets its own in
/// a ``ContainmentEvaluator``.
public final class FenceSet: Sendable {
    /// The fences, slot order (ascending id).
    public let fences: [Fence]
    /// How many polygons GEOS MakeValid repaired while building the set.
    public let repairedCount: Int

    let slotByID: [String: Int32]
    /// 0 = circle, 1 = polygon, by slot.
    let kinds: [UInt8]
    /// Circle centres in radians, cos(latitude), and sin²(r / 2R), by slot (0 for polygons).
    let circleLatitude: [Double]
    let circleLongitude: [Double]
    let circleCosLatitude: [Double]
    let circleThreshold: [Double]
    /// The fence's level, or `FenceSet.noLevel`, by slot.
    let levels: [Int]
    /// The current-POI keys by slot (rank, then radius): read per entrance and exit, where
    /// copying whole `Fence` values (strings, shapes, properties) cost more than the rule.
    let ranks: [Int]
    let radii: [Double]
    /// The four circle numbers of a slot in one 32-byte record (latitude and longitude in
    /// radians, cos(latitude), sin²(r / 2R)), so the indexed containment test of a circle reads
    /// one cache line instead of four arrays; the threshold is -1 for a polygon.
    let circleRecords: [SIMD4<Double>]
    /// Index entries: one or two non-wrapping boxes per fence, with the fence's slot.
    let entryBoxes: [BoundingBox]
    let entrySlots: [Int32]
    /// The packed R-tree over `entryBoxes` (values: the entries' slots), built once here;
    /// containment and nearest queries go through it.
    public let index: PackedRTree
    /// A grid over the same entries for point queries (see ``CellDirectory``).
    public let directory: CellDirectory
    /// The *storage order* of the hot paths: fences sorted along a Hilbert curve of their box
    /// centres, so the fences a point query meets (neighbours in space) sit next to each other
    /// in memory. `storageIndex[slot]` is a fence's position in that order.
    let storageIndex: FrozenBuffer<Int32>
    /// `circleRecords` and `levels` in storage order, read through pointers by the hot paths.
    let circleRecordBuffer: FrozenBuffer<SIMD4<Double>>
    let levelBuffer: FrozenBuffer<Int>
    /// Every polygon's rings, flat, in storage order, for the certified Swift point-in-polygon test.
    let polygonEdges: PolygonEdgeIndex

    static let noLevel = Int.min
    static let circleKind: UInt8 = 0
    static let polygonKind: UInt8 = 1

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

    /// Builds the set from fences that passed ``FenceValidator``.
    init(validated: [Fence], repairedCount: Int) {
        let sorted = validated.sorted { fenceIdPrecedes($0.id, $1.id) }
        fences = sorted
        self.repairedCount = repairedCount
        var slotByID: [String: Int32] = [:]
        slotByID.reserveCapacity(sorted.count)
        var kinds: [UInt8] = [], lat: [Double] = [], lon: [Double] = [], cosLat: [Double] = [], threshold: [Double] = []
        var levels: [Int] = []
        var boxes: [BoundingBox] = [], slots: [Int32] = []
        for (slot, fence) in sorted.enumerated() {
            slotByID[fence.id] = Int32(slot)
            levels.append(fence.level ?? Self.noLevel)
            switch fence.shape {
            case .circle(let center, let radius):
                let latR = center.latitude * Sphere.degreesToRadians
                kinds.append(Self.circleKind)
                lat.append(latR)
                lon.append(center.longitude * Sphere.degreesToRadians)
                cosLat.append(Double.cos(latR))
                threshold.append(Sphere.capThreshold(radius: radius))
            case .polygon:
                kinds.append(Self.polygonKind)
                lat.append(0); lon.append(0); cosLat.append(0); threshold.append(0)
            }
            for box in fence.boundingBoxes {
                boxes.append(box)
                slots.append(Int32(slot))
            }
        }
        self.slotByID = slotByID
        self.kinds = kinds
        circleLatitude = lat
        circleLongitude = lon
        circleCosLatitude = cosLat
        circleThreshold = threshold
        self.levels = levels
        ranks = sorted.map(\.rank)
        radii = sorted.map(\.radius)
        let records = (0..<sorted.count).map { slot in
            kinds[slot] == Self.circleKind
                ? SIMD4(lat[slot], lon[slot], cosLat[slot], threshold[slot]) : SIMD4<Double>(0, 0, 0, -1)
        }
        circleRecords = records
        entryBoxes = boxes
        entrySlots = slots
        index = PackedRTree(boxes: boxes, values: slots)
        // Storage order: Hilbert order of each fence's first box (the east part of a fence split
        // at the antimeridian stands for the whole).
        var firstBox = [BoundingBox](repeating: .empty, count: sorted.count)
        for (e, slot) in slots.enumerated().reversed() { firstBox[Int(slot)] = boxes[e] }
        let order = PackedRTree.hilbertOrder(firstBox)  // storage position -> slot
        var position = [Int32](repeating: 0, count: sorted.count)
        for (k, slot) in order.enumerated() { position[slot] = Int32(k) }
        storageIndex = FrozenBuffer(position)
        directory = CellDirectory(boxes: boxes, slots: slots, storage: slots.map { position[Int($0)] })
        circleRecordBuffer = FrozenBuffer(order.map { records[$0] })
        levelBuffer = FrozenBuffer(order.map { levels[$0] })
        polygonEdges = PolygonEdgeIndex(order.map { sorted[$0] })
    }

    /// Number of fences.
    public var count: Int { fences.count }

    /// Bytes of the data a point query reads: the grid directory, circle records, levels and
    /// polygon edges.
    public var hotBytes: Int {
        directory.memoryBytes + circleRecordBuffer.count * 32 + levelBuffer.count * 8 + polygonEdges.memoryBytes
    }

    /// The slot of the fence with this id, or nil.
    public func slot(of id: String) -> Int? { slotByID[id].map(Int.init) }

    /// The fence with this id, or nil.
    public subscript(id id: String) -> Fence? { slotByID[id].map { fences[Int($0)] } }

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


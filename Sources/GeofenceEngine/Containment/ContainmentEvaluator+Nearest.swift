import GeofenceGEOS
import GeofenceGeometry

extension NearestFilter {
    /// The two kinds of fence shape, for filters.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case circle
        case polygon
    }
}

/// Which fences a nearest search (and a registration plan) considers.
///
/// Levels follow the containment rule (semantics §2): the fix's `level` selects the global
/// fences plus the level fences on that level; a fix without a level selects only global
/// fences. `options` can switch either group off.
public struct NearestFilter: Hashable, Sendable {
    /// The fix's floor, or nil for a fix without a level.
    public var level: Int?
    /// Level and global fences on or off (both on by default).
    public var options: ContainmentOptions
    /// Only fences of this library; nil: any library (and fences without one).
    public var library: String?
    /// Only fences of this kind; nil: both.
    public var kind: NearestFilter.Kind?

    public init(level: Int? = nil, options: ContainmentOptions = ContainmentOptions(), library: String? = nil, kind: NearestFilter.Kind? = nil) {
        self.level = level
        self.options = options
        self.library = library
        self.kind = kind
    }
}

extension FenceSet {
    /// True when the fence in `slot` passes `filter`.
    /// - Complexity: O(1) (plus the library name comparison).
    func accepts(slot: Int, filter: NearestFilter) -> Bool {
        guard levelMatches(slot: slot, level: filter.level, options: filter.options) else { return false }
        if let kind = filter.kind, (kind == .circle) != isCircle(at: slot) { return false }
        if let library = filter.library {
            guard let name = libraryBytes(at: slot), name.elementsEqual(library.utf8) else { return false }
        }
        return true
    }
}

extension ContainmentEvaluator {
    /// The slots of the `count` fences nearest to the point that pass `filter`, ranked by the
    /// distance in metres from the point to the fence's edge (0 when the fence covers the
    /// point), ties by id (slot). Fewer when fewer fences pass the filter; none when `count` ≤ 0
    /// or the point is not a valid coordinate (``nearest(latitude:longitude:count:filter:)``,
    /// the public form, throws for those).
    ///
    /// Best-first search of the fence set's R-tree with a heap, lower bound = great-circle
    /// distance to the entry's box, exact distance = ``distance(slot:latitude:longitude:)``:
    /// circles exactly (distance to the centre minus the radius, floored at 0); polygons by
    /// GEOS *covers* (skipped when the point is outside the polygon's boxes), then
    /// ``EdgeDistance`` in an azimuthal equidistant projection centred on the point (one per
    /// polygon reached, so one per query and polygon), over the runs of edges whose box is
    /// not already farther than the best edge (``PolygonEdgeChunks``); within centimetres of
    /// the geodesic answer for fences up to 10 km across. A fence split at the antimeridian is reported once.
    /// Same answer as ``nearestByScan(latitude:longitude:count:filter:)``.
    /// - Complexity: O((m + k) log m) for the m boxes nearer than the k-th answer plus the
    ///   exact distances of the fences reached (O(v) each for a polygon of v vertices);
    ///   typically O(log n + k).
    package func nearestSlots(
        latitude: Double, longitude: Double, count: Int, filter: NearestFilter = NearestFilter()
    ) throws(GEOSError) -> [FenceDistance] {
        guard Coordinate(latitude: latitude, longitude: longitude).isValid else { return [] }
        let set = fenceSet
        let found = try set.index.nearest(
            to: Coordinate(latitude: latitude, longitude: longitude), count: count,
            accept: { set.accepts(slot: Int($0), filter: filter) },
            exactDistance: { (slot: Int32, bound: Double) throws(GEOSError) -> Double in
                // A bound above 0 means the point is outside every box of the fence, so GEOS
                // *covers* is false: that spares the GEOS call (and the locator build) for
                // polygons that are merely near.
                try self.indexedDistance(slot: Int(slot), latitude: latitude, longitude: longitude, outsideBoxes: bound > 0)
            })
        return found.map { FenceDistance(slot: $0.value, distance: $0.distance) }
    }

    /// The slow twin of ``nearestSlots(latitude:longitude:count:filter:)``: the exact distance to
    /// every fence that passes the filter, sorted by (distance, slot).
    /// - Complexity: O(n log n) plus n exact distances.
    package func nearestByScan(
        latitude: Double, longitude: Double, count: Int, filter: NearestFilter = NearestFilter()
    ) throws(GEOSError) -> [FenceDistance] {
        guard count > 0, Coordinate(latitude: latitude, longitude: longitude).isValid else { return [] }
        var all: [FenceDistance] = []
        for slot in 0..<fenceSet.count where fenceSet.accepts(slot: slot, filter: filter) {
            let d = try distance(slot: slot, latitude: latitude, longitude: longitude)
            all.append(FenceDistance(slot: Int32(slot), distance: d))
        }
        all.sort { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
        return Array(all.prefix(count))
    }
}

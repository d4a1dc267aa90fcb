internal import CGEOS
import GeofenceGeometry

/// The naive GEOS C-API containment path, kept as a benchmark baseline.
///
/// It is what a first integration of GEOS looks like: a GEOS STRtree over the fences (polygons
/// as themselves, other items as their box rectangles), and per tested point a new GEOS point
/// geometry, a tree query and `GEOSPreparedCovers_r` for each candidate polygon. Every point
/// geometry touches a reference count shared by all contexts, which is why this path stops
/// scaling at one thread (see ``PolygonLocator`` for the path the engine uses).
public final class NaiveGEOSContainment {
    private let context: GEOSContext
    private let tree: OpaquePointer  // GEOSSTRtree *
    private var geometries: [GEOSGeometry] = []
    /// Prepared geometry per item, nil for box-only items.
    private var prepared: [OpaquePointer?] = []
    private var candidates: [Int32] = []

    /// Indexes the items: a polygon is tested exactly; a box-only item (`polygon == nil`) is
    /// reported as a candidate for the caller to test.
    public init(context: GEOSContext, items: [(box: BoundingBox, polygon: MultiPolygon?)]) throws(GEOSError) {
        self.context = context
        let h = context.handle
        // Node capacity 10, as the C peer uses; NULL on exception.
        tree = try context.check(GEOSSTRtree_create_r(h, 10), "GEOSSTRtree_create_r")
        for (index, item) in items.enumerated() {
            let geometry: GEOSGeometry
            if let polygon = item.polygon {
                geometry = try GEOSGeometry(context: context, multiPolygon: polygon)
                // Borrowed geometry must outlive the prepared one; NULL on exception.
                prepared.append(try context.check(GEOSPrepare_r(h, geometry.raw), "GEOSPrepare_r"))
            } else {
                let b = item.box
                // New rectangle polygon; NULL on exception.
                geometry = GEOSGeometry(context: context, raw: try context.check(
                    GEOSGeom_createRectangle_r(h, b.minLongitude, b.minLatitude, b.maxLongitude, b.maxLatitude),
                    "GEOSGeom_createRectangle_r"))
                prepared.append(nil)
            }
            geometries.append(geometry)
            // The tree keeps the geometry pointer and the item; the item is the index + 1.
            GEOSSTRtree_insert_r(h, tree, geometry.raw, UnsafeMutableRawPointer(bitPattern: index + 1))
        }
    }

    deinit {
        let h = context.handle
        for p in prepared { if let p { GEOSPreparedGeom_destroy_r(h, p) } }
        GEOSSTRtree_destroy_r(h, tree)
    }

    /// Items containing the point: polygons that cover it (tested here), and box-only items
    /// whose box holds it (for the caller to test). Appends their indices to `result`.
    public func query(latitude: Double, longitude: Double, into result: inout [Int32]) throws(GEOSError) {
        let h = context.handle
        // A new point geometry per query: the cost this baseline exists to show. NULL on exception.
        let point = try context.check(GEOSGeom_createPointFromXY_r(h, longitude, latitude), "GEOSGeom_createPointFromXY_r")
        defer { GEOSGeom_destroy_r(h, point) }
        candidates.removeAll(keepingCapacity: true)
        withUnsafeMutablePointer(to: &candidates) { list in
            GEOSSTRtree_query_r(h, tree, point, { item, userdata in
                let list = userdata!.assumingMemoryBound(to: [Int32].self)
                list.pointee.append(Int32(Int(bitPattern: item) - 1))
            }, list)
        }
        for index in candidates {
            if let p = prepared[Int(index)] {
                // 1 true, 0 false, 2 exception.
                if try context.checkPredicate(GEOSPreparedCovers_r(h, p, point), "GEOSPreparedCovers_r") {
                    result.append(index)
                }
            } else {
                result.append(index)
            }
        }
    }
}

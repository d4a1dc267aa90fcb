internal import CGEOSShim
import GeofenceGeometry

/// Exact point location in one polygonal fence: GEOS's indexed point-in-area locator.
///
/// Built once per polygon and per thread; each query allocates nothing and creates no GEOS
/// geometry. The locator builds its index lazily on the first query, so it is not
/// `Sendable`: it belongs to one thread, with the context that made it.
public final class PolygonLocator {
    private let geometry: GEOSGeometry  // must outlive the locator
    private let raw: OpaquePointer  // gfs_locator *

    /// Builds a locator over the polygons (GeoJSON order: x = longitude, y = latitude).
    public init(context: GEOSContext, shape: MultiPolygon) throws(GEOSError) {
        geometry = try GEOSGeometry(context: context, multiPolygon: shape)
        // NULL, with the reason in the context, when GEOS throws.
        raw = try context.check(gfs_locator_create(context.raw, geometry.raw), "gfs_locator_create")
    }

    deinit { gfs_locator_destroy(raw) }

    /// True when the polygons cover the point: inside, or on an edge or a vertex. A point in a
    /// hole is outside.
    ///
    /// - Complexity: O(log v + k) for v vertices and k edges crossing the point's latitude.
    @inline(__always)
    public func covers(latitude: Double, longitude: Double) throws(GEOSError) -> Bool {
        // 1 covered, 0 exterior, -1 exception (message in the context).
        let r = gfs_locator_covers(raw, longitude, latitude)
        if r < 0 { throw geometry.context.failure("gfs_locator_covers") }
        return r == 1
    }
}

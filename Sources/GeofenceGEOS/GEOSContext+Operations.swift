internal import CGEOS
import GeofenceGeometry

extension GEOSContext {
    /// GEOS's reason why the polygons are not a valid geometry (e.g.
    /// `"Self-intersection[-97.7 30.2]"`), or nil when they are valid.
    ///
    /// - Complexity: O(v log v) for v vertices.
    public func validityProblem(of shape: MultiPolygon) throws(GEOSError) -> String? {
        let geometry = try GEOSGeometry(context: self, multiPolygon: shape)
        // 1 valid, 0 invalid, 2 exception. `reason` is allocated by GEOS: free with GEOSFree_r.
        var reason: UnsafeMutablePointer<CChar>? = nil
        var location: OpaquePointer? = nil
        let valid = GEOSisValidDetail_r(handle, geometry.raw, 0, &reason, &location)
        defer {
            if let reason { GEOSFree_r(handle, reason) }
            if let location { GEOSGeom_destroy_r(handle, location) }
        }
        if try checkPredicate(valid, "GEOSisValidDetail_r") { return nil }
        var text = reason.map { String(cString: $0) } ?? "invalid geometry"
        if let location {
            var x = 0.0, y = 0.0
            if GEOSGeomGetX_r(handle, location, &x) == 1, GEOSGeomGetY_r(handle, location, &y) == 1 {
                text += " at [\(x), \(y)]"
            }
        }
        return text
    }

    /// The polygonal part of GEOS MakeValid's answer for the shape. Collapsed parts (lines,
    /// points) are dropped; the result may have no polygon left.
    public func makeValid(_ shape: MultiPolygon) throws(GEOSError) -> MultiPolygon {
        let geometry = try GEOSGeometry(context: self, multiPolygon: shape)
        // New geometry owned by the caller; NULL on exception.
        let repaired = try check(GEOSMakeValid_r(handle, geometry.raw), "GEOSMakeValid_r")
        return try GEOSGeometry(context: self, raw: repaired).polygonalParts()
    }

    /// The smallest circle holding every point, in the points' own plane units.
    ///
    /// Points are planar `(x, y)`; the engine passes a polygon's vertices projected into a
    /// ``LocalProjection`` so that the answer is in metres.
    /// - Complexity: O(n) expected (GEOS's Welzl-style algorithm).
    public func minimumBoundingCircle(of points: [(x: Double, y: Double)]) throws(GEOSError)
        -> (x: Double, y: Double, radius: Double)
    {
        guard let first = points.first else {
            throw GEOSError(function: "GEOSMinimumBoundingCircle_r", message: "no points")
        }
        if points.count == 1 { return (first.x, first.y, 0) }
        var flat: [Double] = []
        flat.reserveCapacity(points.count * 2)
        for p in points { flat.append(p.x); flat.append(p.y) }
        // Copies the buffer; NULL on exception.
        let seq = try check(flat.withUnsafeBufferPointer {
            GEOSCoordSeq_copyFromBuffer_r(handle, $0.baseAddress, UInt32(points.count), 0, 0)
        }, "GEOSCoordSeq_copyFromBuffer_r")
        // Takes ownership of the sequence; NULL on exception.
        let line = GEOSGeometry(
            context: self, raw: try check(GEOSGeom_createLineString_r(handle, seq), "GEOSGeom_createLineString_r"))
        var radius = 0.0
        var center: OpaquePointer? = nil
        // Returns a new geometry (the circle as a polygon) and a new center point; NULL on exception.
        let circle = try check(
            GEOSMinimumBoundingCircle_r(handle, line.raw, &radius, &center), "GEOSMinimumBoundingCircle_r")
        GEOSGeom_destroy_r(handle, circle)
        let centerPoint = GEOSGeometry(context: self, raw: try check(center, "GEOSMinimumBoundingCircle_r center"))
        var x = 0.0, y = 0.0
        try checkStatus(GEOSGeomGetX_r(handle, centerPoint.raw, &x), "GEOSGeomGetX_r")
        try checkStatus(GEOSGeomGetY_r(handle, centerPoint.raw, &y), "GEOSGeomGetY_r")
        return (x, y, radius)
    }
}

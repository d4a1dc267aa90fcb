internal import CGEOS
import GeofenceGeometry

/// An owning handle on one GEOS geometry; destroyed with its context in `deinit`.
///
/// Keeps its context alive, and like it serves one thread at a time.
final class GEOSGeometry {
    let context: GEOSContext
    let raw: OpaquePointer  // GEOSGeometry *

    init(context: GEOSContext, raw: OpaquePointer) {
        self.context = context
        self.raw = raw
    }

    deinit { GEOSGeom_destroy_r(context.handle, raw) }

    /// Builds a Polygon (one part) or MultiPolygon in `context` from flat lon/lat rings.
    ///
    /// Rings must already be closed with at least four positions (the loaders check);
    /// GEOS's own complaint is passed on otherwise.
    convenience init(context: GEOSContext, multiPolygon: MultiPolygon) throws(GEOSError) {
        let h = context.handle
        var parts: [OpaquePointer?] = []
        parts.reserveCapacity(multiPolygon.polygons.count)
        do {
            for polygon in multiPolygon.polygons {
                parts.append(try Self.makePolygon(context, polygon))
            }
        } catch {
            for part in parts { GEOSGeom_destroy_r(h, part) }
            throw error
        }
        if parts.count == 1, let only = parts[0] {
            self.init(context: context, raw: only)
            return
        }
        // Takes ownership of the parts (not of the array) on success; NULL on exception.
        let collection = parts.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createCollection_r(h, Int32(GEOS_MULTIPOLYGON.rawValue), buffer.baseAddress, UInt32(buffer.count))
        }
        guard let collection else {
            let failure = context.failure("GEOSGeom_createCollection_r")
            for part in parts { GEOSGeom_destroy_r(h, part) }
            throw failure
        }
        self.init(context: context, raw: collection)
    }

    private static func makeRing(_ context: GEOSContext, _ ring: Ring) throws(GEOSError) -> OpaquePointer {
        let h = context.handle
        // Copies the buffer; returns NULL on exception.
        let sequence = ring.positions.withUnsafeBufferPointer { buffer in
            GEOSCoordSeq_copyFromBuffer_r(h, buffer.baseAddress, UInt32(buffer.count / 2), 0, 0)
        }
        let seq = try context.check(sequence, "GEOSCoordSeq_copyFromBuffer_r")
        // Takes ownership of the sequence, even on failure; NULL on exception.
        return try context.check(GEOSGeom_createLinearRing_r(h, seq), "GEOSGeom_createLinearRing_r")
    }

    private static func makePolygon(_ context: GEOSContext, _ polygon: Polygon) throws(GEOSError) -> OpaquePointer {
        let h = context.handle
        let shell = try makeRing(context, polygon.exterior)
        var holes: [OpaquePointer?] = []
        do {
            for hole in polygon.holes { holes.append(try makeRing(context, hole)) }
        } catch {
            GEOSGeom_destroy_r(h, shell)
            for hole in holes { GEOSGeom_destroy_r(h, hole) }
            throw error
        }
        // Takes ownership of shell and holes (not of the array); NULL on exception.
        let made = holes.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createPolygon_r(h, shell, buffer.baseAddress, UInt32(buffer.count))
        }
        return try context.check(made, "GEOSGeom_createPolygon_r")
    }

    /// The polygonal parts of this geometry, read back as flat rings; lines and points
    /// (what MakeValid leaves of collapsed parts) are dropped.
    func polygonalParts() throws(GEOSError) -> MultiPolygon {
        var polygons: [Polygon] = []
        try Self.collectPolygons(context, raw, into: &polygons)
        return MultiPolygon(polygons: polygons)
    }

    private static func collectPolygons(
        _ context: GEOSContext, _ g: OpaquePointer, into polygons: inout [Polygon]
    ) throws(GEOSError) {
        let h = context.handle
        let type = GEOSGeomTypeId_r(h, g)  // -1 on exception
        switch type {
        case Int32(GEOS_POLYGON.rawValue):
            if GEOSisEmpty_r(h, g) == 1 { return }
            let exterior = try context.check(GEOSGetExteriorRing_r(h, g), "GEOSGetExteriorRing_r")
            let holeCount = try context.checkCount(GEOSGetNumInteriorRings_r(h, g), "GEOSGetNumInteriorRings_r")
            var holes: [Ring] = []
            for i in 0..<holeCount {
                let hole = try context.check(GEOSGetInteriorRingN_r(h, g, Int32(i)), "GEOSGetInteriorRingN_r")
                holes.append(try readRing(context, hole))
            }
            polygons.append(Polygon(exterior: try readRing(context, exterior), holes: holes))
        case Int32(GEOS_MULTIPOLYGON.rawValue), Int32(GEOS_GEOMETRYCOLLECTION.rawValue):
            let n = try context.checkCount(GEOSGetNumGeometries_r(h, g), "GEOSGetNumGeometries_r")
            for i in 0..<n {
                let part = try context.check(GEOSGetGeometryN_r(h, g, Int32(i)), "GEOSGetGeometryN_r")
                try collectPolygons(context, part, into: &polygons)
            }
        case -1:
            throw context.failure("GEOSGeomTypeId_r")
        default:
            return  // points and lines carry no area
        }
    }

    private static func readRing(_ context: GEOSContext, _ ring: OpaquePointer) throws(GEOSError) -> Ring {
        let h = context.handle
        let seq = try context.check(GEOSGeom_getCoordSeq_r(h, ring), "GEOSGeom_getCoordSeq_r")
        var size: UInt32 = 0
        try context.checkStatus(GEOSCoordSeq_getSize_r(h, seq, &size), "GEOSCoordSeq_getSize_r")
        var flat = [Double](repeating: 0, count: Int(size) * 2)
        let status = flat.withUnsafeMutableBufferPointer { buffer in
            GEOSCoordSeq_copyToBuffer_r(h, seq, buffer.baseAddress, 0, 0)  // 0 on exception
        }
        try context.checkStatus(status, "GEOSCoordSeq_copyToBuffer_r")
        return Ring(positions: flat)
    }
}

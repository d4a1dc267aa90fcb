import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

/// A fence near a point, with the distance from the point to the fence's edge.
package struct FenceDistance: Hashable, Sendable {
    /// The fence's slot in its ``FenceSet``.
    package var slot: Int32
    /// Metres from the point to the fence's edge; 0 when the fence covers the point.
    package var distance: Double

    package init(slot: Int32, distance: Double) {
        self.slot = slot
        self.distance = distance
    }
}

extension ContainmentEvaluator {
    /// Metres from the point to the edge of the fence in `slot`, 0 when the fence covers it.
    ///
    /// Circle: great-circle distance to the centre minus the radius. Polygon: great-circle
    /// distance to the nearest edge (see ``EdgeDistance``), holes' edges included.
    /// - Complexity: O(1) for a circle, O(v) for a polygon of v vertices.
    package func distance(slot: Int, latitude: Double, longitude: Double) throws(GEOSError) -> Double {
        let point = Coordinate(latitude: latitude, longitude: longitude)
        if fenceSet.isCircle(at: slot) {
            // One haversine term serves both the containment rule (term <= threshold) and the
            // distance, so "inside" and "distance 0" always agree.
            let circle = fenceSet.enclosingCircle(at: slot)
            let a = Sphere.haversineTerm(point, circle.center)
            if a <= hot.records[2 * Int(hot.storage[slot])].w { return 0 }
            return Swift.max(0, Sphere.distance(haversineTerm: a) - circle.radius)
        }
        if try polygonCovers(slot: slot, latitude: latitude, longitude: longitude) { return 0 }
        return Self.edgeDistance(from: point, rings: fenceSet.rings(at: slot))
    }

    /// Metres from a point to the nearest edge of any of the rings (flat `[lon, lat, …]`).
    static func edgeDistance(from point: Coordinate, rings: [UnsafeBufferPointer<Double>]) -> Double {
        let projection = LocalProjection(center: point)
        var best = Double.infinity
        for ring in rings {
            best = Swift.min(best, EdgeDistance.distance(from: point, projection: projection, ring: ring))
        }
        return best
    }

    /// Metres from a point to the nearest edge of any ring of the shape.
    static func edgeDistance(from point: Coordinate, to shape: MultiPolygon) -> Double {
        let projection = LocalProjection(center: point)
        var best = Double.infinity
        for ring in shape.allRings {
            let d = ring.positions.withUnsafeBufferPointer {
                EdgeDistance.distance(from: point, projection: projection, ring: $0)
            }
            best = Swift.min(best, d)
        }
        return best
    }

    /// Every fence whose edge is within `buffer(slot)` metres of the point (distance 0 when it
    /// covers the point), on `level`, ascending by slot. Found by a scan of every fence's
    /// boxes: the slow twin of the indexed query.
    ///
    /// `maximumBuffer` must be at least every `buffer(slot)`; the box pre-check grows each
    /// box by it. With buffers of 0 this is exactly ``containingByScan(latitude:longitude:level:options:)``.
    /// - Complexity: O(n) box checks, plus an exact distance per candidate.
    package func fencesWithinByScan(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions = ContainmentOptions(),
        maximumBuffer: Double, buffer: (Int) -> Double
    ) throws(GEOSError) -> [FenceDistance] {
        let point = Coordinate(latitude: latitude, longitude: longitude)
        let (boxes, slots) = scanEntries
        var result: [FenceDistance] = []
        var seen = Set<Int32>()
        for e in 0..<boxes.count {
            let slot = slots[e]
            guard !seen.contains(slot) else { continue }
            if maximumBuffer <= 0 {
                guard boxes[e].contains(latitude: latitude, longitude: longitude) else { continue }
            } else {
                guard boxes[e].distance(to: point) <= maximumBuffer else { continue }
            }
            guard fenceSet.levelMatches(slot: Int(slot), level: level, options: options) else { continue }
            seen.insert(slot)
            let limit = buffer(Int(slot))
            if limit <= 0 {
                if try covers(slot: Int(slot), latitude: latitude, longitude: longitude) {
                    result.append(FenceDistance(slot: slot, distance: 0))
                }
                continue
            }
            let d = try distance(slot: Int(slot), latitude: latitude, longitude: longitude)
            if d <= limit { result.append(FenceDistance(slot: slot, distance: d)) }
        }
        result.sort { $0.slot < $1.slot }
        return result
    }

    /// Every fence within its buffer of the point, ascending by slot, found through the
    /// fence set's R-tree; same answer as
    /// ``fencesWithinByScan(latitude:longitude:level:options:maximumBuffer:buffer:)``.
    /// - Complexity: O(log n + k) expected for k candidate boxes, plus their exact distances.
    package func fencesWithin(
        latitude: Double, longitude: Double, level: Int?, options: ContainmentOptions = ContainmentOptions(),
        maximumBuffer: Double, buffer: (Int) -> Double
    ) throws(GEOSError) -> [FenceDistance] {
        var result: [FenceDistance] = []
        try fencesWithin(
            latitude: latitude, longitude: longitude, level: level, options: options,
            maximumBuffer: maximumBuffer, buffer: buffer, into: &result)
        return result
    }
}

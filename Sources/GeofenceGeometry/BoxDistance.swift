import RealModule
extension BoundingBox {
    /// Great-circle distance in metres from a point to the nearest point of this box
    /// (0 when the point is inside), treating the box's sides as meridians and parallels.
    ///
    /// Used as the lower bound of a best-first nearest search: every point of a fence lies
    /// in its box, so no fence is nearer than its box. The result is lowered by 1 mm so
    /// rounding can never make it exceed a true distance.
    /// - Complexity: O(1).
    package func distance(to point: Coordinate) -> Double {
        if isEmpty { return .infinity }
        let lat = point.latitude, lon = point.longitude
        if lon >= minLongitude && lon <= maxLongitude {
            if lat >= minLatitude && lat <= maxLatitude { return 0 }
            let dLat = lat < minLatitude ? minLatitude - lat : lat - maxLatitude
            return Swift.max(0, dLat * Sphere.degreesToRadians * Sphere.radius - 0.001)
        }
        // The nearest side is the meridian reached by the smaller longitude step (wrapping).
        var toWest = (minLongitude - lon).truncatingRemainder(dividingBy: 360)
        if toWest < 0 { toWest += 360 }
        var toEast = (lon - maxLongitude).truncatingRemainder(dividingBy: 360)
        if toEast < 0 { toEast += 360 }
        let sideLongitude = toWest <= toEast ? minLongitude : maxLongitude
        let dLon = (sideLongitude - lon) * Sphere.degreesToRadians
        // Along a meridian the distance to a fixed point has one minimum, at the foot of the
        // perpendicular: clamp that latitude into the side's span.
        let latR = lat * Sphere.degreesToRadians
        let cosDLon = Double.cos(dLon)
        let d: Double
        if cosDLon <= 0 {
            // 90° or more away in longitude: distance along the side is monotonic towards a
            // pole, so the nearest point is one of the two corners.
            d = Swift.min(
                Sphere.distance(point, Coordinate(latitude: minLatitude, longitude: sideLongitude)),
                Sphere.distance(point, Coordinate(latitude: maxLatitude, longitude: sideLongitude)))
        } else {
            let foot = Double.atan(Double.tan(latR) / cosDLon) * Sphere.radiansToDegrees
            let footLat = Swift.max(minLatitude, Swift.min(maxLatitude, foot))
            d = Sphere.distance(point, Coordinate(latitude: footLat, longitude: sideLongitude))
        }
        return Swift.max(0, d - 0.001)
    }
}

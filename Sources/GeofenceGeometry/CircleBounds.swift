import RealModule
/// Bounding boxes of a spherical cap (a circle fence, or any disc of a radius in metres).
@_spi(Engine) public enum CircleBounds {
    /// Slack added on every side, in degrees (about 0.1 mm), so that rounding in the box
    /// maths can never cut off a point the exact distance test accepts.
    @inlinable package static var slack: Double { 1e-9 }

    /// One or two non-wrapping boxes that together hold every point within `radius` metres
    /// of `center`.
    ///
    /// A cap over a pole spans all longitudes; a cap that crosses ±180° is split in two.
    /// - Complexity: O(1).
    package static func boxes(center: Coordinate, radius: Double) -> [BoundingBox] {
        let (first, second) = boxPair(center: center, radius: radius)
        return second.isEmpty ? [first] : [first, second]
    }

    /// ``boxes(center:radius:)`` without an array: the first box, and the second or
    /// `.empty` (for the hot loop of building a set).
    /// - Complexity: O(1).
    package static func boxPair(center: Coordinate, radius: Double) -> (BoundingBox, BoundingBox) {
        let angular = radius / Sphere.radius  // radians
        let dLat = angular * Sphere.radiansToDegrees
        let minLat = center.latitude - dLat - slack
        let maxLat = center.latitude + dLat + slack
        // The cap reaches a pole, or is wider than a hemisphere: it covers every longitude.
        if maxLat >= 90 || minLat <= -90 || angular >= .pi / 2 {
            return (BoundingBox(
                minLongitude: -180, minLatitude: Swift.max(-90, minLat),
                maxLongitude: 180, maxLatitude: Swift.min(90, maxLat)), .empty)
        }
        // Largest longitude offset of a cap of angular radius δ at latitude φ: asin(sin δ / cos φ).
        let ratio = Double.sin(angular) / Double.cos(center.latitude * Sphere.degreesToRadians)
        let dLon = ratio >= 1 ? 180 : Double.asin(ratio) * Sphere.radiansToDegrees
        let minLon = center.longitude - dLon - slack
        let maxLon = center.longitude + dLon + slack
        if dLon >= 180 || maxLon - minLon >= 360 {
            return (BoundingBox(minLongitude: -180, minLatitude: minLat, maxLongitude: 180, maxLatitude: maxLat), .empty)
        }
        if minLon < -180 {
            return (
                BoundingBox(minLongitude: -180, minLatitude: minLat, maxLongitude: maxLon, maxLatitude: maxLat),
                BoundingBox(minLongitude: minLon + 360, minLatitude: minLat, maxLongitude: 180, maxLatitude: maxLat))
        }
        if maxLon > 180 {
            return (
                BoundingBox(minLongitude: minLon, minLatitude: minLat, maxLongitude: 180, maxLatitude: maxLat),
                BoundingBox(minLongitude: -180, minLatitude: minLat, maxLongitude: maxLon - 360, maxLatitude: maxLat))
        }
        return (BoundingBox(minLongitude: minLon, minLatitude: minLat, maxLongitude: maxLon, maxLatitude: maxLat), .empty)
    }
}

/// Distance from a point to polyline edges whose vertices are given in longitude/latitude.
///
/// Edges are straight in longitude/latitude (as GEOS and GeoJSON treat them). For each
/// edge the closest parameter is found in a ``LocalProjection`` centred on the point,
/// then the great-circle distance to that point of the lon/lat edge is measured exactly.
/// Edges longer than ``maximumPieceLength`` are cut into pieces first, so the projection's
/// bend of a lon/lat straight line never matters: the answer is within a few centimetres
/// of the true minimum for fences up to 10 km across (tested against dense sampling).
@_spi(Engine) public enum EdgeDistance {
    /// Longest piece (metres, projected) in which one edge is treated as straight.
    @inlinable package static var maximumPieceLength: Double { 500 }

    /// Smallest great-circle distance in metres from `point` to any edge of the closed
    /// rings in `ring`, a flat array `[lon0, lat0, lon1, lat1, …]` whose last position
    /// repeats the first.
    ///
    /// - Complexity: O(v) for v vertices.
    package static func distance(
        from point: Coordinate, projection: LocalProjection, ring: UnsafeBufferPointer<Double>
    ) -> Double {
        let count = ring.count / 2
        guard count > 0 else { return .infinity }
        var best = Double.infinity
        var previous = projection.project(latitude: ring[1], longitude: ring[0])
        if count == 1 { return Sphere.distance(point, Coordinate(latitude: ring[1], longitude: ring[0])) }
        for i in 1..<count {
            let lon0 = ring[2 * i - 2], lat0 = ring[2 * i - 1]
            let lon1 = ring[2 * i], lat1 = ring[2 * i + 1]
            let next = projection.project(latitude: lat1, longitude: lon1)
            let dx = next.x - previous.x, dy = next.y - previous.y
            let length = (dx * dx + dy * dy).squareRoot()
            // Cheap reject: the projected chord is at least this far from the centre (0, 0).
            let chordLowerBound = projectedDistanceToSegment(previous, next) * 0.99 - 1
            if chordLowerBound < best {
                // Unwrap the longitude difference so an edge along ±180 is not taken the long way.
                var dLon = lon1 - lon0
                if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
                let pieces = Swift.max(1, Int((length / maximumPieceLength).rounded(.up)))
                var a = previous
                var aT = 0.0
                for piece in 1...pieces {
                    let bT = Double(piece) / Double(pieces)
                    let b = piece == pieces ? next : projection.project(
                        latitude: lat0 + (lat1 - lat0) * bT, longitude: Sphere.wrapLongitude(lon0 + dLon * bT))
                    let t = aT + (bT - aT) * closestParameter(a, b)
                    let candidate = Coordinate(
                        latitude: lat0 + (lat1 - lat0) * t, longitude: Sphere.wrapLongitude(lon0 + dLon * t))
                    let d = Sphere.distance(point, candidate)
                    if d < best { best = d }
                    a = b
                    aT = bT
                }
            }
            previous = next
        }
        return best
    }

    /// Parameter in [0, 1] of the point of segment ab closest to the origin.
    @inlinable
    static func closestParameter(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        if lengthSquared == 0 { return 0 }
        let t = -(a.x * dx + a.y * dy) / lengthSquared
        return Swift.max(0, Swift.min(1, t))
    }

    /// Planar distance from the origin to segment ab.
    @inlinable
    static func projectedDistanceToSegment(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let t = closestParameter(a, b)
        let x = a.x + (b.x - a.x) * t, y = a.y + (b.y - a.y) * t
        return (x * x + y * y).squareRoot()
    }
}

import GeofenceGEOS
import GeofenceGeometry

/// A fence near a point: its id and how far the point is from its edge.
public struct NearestFence: Hashable, Sendable, CustomStringConvertible {
    /// The fence's id.
    public var geofenceID: String
    /// Metres from the point to the fence's edge; 0 when the fence covers the point.
    public var distance: Double

    public init(geofenceID: String, distance: Double) {
        self.geofenceID = geofenceID
        self.distance = distance
    }

    public var description: String { "\(geofenceID) at \(distance) m" }
}

extension ContainmentEvaluator {
    /// A nearest search was asked for a negative number of fences.
    public struct NearestCountError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The count given.
        public var count: Int

        public init(count: Int) { self.count = count }

        public var description: String { "count must be a number of fences >= 0, found \(count)" }
    }
}

// The checked, id-based queries a library user calls. Each checks its arguments (a few
// comparisons) and then runs the package's slot-based query, which the batch paths call
// directly on rows they have already checked.
extension ContainmentEvaluator {
    /// The ids of every fence containing the point on `level` (nil: a fix without a level),
    /// ascending in UTF-8 byte order.
    ///
    /// ```swift
    /// let ids = try evaluator.containingIDs(latitude: 40.75, longitude: -73.98)
    /// ```
    /// - Throws: ``CoordinateError`` when the point is not a valid WGS84 coordinate (NaN,
    ///   infinite, latitude outside [-90, 90], longitude outside [-180, 180]); ``GEOSError``
    ///   when GEOS fails.
    /// - Complexity: O(log n + k) expected for n fences and k candidates, plus their exact tests.
    public func containingIDs(
        latitude: Double, longitude: Double, level: Int? = nil, options: ContainmentOptions = ContainmentOptions()
    ) throws -> [String] {
        try Coordinate(latitude: latitude, longitude: longitude).validate()
        return try containing(latitude: latitude, longitude: longitude, level: level, options: options)
            .map { fenceSet.geofenceID(at: $0) }
    }

    /// The `count` fences nearest to the point that pass `filter`, nearest first (ties by
    /// id), with the distance in metres from the point to each fence's edge (0 inside).
    /// Fewer when fewer fences pass the filter; none for `count` 0.
    ///
    /// ```swift
    /// for near in try evaluator.nearest(latitude: 40.75, longitude: -73.98, count: 3) {
    ///     print(near.geofenceID, near.distance)
    /// }
    /// ```
    /// - Throws: ``CoordinateError`` for an invalid point, ``ContainmentEvaluator/NearestCountError`` for a
    ///   negative `count`, ``GEOSError`` when GEOS fails.
    /// - Complexity: typically O(log n + k) for n fences, plus the exact distances of the
    ///   fences reached (O(v) for a polygon of v vertices).
    public func nearest(
        latitude: Double, longitude: Double, count: Int, filter: NearestFilter = NearestFilter()
    ) throws -> [NearestFence] {
        try Coordinate(latitude: latitude, longitude: longitude).validate()
        guard count >= 0 else { throw ContainmentEvaluator.NearestCountError(count: count) }
        return try nearestSlots(latitude: latitude, longitude: longitude, count: count, filter: filter)
            .map { NearestFence(geofenceID: fenceSet.geofenceID(at: Int($0.slot)), distance: $0.distance) }
    }

    /// Metres from the point to the edge of the fence `geofenceID` (0 when the fence covers
    /// the point), or nil when the set has no such fence.
    /// - Throws: ``CoordinateError`` for an invalid point, ``GEOSError`` when GEOS fails.
    /// - Complexity: O(1) for a circle, O(v) for a polygon of v vertices.
    public func distance(to geofenceID: String, latitude: Double, longitude: Double) throws -> Double? {
        try Coordinate(latitude: latitude, longitude: longitude).validate()
        guard let slot = fenceSet.slot(of: geofenceID) else { return nil }
        return try distance(slot: slot, latitude: latitude, longitude: longitude)
    }
}

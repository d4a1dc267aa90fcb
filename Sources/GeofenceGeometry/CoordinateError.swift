/// Why a latitude/longitude pair is not a WGS84 coordinate: the one error every per-point
/// API throws for a bad point (``Coordinate/validate()``; the engine's containment queries,
/// monitor and planner). APIs with a typed error of their own carry it in a case (the
/// tracker's `TrackerRejection.coordinate`).
///
/// ```swift
/// do { _ = try evaluator.containingIDs(latitude: 91, longitude: 0, level: nil) }
/// catch let error as CoordinateError { print(error.reason) }   // latitudeOutOfRange
/// ```
public struct CoordinateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, checked in this order.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// Latitude NaN or infinite.
        case latitudeNotFinite
        /// Longitude NaN or infinite.
        case longitudeNotFinite
        /// Latitude outside [-90, 90].
        case latitudeOutOfRange
        /// Longitude outside [-180, 180].
        case longitudeOutOfRange
    }

    /// The latitude given, in degrees.
    public var latitude: Double
    /// The longitude given, in degrees.
    public var longitude: Double
    /// The first problem found.
    public var reason: Reason

    /// The error for `coordinate`, or nil when it is valid.
    public init?(_ coordinate: Coordinate) {
        let (latitude, longitude) = (coordinate.latitude, coordinate.longitude)
        let reason: Reason
        if !latitude.isFinite {
            reason = .latitudeNotFinite
        } else if !longitude.isFinite {
            reason = .longitudeNotFinite
        } else if latitude < -90 || latitude > 90 {
            reason = .latitudeOutOfRange
        } else if longitude < -180 || longitude > 180 {
            reason = .longitudeOutOfRange
        } else {
            return nil
        }
        self.latitude = latitude
        self.longitude = longitude
        self.reason = reason
    }

    /// One line for people, e.g. "latitude 91.0 is outside [-90, 90]".
    public var description: String {
        switch reason {
        case .latitudeNotFinite: "latitude \(latitude) is not a finite number"
        case .longitudeNotFinite: "longitude \(longitude) is not a finite number"
        case .latitudeOutOfRange: "latitude \(latitude) is outside [-90, 90]"
        case .longitudeOutOfRange: "longitude \(longitude) is outside [-180, 180]"
        }
    }
}

extension Coordinate {
    /// Throws when the coordinate is not valid (see ``isValid``).
    /// - Complexity: O(1): four comparisons when valid.
    @inlinable
    public func validate() throws(CoordinateError) {
        if !isValid { throw CoordinateError(self)! }
    }
}

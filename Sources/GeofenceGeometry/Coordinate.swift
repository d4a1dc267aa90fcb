/// A WGS84 position in decimal degrees.
///
/// Public APIs name the two numbers `latitude` and `longitude`; GeoJSON files hold them as
/// `[longitude, latitude]` (RFC 7946) and only the loaders deal with that order.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    /// Degrees north of the equator, in [-90, 90].
    public var latitude: Double
    /// Degrees east of Greenwich, in [-180, 180].
    public var longitude: Double

    @inlinable
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both numbers are finite and within the WGS84 ranges (bounds included).
    @inlinable
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite
            && latitude >= -90 && latitude <= 90
            && longitude >= -180 && longitude <= 180
    }

    /// Why the coordinate is not valid, or nil when it is (``CoordinateError``'s description).
    public var invalidReason: String? { CoordinateError(self)?.description }

    public var description: String { "(\(latitude), \(longitude))" }
}

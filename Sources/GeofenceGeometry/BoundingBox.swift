/// An axis-aligned box in longitude/latitude degrees, bounds included.
///
/// A box never wraps: a shape that crosses the antimeridian is described by two boxes
/// (see ``CircleBounds`` and ``BoundingBox/covering(_:)``).
public struct BoundingBox: Hashable, Sendable, CustomStringConvertible {
    public var minLongitude: Double
    public var minLatitude: Double
    public var maxLongitude: Double
    public var maxLatitude: Double

    @inlinable
    public init(minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double) {
        self.minLongitude = minLongitude
        self.minLatitude = minLatitude
        self.maxLongitude = maxLongitude
        self.maxLatitude = maxLatitude
    }

    /// The box around flat `[lon, lat, lon, lat, …]` positions (empty for none), grown one
    /// position at a time in order.
    package init(positions: UnsafeBufferPointer<Double>) {
        var box = BoundingBox.empty
        var i = 0
        while i + 1 < positions.count {
            box = box.including(latitude: positions[i + 1], longitude: positions[i])
            i += 2
        }
        self = box
    }

    /// The empty box: contains nothing, and is the identity of ``union(_:)``.
    public static let empty = BoundingBox(
        minLongitude: .infinity, minLatitude: .infinity, maxLongitude: -.infinity, maxLatitude: -.infinity)

    /// The whole globe.
    public static let world = BoundingBox(minLongitude: -180, minLatitude: -90, maxLongitude: 180, maxLatitude: 90)

    @inlinable
    public var isEmpty: Bool { minLongitude > maxLongitude || minLatitude > maxLatitude }

    /// True when the point lies in the box or on its edge.
    @inlinable
    public func contains(latitude: Double, longitude: Double) -> Bool {
        longitude >= minLongitude && longitude <= maxLongitude && latitude >= minLatitude && latitude <= maxLatitude
    }

    /// True when the two boxes share at least one point.
    @inlinable
    public func intersects(_ other: BoundingBox) -> Bool {
        other.minLongitude <= maxLongitude && other.maxLongitude >= minLongitude
            && other.minLatitude <= maxLatitude && other.maxLatitude >= minLatitude
    }

    /// The smallest box holding both.
    @inlinable
    public func union(_ other: BoundingBox) -> BoundingBox {
        BoundingBox(
            minLongitude: Swift.min(minLongitude, other.minLongitude),
            minLatitude: Swift.min(minLatitude, other.minLatitude),
            maxLongitude: Swift.max(maxLongitude, other.maxLongitude),
            maxLatitude: Swift.max(maxLatitude, other.maxLatitude))
    }

    /// The box grown to hold the point.
    @inlinable
    public func including(latitude: Double, longitude: Double) -> BoundingBox {
        BoundingBox(
            minLongitude: Swift.min(minLongitude, longitude), minLatitude: Swift.min(minLatitude, latitude),
            maxLongitude: Swift.max(maxLongitude, longitude), maxLatitude: Swift.max(maxLatitude, latitude))
    }

    /// Centre of the box in degrees (meaningless for an empty box).
    @inlinable
    public var center: Coordinate {
        Coordinate(latitude: 0.5 * (minLatitude + maxLatitude), longitude: 0.5 * (minLongitude + maxLongitude))
    }

    /// One or two boxes, none wrapping, that cover the given part boxes; parts east and west of
    /// the antimeridian stay apart when keeping them together would span more than 180°.
    ///
    /// This is how a MultiPolygon split at ±180 (RFC 7946 §3.1.9) keeps two small boxes
    /// instead of one box around the world.
    package static func covering(_ parts: [BoundingBox]) -> [BoundingBox] {
        let (first, second) = coveringPair(count: parts.count) { parts[$0] }
        return second.isEmpty ? [first] : [first, second]
    }

    /// ``covering(_:)`` without arrays, the parts given by index (for building a set, where
    /// two arrays per fence were a tenth of the work): the first box, and the second or
    /// `.empty`.
    /// - Complexity: O(count) calls of `part`, each made at most twice.
    package static func coveringPair(count: Int, _ part: (Int) -> BoundingBox) -> (BoundingBox, BoundingBox) {
        var all = BoundingBox.empty
        for k in 0..<count { all = all.union(part(k)) }
        if all.isEmpty || all.maxLongitude - all.minLongitude <= 180 { return (all, .empty) }
        var east = BoundingBox.empty, west = BoundingBox.empty
        for k in 0..<count {
            let box = part(k)
            if box.isEmpty { continue }
            if box.center.longitude >= 0 { east = east.union(box) } else { west = west.union(box) }
        }
        return west.isEmpty ? (east, .empty) : (west, east)
    }

    public var description: String {
        "[lon \(minLongitude)…\(maxLongitude), lat \(minLatitude)…\(maxLatitude)]"
    }
}

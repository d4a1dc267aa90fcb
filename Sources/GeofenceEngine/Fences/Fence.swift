@_spi(Engine) import GeofenceGeometry

extension Fence {
    /// The shape of a fence.
    public enum Shape: Hashable, Sendable {
        /// Every point within `radius` metres (great-circle) of `center`.
        case circle(center: Coordinate, radius: Double)
        /// The area the polygons cover, boundaries included and holes excluded.
        case polygon(MultiPolygon)

        /// True for `.circle`.
        public var isCircle: Bool {
            if case .circle = self { return true }
            return false
        }
    }
}

extension Fence {
    /// A circle on the sphere: a centre and a radius in metres.
    public struct EnclosingCircle: Hashable, Sendable {
        public var center: Coordinate
        /// Metres.
        public var radius: Double

        public init(center: Coordinate, radius: Double) {
            self.center = center
            self.radius = radius
        }
    }
}

/// One geofence: an id, a shape and the attributes the engine uses (semantics §1).
public struct Fence: Hashable, Sendable {
    /// Non-empty and unique within a fence set.
    public var geofenceID: String
    public var shape: Fence.Shape
    /// The building floor, or nil for a global fence.
    public var level: Int?
    /// Optional grouping name (a filter for nearest searches).
    public var library: String?
    /// Priority for the current POI: lower ranks first. Default 0.
    public var rank: Int
    /// Per-fence dwell time in seconds; nil takes the tracker's default, 0 disables dwell. A
    /// set refuses a value that is not a finite number of seconds >= 0, as it refuses one in
    /// GeoJSON.
    public var dwellSeconds: Double?
    /// The feature's other properties, passed through to events unchanged.
    public var properties: JSONObject
    /// 0-based position of the feature in its FeatureCollection (or in the array the set was
    /// built from); error messages and benchmark checksums use it.
    public var featureIndex: Int
    /// For a circle, the circle itself; for a polygon, its minimum enclosing circle, filled in
    /// when the fence joins a ``FenceSet``.
    public internal(set) var enclosingCircle: Fence.EnclosingCircle?

    public init(
        geofenceID: String, shape: Fence.Shape, level: Int? = nil, library: String? = nil, rank: Int = 0,
        dwellSeconds: Double? = nil, properties: JSONObject = JSONObject(), featureIndex: Int = 0
    ) {
        self.geofenceID = geofenceID
        self.shape = shape
        self.level = level
        self.library = library
        self.rank = rank
        self.dwellSeconds = dwellSeconds
        self.properties = properties
        self.featureIndex = featureIndex
        if case .circle(let center, let radius) = shape {
            enclosingCircle = Fence.EnclosingCircle(center: center, radius: radius)
        }
    }

    /// The radius wherever one is needed (priority, tolerances, OS registration): the circle's
    /// own, or the polygon's minimum enclosing circle's, in metres (0 before the fence joins a set).
    public var radius: Double { enclosingCircle?.radius ?? 0 }

    /// One or two non-wrapping boxes around the shape.
    public var boundingBoxes: [BoundingBox] {
        switch shape {
        case .circle(let center, let radius): CircleBounds.boxes(center: center, radius: radius)
        case .polygon(let shape): shape.boundingBoxes
        }
    }
}

/// Orders ids by their UTF-8 bytes, the order every output of the engine uses (so that
/// `sort`-style byte merges of shard outputs agree with it).
package func fenceIDPrecedes(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
}

/// ``fenceIDPrecedes(_:_:)`` on ids' bytes in place (a set's ``FenceSet/idBytes(at:)``).
package func fenceIDPrecedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    let common = min(a.count, b.count)
    if common > 0 {
        let order = Platform.compareBytes(a.baseAddress!, b.baseAddress!, count: common)
        if order != 0 { return order < 0 }
    }
    return a.count < b.count
}

/// Whether two ids have the same bytes.
package func fenceIDEquals(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    a.count == b.count && (a.count == 0 || Platform.bytesEqual(a.baseAddress!, b.baseAddress!, count: a.count))
}

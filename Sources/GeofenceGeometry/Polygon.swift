/// A closed ring of positions, stored flat as `[lon0, lat0, lon1, lat1, …]` (GeoJSON order).
///
/// Closed means the last position repeats the first; loaders check that, and at least
/// four positions, before a ring reaches GEOS.
public struct Ring: Hashable, Sendable {
    /// Interleaved longitude, latitude pairs in degrees.
    public var positions: [Double]

    @inlinable
    public init(positions: [Double]) { self.positions = positions }

    /// Builds a ring from coordinates, closing it if the last one does not repeat the first.
    public init(closing coordinates: [Coordinate]) {
        var flat: [Double] = []
        flat.reserveCapacity(coordinates.count * 2 + 2)
        for c in coordinates { flat.append(c.longitude); flat.append(c.latitude) }
        if let first = coordinates.first, let last = coordinates.last, first != last {
            flat.append(first.longitude); flat.append(first.latitude)
        }
        positions = flat
    }

    /// Number of positions (the closing one included).
    @inlinable
    public var count: Int { positions.count / 2 }

    /// The i-th position.
    @inlinable
    public subscript(i: Int) -> Coordinate {
        Coordinate(latitude: positions[2 * i + 1], longitude: positions[2 * i])
    }

    /// The box around every position.
    public var boundingBox: BoundingBox {
        positions.withUnsafeBufferPointer { BoundingBox(positions: $0) }
    }
}

/// A polygon: one exterior ring and any number of holes.
public struct Polygon: Hashable, Sendable {
    public var exterior: Ring
    public var holes: [Ring]

    public init(exterior: Ring, holes: [Ring] = []) {
        self.exterior = exterior
        self.holes = holes
    }

    /// The exterior ring, then the holes.
    public var rings: [Ring] { [exterior] + holes }
}

/// One or more polygons (a GeoJSON Polygon is a MultiPolygon of one).
public struct MultiPolygon: Hashable, Sendable {
    public var polygons: [Polygon]

    public init(polygons: [Polygon]) { self.polygons = polygons }

    /// Every ring of every polygon.
    public var allRings: [Ring] { polygons.flatMap(\.rings) }

    /// Number of positions over all rings.
    public var vertexCount: Int { polygons.reduce(0) { $0 + $1.rings.reduce(0) { $0 + $1.count } } }

    /// One or two non-wrapping boxes around the polygons; parts on both sides of the
    /// antimeridian get a box each (see ``BoundingBox/covering(_:)``).
    public var boundingBoxes: [BoundingBox] {
        BoundingBox.covering(polygons.map(\.exterior.boundingBox))
    }
}

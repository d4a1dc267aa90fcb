import GeofenceGeometry

/// Fences in input order, flat: what the GeoJSON decoder (one instance per slice of the
/// file, filled by one thread) and `FenceSet([Fence])` produce, and ``FenceSetBuilder``
/// turns into a ``FenceSet``.
///
/// Record `i` is the i-th fence added. Its polygon parts are `partStarts[i] ..< partStarts[i + 1]`,
/// part `p`'s rings `ringStarts[p] ..< ringStarts[p + 1]`, ring `r`'s positions
/// `vertexStarts[r] ..< vertexStarts[r + 1]` of `vertices` (`[lon, lat]` pairs, closed); a
/// circle has no parts.
struct FenceRecords: Sendable {
    var ids = ByteTableBuilder()
    /// The pass-through properties as compact JSON object text (what ``JSONWriter`` writes).
    var properties = ByteTableBuilder()
    /// Library names ("" for none; ``FenceAttributes/library`` tells them apart).
    var libraries = ByteTableBuilder()
    var attributes: [FenceAttributes] = []
    /// ``FenceSet/noLevel`` for none.
    var levels: [Int] = []
    var ranks: [Int] = []
    /// 0 for none (``FenceAttributes/dwell`` tells them apart).
    var dwellSeconds: [Double] = []
    var featureIndexes: [Int] = []
    /// The circle, or the polygon's minimum enclosing circle once validation has found it:
    /// (latitude, longitude, radius in metres, 0).
    var circles: [SIMD4<Double>] = []
    var partStarts: [UInt32] = [0]
    var ringStarts: [UInt32] = [0]
    var vertexStarts: [UInt32] = [0]
    var vertices: [Double] = []

    init() {}

    var count: Int { attributes.count }

    /// Reserves room for the fences of about `bytes` bytes of GeoJSON (a vertex takes 30 to 50
    /// bytes of text; a fence a few hundred), so the arrays rarely grow (and copy) while read.
    /// Memory not filled is address space only.
    mutating func reserve(forBytes bytes: Int) {
        vertices.reserveCapacity(bytes / 12)
        vertexStarts.reserveCapacity(bytes / 128)
        ringStarts.reserveCapacity(bytes / 128)
        partStarts.reserveCapacity(bytes / 128)
        let fences = bytes / 128
        attributes.reserveCapacity(fences); levels.reserveCapacity(fences); ranks.reserveCapacity(fences)
        dwellSeconds.reserveCapacity(fences); featureIndexes.reserveCapacity(fences); circles.reserveCapacity(fences)
    }

    /// Appends a fence built in code.
    mutating func append(_ fence: Fence) {
        beginFence(id: fence.geofenceID, featureIndex: fence.featureIndex)
        var flags: FenceAttributes = []
        if let library = fence.library {
            libraries.append(library)
            flags.insert(.library)
        } else {
            libraries.append("")
        }
        if let dwell = fence.dwellSeconds { dwellSeconds.append(dwell); flags.insert(.dwell) } else { dwellSeconds.append(0) }
        levels.append(fence.level ?? FenceSet.noLevel)
        ranks.append(fence.rank)
        properties.appendWriting { JSONWriter.write(.object(fence.properties), to: &$0) }
        switch fence.shape {
        case .circle(let center, let radius):
            circles.append(SIMD4(center.latitude, center.longitude, radius, 0))
        case .polygon(let shape):
            flags.insert(.polygon)
            let circle = fence.enclosingCircle
            circles.append(SIMD4(circle?.center.latitude ?? 0, circle?.center.longitude ?? 0, circle?.radius ?? 0, 0))
            appendShape(shape)
        }
        attributes.append(flags)
        partStarts.append(UInt32(ringStarts.count - 1))
    }

    /// Starts a record: its id and feature index (the caller appends the rest).
    mutating func beginFence(id: String, featureIndex: Int) {
        ids.append(id)
        featureIndexes.append(featureIndex)
    }

    /// Appends the parts, rings and positions of a polygon shape (not the record's end).
    mutating func appendShape(_ shape: MultiPolygon) {
        for polygon in shape.polygons {
            for ring in polygon.rings {
                vertices.append(contentsOf: ring.positions)
                vertexStarts.append(UInt32(vertices.count / 2))
            }
            ringStarts.append(UInt32(vertexStarts.count - 1))
        }
    }

    /// Whether record `i` is a polygon.
    func isPolygon(_ i: Int) -> Bool { attributes[i].contains(.polygon) }

    /// The polygon of record `i`, as a value (for GEOS, and for code that wants one).
    func shape(_ i: Int) -> MultiPolygon {
        var polygons: [Polygon] = []
        for part in Int(partStarts[i])..<Int(partStarts[i + 1]) {
            var rings: [Ring] = []
            for ring in Int(ringStarts[part])..<Int(ringStarts[part + 1]) {
                rings.append(Ring(positions: Array(vertices[2 * Int(vertexStarts[ring])..<2 * Int(vertexStarts[ring + 1])])))
            }
            polygons.append(Polygon(exterior: rings[0], holes: Array(rings.dropFirst())))
        }
        return MultiPolygon(polygons: polygons)
    }

    /// Replaces the shape of the last record (a repair) with `shape`.
    mutating func replaceLastShape(_ shape: MultiPolygon) {
        let i = count - 1
        let firstPart = Int(partStarts[i]), firstRing = Int(ringStarts[firstPart])
        let firstVertex = Int(vertexStarts[firstRing])
        vertices.removeLast(vertices.count - 2 * firstVertex)
        vertexStarts.removeLast(vertexStarts.count - 1 - firstRing)
        ringStarts.removeLast(ringStarts.count - 1 - firstPart)
        appendShape(shape)
        partStarts[i + 1] = UInt32(ringStarts.count - 1)
    }

    /// Drops the last record (a feature that turned out to be a problem).
    mutating func removeLast() {
        let i = count - 1
        let firstPart = Int(partStarts[i]), firstRing = Int(ringStarts[firstPart])
        vertices.removeLast(vertices.count - 2 * Int(vertexStarts[firstRing]))
        vertexStarts.removeLast(vertexStarts.count - 1 - firstRing)
        ringStarts.removeLast(ringStarts.count - 1 - firstPart)
        partStarts.removeLast()
        ids.truncate(to: i)
        properties.truncate(to: i)
        libraries.truncate(to: i)
        attributes.removeLast()
        levels.removeLast()
        ranks.removeLast()
        dwellSeconds.removeLast()
        featureIndexes.removeLast()
        circles.removeLast()
    }

    /// Frees the records' memory (after the builder has copied them).
    mutating func release() { self = FenceRecords() }
}

/// Per-fence flags, stored as one byte.
struct FenceAttributes: OptionSet, Sendable, BitwiseCopyable {
    let rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A polygon (else a circle).
    static let polygon = FenceAttributes(rawValue: 1)
    /// The fence has a library name.
    static let library = FenceAttributes(rawValue: 2)
    /// The fence has its own dwell time.
    static let dwell = FenceAttributes(rawValue: 4)
}

import GeofenceGeometry

/// Everything a ``FenceSet`` holds, as flat buffers: what ``FenceSetBuilder`` makes and what
/// a compiled fence file maps (one section per buffer, see `FenceFileFormat`).
struct FenceStorage: Sendable {
    // By slot (ascending id).
    var ids: ByteTable
    var idTable: FenceIDTable
    var properties: ByteTable
    var libraries: ByteTable
    var attributes: FrozenBuffer<FenceAttributes>
    var levels: FrozenBuffer<Int>
    var ranks: FrozenBuffer<Int>
    var dwellSeconds: FrozenBuffer<Double>
    var dwellMilliseconds: FrozenBuffer<Int64>
    var featureIndexes: FrozenBuffer<Int>
    var enclosingCircles: FrozenBuffer<SIMD4<Double>>
    var eventFragments: ByteTable
    // By storage position (Hilbert order).
    var storageIndex: FrozenBuffer<Int32>
    var polygonCells: PolygonCellIndex
    var levelBuffer: FrozenBuffer<Int>
    var shapes: FenceShapes
    var polygonEdges: PolygonEdgeIndex
    var index: PackedRTree
    var directory: CellDirectory
    var anyLevelFence: Bool
    var largestRadius: Double
    /// What the set was built for: a set built for containment alone lacks the polygons'
    /// enclosing circles, the event lines' fragments, and (while the directory answers) the
    /// R-tree.
    var purpose: FenceSet.Purpose = .everything
    /// Each fence's ``FenceSet/fingerprint(at:)`` by slot, as a compiled file stores it
    /// (`FPRT`); nil for a set built in memory or read from a file without the section,
    /// whose fingerprints are computed on demand.
    var fingerprints: FrozenBuffer<UInt64>? = nil

    /// Stops the program when the set was built for containment alone: `what` needs parts
    /// such a set does not have (a programming error: only `geofence contains` builds one).
    func requireEverything(_ what: @autoclosure () -> String) {
        precondition(purpose == .everything, "\(what()) on a fence set built for containment alone")
    }
}

/// Every polygon fence's shape, flat, by storage position.
///
/// The fence at position `p` has parts `partStarts[p] ..< partStarts[p + 1]` (none for a
/// circle); part `q` has rings `ringStarts[q] ..< ringStarts[q + 1]`, the first its exterior;
/// ring `r` has the positions `vertexStarts[r] ..< vertexStarts[r + 1]` of `vertices`, stored
/// `[lon, lat, lon, lat, …]` and closed. The same vertex buffer serves the certified
/// point-in-polygon test (``PolygonEdgeIndex``).
struct FenceShapes: Sendable {
    let partStarts: FrozenBuffer<UInt32>
    let ringStarts: FrozenBuffer<UInt32>
    let vertexStarts: FrozenBuffer<UInt32>
    let vertices: FrozenBuffer<Double>

    /// The positions of ring `r` as a flat `[lon, lat, …]` buffer (valid while the shapes live).
    @inline(__always)
    func ring(_ r: Int) -> UnsafeBufferPointer<Double> {
        let from = Int(vertexStarts[r]), to = Int(vertexStarts[r + 1])
        return UnsafeBufferPointer(start: vertices.pointer + 2 * from, count: 2 * (to - from))
    }

    /// The rings of the fence at storage position `p`, parts in order, exterior first in each.
    func rings(position p: Int) -> Range<Int> {
        let firstPart = Int(partStarts[p]), endPart = Int(partStarts[p + 1])
        return Int(ringStarts[firstPart])..<Int(ringStarts[endPart])
    }

    /// The polygon at storage position `p` as a value.
    func multiPolygon(position p: Int) -> MultiPolygon {
        var polygons: [Polygon] = []
        for part in Int(partStarts[p])..<Int(partStarts[p + 1]) {
            let rings = (Int(ringStarts[part])..<Int(ringStarts[part + 1])).map { Ring(positions: Array(ring($0))) }
            polygons.append(Polygon(exterior: rings[0], holes: Array(rings.dropFirst())))
        }
        return MultiPolygon(polygons: polygons)
    }

    /// Bytes held (the vertices are counted with the edge index).
    var memoryBytes: Int { (partStarts.count + ringStarts.count + vertexStarts.count) * 4 }
}

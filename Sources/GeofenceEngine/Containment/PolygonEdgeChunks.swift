import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

/// A polygon's edges in runs of at most ``size`` consecutive edges, each with a lon/lat box,
/// so an edge distance can skip the runs whose box is already farther than the best edge.
///
/// ``EdgeDistance`` projects every vertex (several trigonometric calls each); for the large
/// polygons a nearest search or a registration plan meets (city neighbourhoods of hundreds
/// of vertices), most runs are far from the point and one box distance rules each out.
struct PolygonEdgeChunks {
    /// Edges per run.
    static let size = 16

    struct Chunk {
        /// Index into the shape's `allRings`.
        var ring: Int
        /// First and last position of the run (`last - first` edges, at least 1).
        var first: Int
        var last: Int
        /// Holds every point of the run's edges (all longitudes when an edge crosses ±180°,
        /// since ``EdgeDistance`` takes such an edge the short way, across the antimeridian).
        var box: BoundingBox
    }

    let rings: [Ring]
    let chunks: [Chunk]

    /// - Complexity: O(v) for v vertices.
    init(_ shape: MultiPolygon) {
        rings = shape.allRings
        var chunks: [Chunk] = []
        for (r, ring) in rings.enumerated() where ring.count >= 2 {
            var first = 0
            while first < ring.count - 1 {
                let last = Swift.min(first + Self.size, ring.count - 1)
                var box = BoundingBox.empty
                var wraps = false
                for i in first...last {
                    box = box.including(latitude: ring.positions[2 * i + 1], longitude: ring.positions[2 * i])
                    if i > first && abs(ring.positions[2 * i] - ring.positions[2 * i - 2]) > 180 { wraps = true }
                }
                if wraps { box.minLongitude = -180; box.maxLongitude = 180 }
                chunks.append(Chunk(ring: r, first: first, last: last, box: box))
                first = last
            }
        }
        self.chunks = chunks
    }

    /// The smallest great-circle distance in metres from `point` to any edge: exactly the
    /// value ``EdgeDistance`` gives over all the rings, with runs skipped when their box is
    /// no nearer than the best edge so far (a box distance is a lower bound of every edge
    /// point in it, and the edges' computed distances are never below the true ones).
    ///
    /// The nearest run goes first, so the best edge is nearly final before the others are
    /// considered. `bounds` is scratch space (cleared here) so the call allocates nothing once
    /// it has grown to the polygon's run count.
    /// - Complexity: O(c) box distances for c runs, plus O(s) for each run of s edges not skipped.
    func distance(from point: Coordinate, bounds: inout [Double]) -> Double {
        guard !chunks.isEmpty else {
            // Rings of a single position (never in a validated set): what EdgeDistance says.
            return ContainmentEvaluator.edgeDistance(from: point, to: MultiPolygon(polygons: rings.map { Polygon(exterior: $0) }))
        }
        bounds.removeAll(keepingCapacity: true)
        var nearest = 0
        for (i, chunk) in chunks.enumerated() {
            bounds.append(chunk.box.distance(to: point))
            if bounds[i] < bounds[nearest] { nearest = i }
        }
        let projection = LocalProjection(center: point)
        var best = run(nearest, from: point, projection: projection)
        for i in chunks.indices where i != nearest && bounds[i] < best {
            best = Swift.min(best, run(i, from: point, projection: projection))
        }
        return best
    }

    /// EdgeDistance over one run of edges.
    private func run(_ index: Int, from point: Coordinate, projection: LocalProjection) -> Double {
        let chunk = chunks[index]
        return rings[chunk.ring].positions.withUnsafeBufferPointer { all in
            EdgeDistance.distance(
                from: point, projection: projection,
                ring: UnsafeBufferPointer(rebasing: all[(2 * chunk.first)..<(2 * chunk.last + 2)]))
        }
    }
}

extension ContainmentEvaluator {
    /// ``distance(slot:latitude:longitude:)`` for the indexed queries: the same value, but a
    /// polygon's edge distance skips far runs of edges (``PolygonEdgeChunks``, built on first
    /// use per polygon), and `outsideBoxes` (the point is outside every box of the fence)
    /// skips the GEOS *covers* test, which is then false.
    /// - Complexity: O(1) for a circle; for a polygon, O(log v) covers plus the runs of edges
    ///   not skipped.
    func indexedDistance(slot: Int, latitude: Double, longitude: Double, outsideBoxes: Bool) throws(GEOSError) -> Double {
        guard !fenceSet.isCircle(at: slot) else {
            return try distance(slot: slot, latitude: latitude, longitude: longitude)
        }
        if !outsideBoxes, try covers(slot: slot, latitude: latitude, longitude: longitude) { return 0 }
        let chunks: PolygonEdgeChunks
        if let made = edgeChunks[slot] {
            chunks = made
        } else {
            guard case .polygon(let shape) = fenceSet.shape(at: slot) else { preconditionFailure("slot \(slot) is not a polygon") }
            chunks = PolygonEdgeChunks(shape)
            edgeChunks[slot] = chunks
        }
        return chunks.distance(from: Coordinate(latitude: latitude, longitude: longitude), bounds: &chunkBounds)
    }
}

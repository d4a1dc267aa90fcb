import GeofenceGeometry

// Memory layout (all polygons of a fence set, flat)
// ------------------------------------------------
// * `vertices`: every ring of every polygon fence, `[lon, lat, lon, lat, …]`, rings closed:
//   the fence set's own vertex buffer (``FenceShapes``), shared, not copied.
// * Each ring's edges are cut into runs of at most `runLength` edges ("chunks"). Chunk c covers
//   the edges from vertex `chunkRanges[c].x` on, `chunkRanges[c].y` of them, and
//   `chunkBounds[c]` = (minLat, maxLat, maxLon, 0) of its vertices.
// * `slotChunks[i]` = (first chunk, chunk count) of the i-th fence in the fence set's storage
//   order (see `FenceSet.storageIndex`); count -1 for a
//   circle or a polygon left to GEOS (more than `maximumEdges` edges, where GEOS's
//   interval index beats a linear pass).
// Memory: 40 bytes per 16 edges (plus the shared 16 bytes per vertex).

/// What the certified point-in-polygon test could decide.
enum PolygonTestResult {
    case inside
    case outside
    /// The point lies so close to an edge or vertex that floating point cannot certify the
    /// answer: ask GEOS.
    case undecided
}

/// Every polygon fence's edges, for an exact point-in-polygon test in Swift that GEOS only
/// has to settle when the point is (within rounding) on an edge.
///
/// The test counts crossings of a ray towards +longitude (even-odd over all rings, which for
/// a valid polygon is GEOS's *covers* away from the boundary). Each crossing decision is the
/// sign of an orientation determinant, accepted only when it exceeds Shewchuk's error bound
/// for that determinant (`ccwerrboundA`), so every answer it gives is the exact one. Points
/// on a vertex or on a horizontal edge are recognised exactly as boundary (covered); anything
/// within the error bound of an edge is `undecided` and goes to GEOS's locator.
struct PolygonEdgeIndex: Sendable {
    static let runLength = 16
    static let maximumEdges = 2048
    /// Shewchuk's bound for orient2d's first, floating-point stage: (3 + 16ε)ε, ε = 2⁻⁵³.
    static let orientationErrorBound = 3.3306690738754716e-16

    let vertices: FrozenBuffer<Double>
    let chunkBounds: FrozenBuffer<SIMD4<Double>>
    let chunkRanges: FrozenBuffer<SIMD2<Int32>>
    let slotChunks: FrozenBuffer<SIMD2<Int32>>

    /// Builds the runs over the set's shapes (storage order), sharing their vertex buffer: the
    /// runs are counted, laid out, then filled on `threads` threads.
    ///
    /// - Complexity: O(v) for v vertices over all polygons.
    init(shapes: FenceShapes, count: Int, threads: Int = 1) {
        // Runs per fence (none for a circle, or for a polygon left to GEOS).
        var firstRun = [Int32](repeating: 0, count: count + 1)
        for p in 0..<count {
            var runs = 0, edges = 0
            for ring in shapes.rings(position: p) {
                let size = Int(shapes.vertexStarts[ring + 1] - shapes.vertexStarts[ring])
                edges += Swift.max(0, size - 1)
                if size >= 2 { runs += (size - 1 + Self.runLength - 1) / Self.runLength }
            }
            if edges > Self.maximumEdges { runs = 0 }
            firstRun[p + 1] = firstRun[p] + Int32(runs)
        }
        let total = Int(firstRun[count])
        let bounds = SharedPointer<SIMD4<Double>>.allocate(total), ranges = SharedPointer<SIMD2<Int32>>.allocate(total)
        let slotChunks = SharedPointer<SIMD2<Int32>>.allocate(count)
        let starts = firstRun
        ParallelRanges.forEach(count: count, threads: threads) { positions in
            let v = shapes.vertices.pointer
            for p in positions {
                let rings = shapes.rings(position: p)
                guard starts[p + 1] > starts[p] else {
                    slotChunks[p] = SIMD2(0, -1)
                    continue
                }
                var run = Int(starts[p])
                for ring in rings {
                    let base = Int(shapes.vertexStarts[ring]), size = Int(shapes.vertexStarts[ring + 1]) - base
                    guard size >= 2 else { continue }
                    var first = 0
                    while first < size - 1 {
                        let edges = Swift.min(Self.runLength, size - 1 - first)
                        var minLat = Double.infinity, maxLat = -Double.infinity, maxLon = -Double.infinity
                        for i in (base + first)...(base + first + edges) {
                            let lon = v[2 * i], lat = v[2 * i + 1]
                            minLat = Swift.min(minLat, lat)
                            maxLat = Swift.max(maxLat, lat)
                            maxLon = Swift.max(maxLon, lon)
                        }
                        bounds[run] = SIMD4(minLat, maxLat, maxLon, 0)
                        ranges[run] = SIMD2(Int32(base + first), Int32(edges))
                        run += 1
                        first += edges
                    }
                }
                slotChunks[p] = SIMD2(starts[p], starts[p + 1] - starts[p])
            }
        }
        vertices = shapes.vertices
        chunkBounds = FrozenBuffer(adopting: bounds.base, count: total)
        chunkRanges = FrozenBuffer(adopting: ranges.base, count: total)
        self.slotChunks = FrozenBuffer(adopting: slotChunks.base, count: count)
    }

    /// An index read from a compiled file.
    init(
        vertices: FrozenBuffer<Double>, chunkBounds: FrozenBuffer<SIMD4<Double>>, chunkRanges: FrozenBuffer<SIMD2<Int32>>,
        slotChunks: FrozenBuffer<SIMD2<Int32>>
    ) {
        self.vertices = vertices
        self.chunkBounds = chunkBounds
        self.chunkRanges = chunkRanges
        self.slotChunks = slotChunks
    }

    /// The index as plain pointers, for hot loops (valid while `self` lives).
    var view: View {
        View(vertices: vertices.pointer, chunkBounds: chunkBounds.pointer, chunkRanges: chunkRanges.pointer, slotChunks: slotChunks.pointer)
    }

    func test(slot: Int, x: Double, y: Double) -> PolygonTestResult { view.test(slot: slot, x: x, y: y) }


    /// The test over raw pointers: no reference counting per query.
    struct View {
        let vertices: UnsafePointer<Double>
        let chunkBounds: UnsafePointer<SIMD4<Double>>
        let chunkRanges: UnsafePointer<SIMD2<Int32>>
        let slotChunks: UnsafePointer<SIMD2<Int32>>

        /// Exact location of (longitude x, latitude y) in the polygon of `slot`, or `undecided`
        /// when GEOS must settle it (on or within rounding of an edge, or a polygon left to GEOS).
        ///
        /// - Complexity: O(c + e) for c chunks and the e edges of the chunks whose latitude
        ///   span holds the point and that reach east of it; no allocation.
        @inline(__always)
        func test(slot: Int, x: Double, y: Double) -> PolygonTestResult {
            let range = slotChunks[slot]
            if range.y < 0 { return .undecided }
            let v = vertices
            var odd = false
            for c in Int(range.x)..<Int(range.x &+ range.y) {
                let b = chunkBounds[c]
                // No edge of the chunk straddles y, or all of it lies west of x: the ray misses
                // it and the point is on none of its edges.
                if y < b.x || y > b.y || x > b.z { continue }
                let r = chunkRanges[c]
                if let settled = PolygonEdgeIndex.crossings(v, from: Int(r.x), edges: Int(r.y), x: x, y: y, odd: &odd) {
                    return settled
                }
            }
            return odd ? .inside : .outside
        }
    }

    /// What one edge does to the ray from (x, y) towards +longitude.
    enum Crossing {
        /// The ray misses the edge (or the edge is horizontal away from the point).
        case none
        /// The edge crosses the ray: the crossing count changes parity.
        case east
        /// The point is a vertex or lies on a horizontal edge: covered.
        case boundary
        /// The point lies within rounding of the edge: only exact arithmetic can tell.
        case undecided
    }

    /// The certified step of the crossing test for the edge from `(e[0], e[1])` to
    /// `(e[2], e[3])` (longitude, latitude): shared by the run test and the cell test
    /// (``PolygonCellIndex``), so both decide every edge the same way.
    ///
    /// An edge counts when it straddles y half-open (`(y1 > y) != (y2 > y)`) and the point
    /// lies strictly left of it going up; the orientation's sign is accepted only beyond
    /// Shewchuk's bound.
    @inline(__always)
    static func crossing(_ e: UnsafePointer<Double>, x: Double, y: Double) -> Crossing {
        let x1 = e[0], y1 = e[1], x2 = e[2], y2 = e[3]
        if (y1 > y) != (y2 > y) {
            let a = (y - y1) * (x2 - x1)
            let b = (x - x1) * (y2 - y1)
            let d = a - b
            let bound = orientationErrorBound * (abs(a) + abs(b))
            if d > bound { return y2 > y1 ? .east : .none }
            if d < -bound { return y2 < y1 ? .east : .none }
            return .undecided
        }
        if y1 == y {
            // On a vertex, or on a horizontal edge: boundary, so covered.
            if x1 == x { return .boundary }
            if y2 == y && (x1 <= x) != (x2 < x) { return .boundary }
        }
        return .none
    }

    /// Counts the crossings of the ray from (x, y) towards +longitude with `edges` edges of a
    /// flat `[lon, lat, …]` vertex list starting at vertex `from` (toggling `odd` for each),
    /// each decided by ``crossing(_:x:y:)``. Returns `.inside` when the point is exactly on a
    /// vertex or a horizontal edge (the boundary is covered), `.undecided` when an edge is
    /// within rounding of the point, nil when every edge was decided.
    @inline(__always)
    static func crossings(
        _ v: UnsafePointer<Double>, from: Int, edges: Int, x: Double, y: Double, odd: inout Bool
    ) -> PolygonTestResult? {
        var i = 2 &* from
        let end = i &+ 2 &* edges
        while i < end {
            switch crossing(v + i, x: x, y: y) {
            case .none: break
            case .east: odd.toggle()
            case .boundary: return .inside
            case .undecided: return .undecided
            }
            i &+= 2
        }
        return nil
    }

    /// Bytes held.
    var memoryBytes: Int { vertices.count * 8 + chunkBounds.count * 32 + chunkRanges.count * 8 + slotChunks.count * 8 }
}

/// A cheap, exact test that clears most polygons of GEOS's validity check.
///
/// It certifies a polygon valid only when every decision is certain in floating point
/// (orientation signs beyond Shewchuk's error bound): every ring has at least four positions
/// and no repeated neighbours; no two edges of a part meet except neighbours at their shared
/// vertex, which turn (no spike); each hole lies inside its shell and outside the other
/// holes; the parts' boxes are disjoint. Such a polygon is valid as GEOS judges validity
/// (simple rings, holes in the shell and not nested, a connected interior, parts that neither
/// overlap nor nest). Anything else — an invalid polygon, or one too close to call — is left
/// to GEOS, which also words the reason.
enum PolygonValidity {
    /// One ring of a part: its first vertex and its number of positions (closed).
    struct Ring {
        var first: Int
        var count: Int
    }

    /// Memory one thread reuses from polygon to polygon.
    struct Scratch {
        var edges: [Edge] = []
        /// Per edge: (min lon, min lat, -max lon, -max lat), (max lon, max lat, -min lon, -min
        /// lat) and (ring, first vertex): two boxes overlap when every lane of the first's
        /// `low` is at most the second's `high`.
        var low: [SIMD4<Double>] = []
        var high: [SIMD4<Double>] = []
        var owner: [SIMD2<Int32>] = []
    }

    /// Whether record `i` (a polygon) is certainly valid; false when GEOS must decide.
    /// `scratch` is reused from call to call.
    ///
    /// - Complexity: O(e²) box checks for e ≤ 64 edges in a part, else a sweep over the edges
    ///   by longitude, O(e log e) on well-shaped polygons; it gives up (false) past a bounded
    ///   number of edge pairs, parts or holes.
    static func certifies(_ r: FenceRecords, _ i: Int, scratch: inout Scratch) -> Bool {
        let parts = Int(r.partStarts[i])..<Int(r.partStarts[i + 1])
        guard !parts.isEmpty, parts.count <= 64 else { return false }
        return r.vertices.withUnsafeBufferPointer { all in
            let v = all.baseAddress!
            func rings(_ part: Int) -> [Ring] {
                (Int(r.ringStarts[part])..<Int(r.ringStarts[part + 1])).map {
                    Ring(first: Int(r.vertexStarts[$0]), count: Int(r.vertexStarts[$0 + 1] - r.vertexStarts[$0]))
                }
            }
            if parts.count == 1 { return certifies(v, rings: rings(parts.lowerBound), scratch: &scratch) }
            return certifies(v, parts: parts.map(rings), scratch: &scratch)
        }
    }

    /// True when the polygon is certainly valid; false when GEOS must decide.
    ///
    /// - Parameters: the flat `[lon, lat, …]` vertices, and the rings of each part (exterior first).
    static func certifies(_ v: UnsafePointer<Double>, parts: [[Ring]], scratch: inout Scratch) -> Bool {
        guard !parts.isEmpty, parts.count <= 64 else { return false }
        if parts.count > 1 {
            let boxes = parts.map { box(v, $0[0]) }
            for a in 0..<boxes.count {
                for b in (a + 1)..<boxes.count where !(boxes[a].x > boxes[b].z || boxes[b].x > boxes[a].z || boxes[a].y > boxes[b].w || boxes[b].y > boxes[a].w) {
                    return false
                }
            }
        }
        return parts.allSatisfy { certifies(v, rings: $0, scratch: &scratch) }
    }

    /// One part: a shell and its holes.
    private static func certifies(_ v: UnsafePointer<Double>, rings: [Ring], scratch: inout Scratch) -> Bool {
        guard !rings.isEmpty, rings.count <= 32 else { return false }
        var edges = 0
        for ring in rings {
            guard ring.count >= 4 else { return false }
            for k in ring.first..<(ring.first + ring.count - 1)
            where v[2 * k] == v[2 * k + 2] && v[2 * k + 1] == v[2 * k + 3] {
                return false
            }
            edges += ring.count - 1
        }
        // A lone ring that is star-shaped about its vertices' mean (convex rings, and most
        // drawn or buffered shapes) is simple without looking at pairs of edges.
        let simple = rings.count == 1 && ringIsStarShaped(v, rings[0])
            || (edges <= 64 ? smallEdgesAreSimple(v, rings, scratch: &scratch) : edgesAreSimple(v, rings, scratch: &scratch.edges))
        guard simple else { return false }
        // With no two rings meeting, a hole is inside the shell (or another hole) when one
        // of its vertices is.
        let shell = rings[0]
        for h in rings.indices.dropFirst() {
            let p = rings[h].first
            guard location(v, ring: shell, x: v[2 * p], y: v[2 * p + 1]) == .inside else { return false }
            for other in rings.indices.dropFirst() where other != h {
                guard location(v, ring: rings[other], x: v[2 * p], y: v[2 * p + 1]) == .outside else { return false }
            }
        }
        return true
    }

    /// True when the ring is certainly star-shaped about the mean of its vertices, hence
    /// simple: every edge turns strictly the same way about that point (certified
    /// orientations), and the ring winds around it exactly once. Each edge then spans its own
    /// angular sector about the point, the sectors tiling the turn once, so two edges can
    /// meet only where neighbours share a vertex, and neighbours meet only there (no edge
    /// runs along a ray from the point).
    ///
    /// The winding is counted on the ray east of the point: with every edge turning
    /// counterclockwise about it, an edge that passes from below the point's latitude to at
    /// or above it crosses that ray, so the count is comparisons of coordinates only (mirrored
    /// for a clockwise ring). False when any sign is uncertain, or the ring is not star-shaped
    /// about that point: the pairwise test then decides.
    /// - Complexity: O(edges).
    static func ringIsStarShaped(_ v: UnsafePointer<Double>, _ ring: Ring) -> Bool {
        let m = ring.count - 1  // edges; the last position repeats the first
        guard m >= 3 else { return false }
        var sx = 0.0, sy = 0.0
        for k in ring.first..<(ring.first + m) { sx += v[2 * k]; sy += v[2 * k + 1] }
        let cx = sx / Double(m), cy = sy / Double(m)
        guard cx.isFinite, cy.isFinite else { return false }
        let first = ring.first
        let turn = orientation(cx, cy, v[2 * first], v[2 * first + 1], v[2 * first + 2], v[2 * first + 3])
        guard turn != 0 else { return false }
        var crossings = 0
        for k in first..<(first + m) {
            let ax = v[2 * k], ay = v[2 * k + 1], bx = v[2 * k + 2], by = v[2 * k + 3]
            guard orientation(cx, cy, ax, ay, bx, by) == turn else { return false }
            // Counterclockwise: upward across the point's latitude; clockwise: downward.
            if turn > 0 ? (ay < cy && by >= cy) : (by < cy && ay >= cy) { crossings += 1 }
        }
        return crossings == 1
    }

    /// (min lon, min lat, max lon, max lat) of a ring.
    private static func box(_ v: UnsafePointer<Double>, _ ring: Ring) -> SIMD4<Double> {
        var b = SIMD4(Double.infinity, .infinity, -.infinity, -.infinity)
        for k in ring.first..<(ring.first + ring.count) {
            b = SIMD4(Swift.min(b.x, v[2 * k]), Swift.min(b.y, v[2 * k + 1]), Swift.max(b.z, v[2 * k]), Swift.max(b.w, v[2 * k + 1]))
        }
        return b
    }

    /// The certified crossing test of a point against one ring.
    private static func location(_ v: UnsafePointer<Double>, ring: Ring, x: Double, y: Double) -> PolygonTestResult {
        var odd = false
        if let settled = PolygonEdgeIndex.crossings(v, from: ring.first, edges: ring.count - 1, x: x, y: y, odd: &odd) {
            return settled == .inside ? .undecided : settled  // on the boundary: not certain
        }
        return odd ? .inside : .outside
    }

    /// The sign of the orientation of (a, b, c): +1 left turn, -1 right turn, 0 when it is
    /// within Shewchuk's error bound of 0 (collinear, or too close to tell).
    @inline(__always)
    static func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
        let left = (ax - cx) * (by - cy), right = (ay - cy) * (bx - cx)
        let d = left - right
        let bound = PolygonEdgeIndex.orientationErrorBound * (abs(left) + abs(right))
        return d > bound ? 1 : d < -bound ? -1 : 0
    }

    /// One edge in the sweep.
    struct Edge {
        var minX: Double, maxX: Double, minY: Double, maxY: Double
        var ring: Int32
        /// Index of the edge's first vertex in the vertex list.
        var first: Int32
    }

    /// No two edges of the rings meet, except neighbours in a ring at their shared vertex,
    /// where the ring turns. A sweep by longitude pairs only edges whose boxes overlap.
    static func edgesAreSimple(_ v: UnsafePointer<Double>, _ rings: [Ring], scratch edges: inout [Edge]) -> Bool {
        edges.removeAll(keepingCapacity: true)
        for (r, ring) in rings.enumerated() {
            for k in ring.first..<(ring.first + ring.count - 1) {
                let x1 = v[2 * k], y1 = v[2 * k + 1], x2 = v[2 * k + 2], y2 = v[2 * k + 3]
                edges.append(Edge(
                    minX: Swift.min(x1, x2), maxX: Swift.max(x1, x2), minY: Swift.min(y1, y2), maxY: Swift.max(y1, y2),
                    ring: Int32(r), first: Int32(k)))
            }
        }
        edges.sort { $0.minX < $1.minX }
        var active: [Edge] = []
        var budget = 32 * edges.count + 1024
        for e in edges {
            active.removeAll { $0.maxX < e.minX }
            for f in active where f.minY <= e.maxY && e.minY <= f.maxY {
                budget -= 1
                if budget < 0 { return false }
                guard pairIsSimple(v, e, f, rings) else { return false }
            }
            active.append(e)
        }
        return true
    }

    /// ``edgesAreSimple(_:_:scratch:)`` for few edges: every pair, one box check each, no sort.
    static func smallEdgesAreSimple(_ v: UnsafePointer<Double>, _ rings: [Ring], scratch: inout Scratch) -> Bool {
        scratch.low.removeAll(keepingCapacity: true)
        scratch.high.removeAll(keepingCapacity: true)
        scratch.owner.removeAll(keepingCapacity: true)
        for (r, ring) in rings.enumerated() {
            for k in ring.first..<(ring.first + ring.count - 1) {
                let x1 = v[2 * k], y1 = v[2 * k + 1], x2 = v[2 * k + 2], y2 = v[2 * k + 3]
                let minX = Swift.min(x1, x2), maxX = Swift.max(x1, x2), minY = Swift.min(y1, y2), maxY = Swift.max(y1, y2)
                scratch.low.append(SIMD4(minX, minY, -maxX, -maxY))
                scratch.high.append(SIMD4(maxX, maxY, -minX, -minY))
                scratch.owner.append(SIMD2(Int32(r), Int32(k)))
            }
        }
        let count = scratch.low.count
        return scratch.low.withUnsafeBufferPointer { low in
            scratch.high.withUnsafeBufferPointer { high in
                scratch.owner.withUnsafeBufferPointer { owner in
                    for a in 0..<count {
                        let la = low[a]
                        for b in (a + 1)..<Swift.max(a + 1, count) {
                            // Lane by lane: measured twice as fast as `all(la .<= high[b])`.
                            let hb = high[b]
                            guard la.x <= hb.x && la.y <= hb.y && la.z <= hb.z && la.w <= hb.w else { continue }
                            guard pairIsSimple(v, Int(owner[a].y), Int(owner[a].x), Int(owner[b].y), Int(owner[b].x), rings) else { return false }
                        }
                    }
                    return true
                }
            }
        }
    }

    /// Two edges whose boxes overlap: neighbours that turn, or edges that certainly do not meet.
    private static func pairIsSimple(_ v: UnsafePointer<Double>, _ e: Edge, _ f: Edge, _ rings: [Ring]) -> Bool {
        pairIsSimple(v, Int(e.first), Int(e.ring), Int(f.first), Int(f.ring), rings)
    }

    /// The edges starting at vertices `a` (of ring `ra`) and `b` (of ring `rb`).
    private static func pairIsSimple(_ v: UnsafePointer<Double>, _ a: Int, _ ra: Int, _ b: Int, _ rb: Int, _ rings: [Ring]) -> Bool {
        if ra == rb {
            let ring = rings[ra]
            let last = ring.first + ring.count - 2  // first vertex of the ring's last edge
            // Neighbours: b follows a, a follows b, or the closing pair.
            let pivot: Int? = b == a + 1 || (a == last && b == ring.first) ? a
                : a == b + 1 || (b == last && a == ring.first) ? b : nil
            if let p = pivot {
                // Edges (p, p+1) and (p+1, p+2), the vertex after the ring's last position
                // being its second one.
                let next = p + 1 == ring.first + ring.count - 1 ? ring.first + 1 : p + 2
                return orientation(v[2 * p], v[2 * p + 1], v[2 * p + 2], v[2 * p + 3], v[2 * next], v[2 * next + 1]) != 0
            }
        }
        let p1x = v[2 * a], p1y = v[2 * a + 1], p2x = v[2 * a + 2], p2y = v[2 * a + 3]
        let q1x = v[2 * b], q1y = v[2 * b + 1], q2x = v[2 * b + 2], q2y = v[2 * b + 3]
        let o1 = orientation(p1x, p1y, p2x, p2y, q1x, q1y), o2 = orientation(p1x, p1y, p2x, p2y, q2x, q2y)
        if o1 != 0 && o1 == o2 { return true }
        let o3 = orientation(q1x, q1y, q2x, q2y, p1x, p1y), o4 = orientation(q1x, q1y, q2x, q2y, p2x, p2y)
        return o3 != 0 && o3 == o4
    }
}

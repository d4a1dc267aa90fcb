// Memory layout (every polygon fence's cell grid, flat, by storage position)
// --------------------------------------------------------------------------
// * `records[2p]`, `records[2p + 1]`: the containment record of the fence at storage position
//   p, two SIMD4<Double> (one 64-byte line):
//     circle:  (latitude rad, longitude rad, cos latitude, sin²(r / 2R) ≥ 0), (sin latitude, 0, 0, 0)
//     polygon: (minLon, minLat, kx / width, -(ky / height)), (maxLon, maxLat, kx | ky << 32, cellBase | edgeBase << 32)
//              (the last two as bit patterns; the negative fourth number marks a polygon);
//              kx = 0 for a polygon without a grid (the run test of ``PolygonEdgeIndex`` answers).
// * The polygon's box is cut into kx × ky cells; cell (cx, cy) is `cells[cellBase + cy * kx + cx]`,
//   and `cells[cellBase + kx * ky]` closes the list. A cell is a UInt16: bit 15 the parity of
//   the crossings every point of the cell has east of the cell (its *base*), bits 0–14 where its
//   edges start in `edges[edgeBase ...]`, relative; they end where the next cell's start.
// * `edges[k]`: the first vertex of an edge (index into the set's vertex array; the edge runs
//   from vertex i to vertex i + 1 of the same ring).
// Memory: 64 bytes per fence, 2 bytes per cell (about 128 per polygon), 4 bytes per listed edge.

/// Every polygon fence's box cut into a grid of cells, each cell classified the way S2's
/// `S2ShapeIndex` classifies its cells: a point in a cell the boundary does not reach is
/// answered by the cell alone (inside or outside); a point in a cell the boundary crosses tests
/// only the few edges listed for that cell.
///
/// The classification uses no geometry that rounding could get wrong. A point's cell comes
/// from `column(x) = min(kx − 1, Int((x − minLon) · kx / width))` and its row likewise, the very
/// functions the build applies to the vertices; both only ever grow with their argument, so a
/// vertex in a column left of the point's has a smaller longitude than the point, one in a
/// higher row a larger latitude, and so on. From that alone:
/// - an edge whose vertices are all in columns left of the point's cannot cross the ray east
///   of the point, nor hold the point;
/// - an edge whose vertices are all right of it, and which reaches from a row below the point's
///   to a row above it, crosses the ray once for every point of the cell;
/// - a chain of consecutive edges reaching the point's row, all of whose vertices are right of
///   the cell, crosses every horizontal line of that row the same number of times modulo 2
///   (its two ends lie outside the row).
/// Those are folded into the cell's base parity. The remaining edges go through the certified
/// crossing step of ``PolygonEdgeIndex`` (``PolygonEdgeIndex/crossing(_:x:y:)``): the answer is
/// the exact one, or `undecided` and GEOS decides, exactly as with the run test. A point on a
/// cell's border belongs to one cell by those same functions, so it needs no special case.
struct PolygonCellIndex: Sendable {
    /// Cells a polygon's grid aims for: the share of its box in cells the boundary crosses
    /// falls as 4 / √cells; polygons with many edges get more (see ``cellTarget(edges:)``).
    ///
    /// 128, not 256: on the peers' world 256 cells made point tests at 100k fences 2 % (per
    /// fix) and 8 % (batch) faster, but doubled the cells' memory, which every load pays in
    /// building time and fresh pages (100k fences: the cells' phase 87 → 63 ms; 1M fences:
    /// the whole load 5.6 → 3.8 s, 2.0 → 1.6 GB; 2026-11-24).
    static let baseCells = 128
    static let maximumCells = 4096
    /// Largest relative edge offset a cell can hold (15 bits).
    static let maximumListedEdges = 0x7FFF

    /// Two per storage position (see the layout above).
    let records: FrozenBuffer<SIMD4<Double>>
    let cells: FrozenBuffer<UInt16>
    let edges: FrozenBuffer<UInt32>

    init(records: FrozenBuffer<SIMD4<Double>>, cells: FrozenBuffer<UInt16>, edges: FrozenBuffer<UInt32>) {
        self.records = records
        self.cells = cells
        self.edges = edges
    }

    /// The cells a polygon of `edges` edges gets before the listed-edge limit is applied.
    static func cellTarget(edges: Int) -> Int { Swift.min(maximumCells, Swift.max(baseCells, 2 * edges)) }

    /// The index as plain pointers (valid while `self` and the vertex buffer, of
    /// `vertexCount` positions, live).
    func view(vertices: UnsafePointer<Double>, vertexCount: Int) -> View {
        View(
            records: records.pointer, cells: cells.pointer, edges: edges.pointer, vertices: vertices,
            edgeCount: edges.count, lastEdgeStart: Swift.max(0, vertexCount - 2))
    }

    /// Bytes held.
    var memoryBytes: Int { records.count * 32 + cells.count * 2 + edges.count * 4 }

    /// The test over raw pointers: no reference counting per query.
    ///
    /// Reads stay in bounds for any index that passed the compiled file's structure checks,
    /// which check each polygon's grid and bases but not every cell and listed edge (that read
    /// every cell of a million-fence file on open): a cell's edge range is clamped to the
    /// listed edges, and a listed edge to the vertices. For a set built by the engine the
    /// clamps never bind; a crafted file can only get wrong answers, never a stray read.
    struct View {
        let records: UnsafePointer<SIMD4<Double>>
        let cells: UnsafePointer<UInt16>
        let edges: UnsafePointer<UInt32>
        let vertices: UnsafePointer<Double>
        /// Listed edges in all, and the last position an edge may start at.
        let edgeCount: Int
        let lastEdgeStart: Int

        /// Exact location of (longitude x, latitude y) in the gridded polygon whose record is
        /// `(low, high)`, or `undecided` when GEOS must settle it. Requires `kx > 0`.
        ///
        /// - Complexity: O(1) for a point outside the box or in a cell the boundary does not
        ///   reach; O(e) for the e edges listed in a crossed cell.
        @inline(__always)
        func test(_ low: SIMD4<Double>, _ high: SIMD4<Double>, x: Double, y: Double) -> PolygonTestResult {
            edgesWithoutBranches(cell(low, high, x: x, y: y), x: x, y: y)
        }

        /// The first half of ``test(_:_:x:y:)``: the point's cell, its base parity and the range of
        /// its listed edges (empty when the cell alone answers: the parity is then the answer).
        /// A batch locates all its candidates' cells first, so their cache misses overlap.
        @inline(__always)
        func cell(_ low: SIMD4<Double>, _ high: SIMD4<Double>, x: Double, y: Double) -> CellHit {
            // Outside the box (or not a number): outside every ring.
            guard x >= low.x, y >= low.y, x <= high.x, y <= high.y else { return CellHit(from: 0, to: 0, odd: false) }
            let dimensions = high.z.bitPattern, bases = high.w.bitPattern
            let kx = Int(truncatingIfNeeded: dimensions & 0xFFFF_FFFF), ky = Int(truncatingIfNeeded: dimensions >> 32)
            // Inside the box, so both products are at least 0 and about the cells per side at
            // most: the conversion without `Int(_:)`'s checks for NaN and range.
            let cx = Swift.min(kx &- 1, PointCoverage.truncated((x - low.x) * low.z))
            let cy = Swift.min(ky &- 1, PointCoverage.truncated((y - low.y) * -low.w))
            let cell = Int(truncatingIfNeeded: bases & 0xFFFF_FFFF) &+ cy &* kx &+ cx
            let entry = cells[cell]
            let listBase = Int(truncatingIfNeeded: bases >> 32)
            return CellHit(
                from: Swift.min(listBase &+ Int(entry & 0x7FFF), edgeCount),
                to: Swift.min(listBase &+ Int(cells[cell &+ 1] & 0x7FFF), edgeCount), odd: entry & 0x8000 != 0)
        }

        /// ``edges(_:x:y:)`` without a branch per edge, for loops whose answers follow no
        /// pattern: each edge's crossing, its rounding doubt and the exact cases (the point's
        /// latitude that of a vertex: on a vertex or a horizontal edge) are folded into two
        /// bits; when any edge is in doubt or exact, ``edges(_:x:y:)`` answers instead, so
        /// the answer is always its answer.
        /// - Complexity: O(e) for the e edges listed in the cell.
        @inline(__always)
        func edgesWithoutBranches(_ hit: CellHit, x: Double, y: Double) -> PolygonTestResult {
            let (odd, doubt) = edgeBits(hit, x: x, y: y)
            if doubt { return edgesInDoubt(hit, x: x, y: y) }
            return odd ? .inside : .outside
        }

        /// The folded bits of ``edgesWithoutBranches(_:x:y:)``: the parity after the listed
        /// edges' crossings, and whether any edge was in doubt or exact (then the parity is
        /// not the answer).
        @inline(__always)
        func edgeBits(_ hit: CellHit, x: Double, y: Double) -> (odd: Bool, doubt: Bool) {
            var flips = hit.odd ? 1 : 0, doubt = 0
            var k = hit.from
            while k < hit.to {
                let e = vertices + 2 &* Swift.min(Int(edges[k]), lastEdgeStart)
                let x1 = e[0], y1 = e[1], x2 = e[2], y2 = e[3]
                let straddles = (y1 > y) != (y2 > y) ? 1 : 0
                let a = (y - y1) * (x2 - x1)
                let b = (x - x1) * (y2 - y1)
                let d = a - b
                let bound = PolygonEdgeIndex.orientationErrorBound * (abs(a) + abs(b))
                // Going up, the point strictly left of the edge; going down, strictly right.
                let east = (y2 > y1 ? d > bound : d < -bound) ? 1 : 0
                let certain = abs(d) > bound ? 1 : 0
                flips ^= straddles & east
                doubt |= straddles & (1 &- certain) | (y1 == y ? 1 : 0)
                k &+= 1
            }
            return (flips != 0, doubt != 0)
        }

        /// ``edges(_:x:y:)`` out of line: the rare cell with an edge in doubt (inlined, it
        /// kept ``edgesWithoutBranches(_:x:y:)`` itself from being inlined).
        @inline(never)
        func edgesInDoubt(_ hit: CellHit, x: Double, y: Double) -> PolygonTestResult { edges(hit, x: x, y: y) }

        /// The listed edges of the point's cell, an edge at a time with a branch on each
        /// crossing's certainty: what ``edgesWithoutBranches(_:x:y:)`` falls back on when an
        /// edge is in doubt, and the form loops that follow a pattern use.
        @inline(__always)
        func edges(_ hit: CellHit, x: Double, y: Double) -> PolygonTestResult {
            var odd = hit.odd
            var k = hit.from
            while k < hit.to {
                switch PolygonEdgeIndex.crossing(vertices + 2 &* Swift.min(Int(edges[k]), lastEdgeStart), x: x, y: y) {
                case .none: break
                case .east: odd.toggle()
                case .boundary: return .inside
                case .undecided: return .undecided
                }
                k &+= 1
            }
            return odd ? .inside : .outside
        }
    }

    /// A point's cell: its listed edges `edges[from ..< to]` and the parity of the crossings
    /// east of the cell.
    struct CellHit {
        var from: Int
        var to: Int
        var odd: Bool
    }
}

/// A polygon's grid numbers, as the record stores them and the build computes cells with.
struct PolygonGrid {
    var minX, minY, maxX, maxY: Double
    var inverseWidth, inverseHeight: Double
    var kx, ky: Int

    /// The column of longitude `x` (for `x` ≥ `minX`): never decreasing in `x`.
    @inline(__always) func column(_ x: Double) -> Int { Swift.min(kx - 1, Int((x - minX) * inverseWidth)) }
    /// The row of latitude `y` (for `y` ≥ `minY`): never decreasing in `y`.
    @inline(__always) func row(_ y: Double) -> Int { Swift.min(ky - 1, Int((y - minY) * inverseHeight)) }

    /// The smallest latitude in row `r`, exactly; `minY` for row 0 (the build clips edges to
    /// the rows with these).
    ///
    /// A binary search over the doubles: walking one unit in the last place at a time from the
    /// computed border never ends when the border is near 0 (the units there are subnormal; a
    /// grid from −1 to 1 took about 2⁶² steps).
    func rowStart(_ r: Int) -> Double {
        r > 0 ? Self.smallest(from: minY, to: maxY, near: minY + Double(r) / inverseHeight) { row($0) >= r } : minY
    }

    /// The smallest longitude in column `c`, exactly; `minX` for column 0.
    func columnStart(_ c: Int) -> Double {
        c > 0 ? Self.smallest(from: minX, to: maxX, near: minX + Double(c) / inverseWidth) { column($0) >= c } : minX
    }

    /// ``smallest(from:to:_:)`` starting from an estimate: a few steps of one unit in the last
    /// place from `guess` settle it when the estimate is close (the usual case: a border
    /// computed as `low + k / inverse` is off by an ulp or two); otherwise the binary search.
    /// The same answer either way.
    static func smallest(from low: Double, to high: Double, near guess: Double, _ reached: (Double) -> Bool) -> Double {
        var y = Swift.min(high, Swift.max(low.nextUp, guess))
        if y.isFinite {
            for _ in 0..<8 {
                if reached(y) {
                    let below = y.nextDown
                    if below <= low || !reached(below) { return y }
                    y = below
                } else {
                    y = y.nextUp
                    if y > high { break }
                }
            }
        }
        return smallest(from: low, to: high, reached)
    }

    /// The smallest double in `(low, high]` where `reached` holds, given that it fails at `low`,
    /// holds at `high` and never turns false again as its argument grows: a binary search over
    /// the doubles in order (their bit patterns, for the finite ones of one sign, are in order).
    /// - Complexity: at most 64 calls of `reached`.
    static func smallest(from low: Double, to high: Double, _ reached: (Double) -> Bool) -> Double {
        // Order-preserving integers for all finite doubles.
        func key(_ d: Double) -> Int64 { d.sign == .minus ? -Int64(bitPattern: d.magnitude.bitPattern) : Int64(bitPattern: d.bitPattern) }
        func value(_ k: Int64) -> Double { k < 0 ? -Double(bitPattern: UInt64(-k)) : Double(bitPattern: UInt64(k)) }
        var lo = key(low), hi = key(high)  // reached(value(lo)) false, reached(value(hi)) true
        // The distance can exceed Int64 (−180 to 180); as UInt64 it cannot.
        while UInt64(bitPattern: hi &- lo) > 1 {
            let mid = lo &+ Int64(bitPattern: UInt64(bitPattern: hi &- lo) / 2)
            if reached(value(mid)) { hi = mid } else { lo = mid }
        }
        return value(hi)
    }

    /// The record's two halves with the grid's bases.
    func record(cellBase: Int, edgeBase: Int) -> (SIMD4<Double>, SIMD4<Double>) {
        (SIMD4(minX, minY, inverseWidth, -inverseHeight),
         SIMD4(maxX, maxY, Double(bitPattern: UInt64(kx) | UInt64(ky) << 32),
               Double(bitPattern: UInt64(cellBase) | UInt64(edgeBase) << 32)))
    }

    /// The grid a record describes, or nil for a circle or a polygon without one.
    init?(_ low: SIMD4<Double>, _ high: SIMD4<Double>) {
        guard low.w < 0 else { return nil }
        let dimensions = high.z.bitPattern
        kx = Int(truncatingIfNeeded: dimensions & 0xFFFF_FFFF)
        ky = Int(truncatingIfNeeded: dimensions >> 32)
        guard kx > 0 else { return nil }
        minX = low.x; minY = low.y; maxX = high.x; maxY = high.y
        inverseWidth = low.z; inverseHeight = -low.w
    }

    init(minX: Double, minY: Double, maxX: Double, maxY: Double, kx: Int, ky: Int) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
        self.kx = kx; self.ky = ky
        inverseWidth = Double(kx) / (maxX - minX)
        inverseHeight = Double(ky) / (maxY - minY)
    }
}

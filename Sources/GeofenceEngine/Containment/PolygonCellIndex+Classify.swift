import RealModule

// How one polygon's grid is classified: each cell inside, outside, or crossed by the edges
// listed for it (see PolygonCellIndex.swift), from (edge, row) incidences, never cells × edges.
extension PolygonCellIndex {
    /// Reused between polygons by one thread: the build allocates per polygon only when one is
    /// larger than every polygon before it.
    final class Scratch {
        /// Per vertex of the ring being classified: its row.
        let row = ScratchArray<Int32>()
        /// The ring's (edge, row) incidences bucketed by row: row r's are
        /// `bucketStarts[r] ..< bucketStarts[r + 1]`, edges ascending, each with the columns of
        /// its part within the row (`east`, `west`: the edge lies east of the cells before
        /// column `east` and west of the cells after column `west`).
        let bucketStarts = ScratchArray<Int32>()
        let incidenceEdge = ScratchArray<Int32>()
        let east = ScratchArray<Int32>(), west = ScratchArray<Int32>()
        /// The latitudes bounding each row (`ky + 1`).
        let bottoms = ScratchArray<Double>()
        /// Parity flips by range: row r's cells are `r * (kx + 1) ..< r * (kx + 1) + kx`;
        /// flipping cells a ..< b flips entries a and b, and a cell's parity is the running XOR.
        let toggles = ScratchArray<UInt8>()
        /// `cell << 32 | vertex` for every (cell, listed edge), in the order found.
        let pairs = ScratchArray<UInt64>(capacity: PolygonCellIndex.maximumListedEdges + 257)
        let starts = ScratchArray<Int32>()
        /// The result: `kx × ky + 1` cells and the listed edges.
        let cells = ScratchArray<UInt16>()
        let listed = ScratchArray<UInt32>()
    }

    /// The grid of the polygon made of `rings`, its cells and listed edges in `scratch`; nil
    /// when it has no edges, no area, or too many edges for a cell list (more than
    /// ``maximumListedEdges``): the run test then answers.
    static func classify(shapes: FenceShapes, rings: Range<Int>, scratch: Scratch) -> PolygonGrid? {
        let v = shapes.vertices.pointer
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var edgeCount = 0
        for ring in rings {
            let from = Int(shapes.vertexStarts[ring]), to = Int(shapes.vertexStarts[ring + 1])
            edgeCount += Swift.max(0, to - from - 1)
            for i in from..<to {
                minX = Swift.min(minX, v[2 * i]); maxX = Swift.max(maxX, v[2 * i])
                minY = Swift.min(minY, v[2 * i + 1]); maxY = Swift.max(maxY, v[2 * i + 1])
            }
        }
        let width = maxX - minX, height = maxY - minY
        guard edgeCount > 0, width > 0, height > 0, width.isFinite, height.isFinite else { return nil }
        // Cells about square on the ground: columns and rows in the ratio of the box's sides in metres.
        let aspect = width * Double.cos((minY + maxY) / 2 * Double.pi / 180) / height
        var target = cellTarget(edges: edgeCount)
        while true {
            let kx = Swift.min(256, Swift.max(1, Int((Double(target) * aspect).squareRoot().rounded())))
            let ky = Swift.min(256, Swift.max(1, target / kx))
            let grid = PolygonGrid(minX: minX, minY: minY, maxX: maxX, maxY: maxY, kx: kx, ky: ky)
            if fill(grid, shapes: shapes, rings: rings, scratch: scratch) { return grid }
            if kx * ky == 1 { return nil }
            target = Swift.max(1, kx * ky / 4)
        }
    }

    /// Classifies every cell of `grid` (see ``PolygonCellIndex``) into `s.cells` and
    /// `s.listed`; false when the listed edges exceed ``maximumListedEdges``.
    ///
    /// Row by row, the edges reaching a row form *chains* (maximal runs of consecutive edges,
    /// cyclically). A chain whose ends lie on opposite sides of the row crosses every
    /// horizontal line of the row an odd number of times, so it flips the parity of the cells
    /// west of all of it. Within the chain's columns, each edge is listed in the cells from the
    /// chain's west end to its own east end, except where it passes wholly east of the cell
    /// from below the row to above it (a crossing for every point: a parity flip instead).
    /// Flips over a range of cells are two entries of a difference row, so the work is the
    /// (edge, row) incidences plus the listed pairs plus the cells, never cells × edges.
    ///
    /// The cells and lists equal those of the row-by-row scan this replaced (kept as a twin
    /// in the tests), byte for byte: within a cell, edges are listed by ring, chain and edge.
    /// - Complexity: O(v + Σ rows per edge + listed pairs + cells).
    static func fill(_ grid: PolygonGrid, shapes: FenceShapes, rings: Range<Int>, scratch s: Scratch) -> Bool {
        let v = shapes.vertices.pointer
        let kx = grid.kx, ky = grid.ky
        s.pairs.count = 0
        s.toggles.reset(count: ky * (kx + 1), to: 0)
        s.bottoms.reserve(ky + 1)
        for r in 0..<ky { s.bottoms[r] = grid.rowStart(r) }
        s.bottoms[ky] = grid.maxY
        for ring in rings {
            let from = Int(shapes.vertexStarts[ring]), to = Int(shapes.vertexStarts[ring + 1])
            let m = to - from - 1  // edges; edge e joins vertices from + e and from + e + 1
            guard m > 0 else { continue }
            bucket(grid, v + 2 * from, edges: m, scratch: s)
            let edgeOf = s.incidenceEdge.base
            for r in 0..<ky {
                let first = Int(s.bucketStarts[r]), end = Int(s.bucketStarts[r + 1])
                guard end > first else { continue }
                let row = Row(r: r, kx: kx, m: m, from: from)
                if end - first == m {
                    guard row.chain(first..<end, end..<end, closed: true, s) else { return false }
                    continue
                }
                // Runs of consecutive edges, in order; the run holding edge 0 comes last, joined
                // to the run ending at edge m − 1 when there is one (the order the row scan met
                // them in).
                let wraps = edgeOf[first] == 0
                var b = first + 1
                while b < end && edgeOf[b] == edgeOf[b - 1] + 1 { b += 1 }
                let firstRun = first..<b
                var firstPending = wraps
                if !wraps { guard row.chain(firstRun, b..<b, closed: false, s) else { return false } }
                var a = b
                while a < end {
                    b = a + 1
                    while b < end && edgeOf[b] == edgeOf[b - 1] + 1 { b += 1 }
                    let joined = b == end && wraps && edgeOf[end - 1] == Int32(m - 1)
                    guard row.chain(a..<b, joined ? firstRun : b..<b, closed: false, s) else { return false }
                    if joined { firstPending = false }
                    a = b
                }
                if firstPending { guard row.chain(firstRun, end..<end, closed: false, s) else { return false } }
            }
        }
        // Cells in order, each with its edges (a stable counting sort of the pairs by cell).
        let cellCount = kx * ky
        let pairs = s.pairs.base, pairCount = s.pairs.count
        s.starts.reset(count: cellCount + 1, to: 0)
        let starts = s.starts.base
        for k in 0..<pairCount { starts[Int(pairs[k] >> 32) + 1] &+= 1 }
        for c in 0..<cellCount { starts[c + 1] &+= starts[c] }
        s.cells.reserve(cellCount + 1)
        s.cells.count = cellCount + 1
        let cells = s.cells.base, toggles = s.toggles.base
        for r in 0..<ky {
            var odd: UInt8 = 0
            for c in 0..<kx {
                odd ^= toggles[r * (kx + 1) + c]
                cells[r * kx + c] = UInt16(truncatingIfNeeded: starts[r * kx + c]) | (odd != 0 ? 0x8000 : 0)
            }
        }
        cells[cellCount] = UInt16(truncatingIfNeeded: starts[cellCount])
        s.listed.reserve(pairCount)
        s.listed.count = pairCount
        let listed = s.listed.base
        for k in 0..<pairCount {
            let c = Int(pairs[k] >> 32)
            listed[Int(starts[c])] = UInt32(truncatingIfNeeded: pairs[k])
            starts[c] &+= 1
        }
        return true
    }

    /// The ring's rows and its (edge, row) incidences with the columns of each edge's part in
    /// the row, bucketed by row (see ``Scratch``). `ring` points at the ring's first position.
    private static func bucket(_ grid: PolygonGrid, _ ring: UnsafePointer<Double>, edges m: Int, scratch s: Scratch) {
        let ky = grid.ky
        s.row.reserve(m + 1)
        let row = s.row.base
        for i in 0...m { row[i] = Int32(grid.row(ring[2 * i + 1])) }
        s.bucketStarts.reset(count: ky + 1, to: 0)
        let starts = s.bucketStarts.base
        var total = 0
        for e in 0..<m {
            let a = Int(Swift.min(row[e], row[e + 1])), b = Int(Swift.max(row[e], row[e + 1]))
            for r in a...b { starts[r + 1] &+= 1 }
            total += b - a + 1
        }
        for r in 0..<ky { starts[r + 1] &+= starts[r] }
        s.incidenceEdge.reserve(total)
        s.east.reserve(total)
        s.west.reserve(total)
        let edgeOf = s.incidenceEdge.base, east = s.east.base, west = s.west.base, bottoms = s.bottoms.base
        for e in 0..<m {
            let a = Int(Swift.min(row[e], row[e + 1])), b = Int(Swift.max(row[e], row[e + 1]))
            if a == b {
                // Within one row (most edges): the part in the row is the whole edge, as
                // `clippedLongitudes` finds too (both ends lie in the row's band).
                let k = Int(starts[a])
                starts[a] &+= 1
                let x1 = ring[2 * e], x2 = ring[2 * e + 2]
                edgeOf[k] = Int32(e)
                east[k] = Int32(grid.column(Swift.min(x1, x2)))
                west[k] = Int32(grid.column(Swift.max(x1, x2)))
                continue
            }
            for r in a...b {
                // Each bucket's start serves as its cursor, moved back below.
                let k = Int(starts[r])
                starts[r] &+= 1
                let (lo, hi) = clippedLongitudes(ring + 2 * e, bottom: bottoms[r], top: bottoms[r + 1])
                edgeOf[k] = Int32(e)
                east[k] = Int32(grid.column(lo))
                west[k] = Int32(grid.column(hi))
            }
        }
        // Each cursor now sits at the next bucket's start: shift back.
        for r in stride(from: ky, to: 0, by: -1) { starts[r] = starts[r - 1] }
        starts[0] = 0
    }

    /// One row of one ring being classified.
    private struct Row {
        let r: Int
        let kx: Int
        /// Edges of the ring, and the index of its first position in the set's vertices.
        let m: Int
        let from: Int

        /// Adds one chain of the row: the incidences `head` then `rest` (edges in ring order;
        /// `rest` empty unless the chain wraps past the ring's last edge). `closed`: the chain
        /// is the whole ring (no ends). False when the listed edges exceed the maximum.
        func chain(_ head: Range<Int>, _ rest: Range<Int>, closed: Bool, _ s: Scratch) -> Bool {
            let edgeOf = s.incidenceEdge.base, eastOf = s.east.base, westOf = s.west.base, row = s.row.base
            let toggles = s.toggles.base + r * (kx + 1)
            // The chain lies east of the cells before `east` and west of those after `west`.
            var east = Int32.max, west = Int32.min
            for k in head { east = Swift.min(east, eastOf[k]); west = Swift.max(west, westOf[k]) }
            for k in rest { east = Swift.min(east, eastOf[k]); west = Swift.max(west, westOf[k]) }
            let r32 = Int32(r)
            // Cells west of the whole chain: it crosses each of their horizontal lines an even
            // or odd number of times depending only on which side of the row its two ends lie.
            if !closed {
                let firstEdge = Int(edgeOf[head.lowerBound])
                let lastEdge = Int(edgeOf[rest.isEmpty ? head.upperBound - 1 : rest.upperBound - 1])
                if (row[firstEdge] > r32) != (row[lastEdge + 1] > r32) {
                    let bound = Swift.min(kx, Swift.max(0, Int(east)))
                    if bound > 0 { toggles[0] ^= 1; toggles[bound] ^= 1 }
                }
            }
            let low = Swift.max(0, Int(east)), high = Swift.min(kx - 1, Int(west))
            guard low <= high else { return true }
            // The pairs' count in a local while the chain's edges are listed (stored back once:
            // a store and a load of the array's count per edge were a tenth of the chains).
            let pairs = s.pairs, out = pairs.base
            var n = pairs.count
            defer { pairs.count = n }
            @inline(__always) func edge(_ k: Int) -> Bool {
                let e = Int(edgeOf[k])
                let edgeEast = Int(eastOf[k]), edgeWest = Swift.min(high, Int(westOf[k]))
                guard edgeWest >= low else { return true }  // wholly west of the chain's cells
                let ra = row[e], rb = row[e + 1]
                var listFrom = low
                if Swift.min(ra, rb) < r32 && r32 < Swift.max(ra, rb) && edgeEast > low {
                    // Wholly east of the cells before its own, from below the row to above it.
                    let bound = Swift.min(edgeEast, edgeWest + 1)
                    toggles[low] ^= 1
                    toggles[bound] ^= 1
                    listFrom = bound
                }
                guard listFrom <= edgeWest else { return true }
                // Room was made for the maximum and one row more: stop once past it.
                let vertex = UInt64(from + e)
                for c in listFrom...edgeWest {
                    out[n] = UInt64(r * kx + c) << 32 | vertex
                    n &+= 1
                }
                return n <= PolygonCellIndex.maximumListedEdges
            }
            for k in head where !edge(k) { return false }
            for k in rest where !edge(k) { return false }
            return true
        }
    }

    /// The smallest and largest longitude of the edge from `(e[0], e[1])` to `(e[2], e[3])`
    /// between latitudes `bottom` and `top`, widened by far more than the rounding of the
    /// interpolation: every point of the edge in that band lies within them.
    @inline(__always)
    static func clippedLongitudes(_ e: UnsafePointer<Double>, bottom: Double, top: Double) -> (Double, Double) {
        let x1 = e[0], y1 = e[1], x2 = e[2], y2 = e[3]
        let lo = Swift.min(x1, x2), hi = Swift.max(x1, x2)
        guard y1 != y2 else { return (lo, hi) }
        // The part in the band runs between the ends inside the band and the points where the
        // edge meets the band's two lines between its ends.
        var partLo = Double.infinity, partHi = -Double.infinity
        if y1 >= bottom && y1 <= top { partLo = x1; partHi = x1 }
        if y2 >= bottom && y2 <= top { partLo = Swift.min(partLo, x2); partHi = Swift.max(partHi, x2) }
        let margin = 1e-12 * (1 + abs(x1) + abs(x2))
        @inline(__always) func meet(_ line: Double) {
            guard (y1 < line && line < y2) || (y2 < line && line < y1) else { return }
            let x = x1 + (line - y1) * (x2 - x1) / (y2 - y1)
            partLo = Swift.min(partLo, x - margin)
            partHi = Swift.max(partHi, x + margin)
        }
        meet(bottom)
        meet(top)
        guard partLo <= partHi else { return (lo, hi) }
        return (Swift.max(lo, partLo), Swift.min(hi, partHi))
    }
}

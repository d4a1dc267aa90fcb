import RealModule

extension PolygonCellIndex {
    /// Builds every fence's containment record and every polygon's classified grid, over the
    /// set's shapes (storage order). `circleRecords[p]` is the circle record of position p
    /// (threshold −1 for a polygon).
    ///
    /// The polygons are classified on `threads` threads, in contiguous ranges of positions;
    /// the ranges' cells and edges are then laid end to end in position order, so the result
    /// is the one-thread result, byte for byte (tested).
    ///
    /// - Complexity: O(Σ rows × edges + cells) over the polygons, divided among the threads:
    ///   with at most ``maximumCells`` cells each, about 20 steps per edge for the usual polygon.
    init(shapes: FenceShapes, circleRecords: [SIMD4<Double>], threads: Int = 1) {
        let n = circleRecords.count
        // Ranges of about 256 positions: small enough to balance the threads, large enough
        // that a range's arrays are not a cost.
        let rangeCount = threads <= 1 ? 1 : Swift.max(1, Swift.min(threads * 16, n / 256))
        let ranges = DisjointSlots<ClassifiedRange?>(repeating: nil, count: rangeCount)
        ParallelWorkers.run(count: rangeCount, threads: threads) { k, _ in
            let from = n * k / rangeCount, to = n * (k + 1) / rangeCount
            var range = ClassifiedRange()
            var scratch = Scratch()
            for p in from..<to where circleRecords[p].w < 0 {
                guard let grid = Self.classify(shapes: shapes, rings: shapes.rings(position: p), scratch: &scratch) else { continue }
                range.grids.append((p, grid, range.cells.count, range.edges.count))
                range.cells.append(contentsOf: scratch.cells)
                range.edges.append(contentsOf: scratch.listed)
            }
            ranges[k] = range
        }
        var records = [SIMD4<Double>](repeating: .zero, count: 2 * n)
        for p in 0..<n { records[2 * p] = circleRecords[p].w < 0 ? SIMD4(0, 0, 0, -1) : circleRecords[p] }
        var cells: [UInt16] = [], edges: [UInt32] = []
        let all = ranges.storage.map { $0! }
        cells.reserveCapacity(all.reduce(0) { $0 + $1.cells.count })
        edges.reserveCapacity(all.reduce(0) { $0 + $1.edges.count })
        for range in all {
            let cellBase = cells.count, edgeBase = edges.count
            for g in range.grids {
                (records[2 * g.position], records[2 * g.position + 1]) =
                    g.grid.record(cellBase: cellBase + g.cellOffset, edgeBase: edgeBase + g.edgeOffset)
            }
            cells.append(contentsOf: range.cells)
            edges.append(contentsOf: range.edges)
        }
        self.init(records: FrozenBuffer(records), cells: FrozenBuffer(cells), edges: FrozenBuffer(edges))
    }

    /// The polygons of one range of positions, classified: each grid with where its cells and
    /// edges start in the range's arrays.
    struct ClassifiedRange {
        var grids: [(position: Int, grid: PolygonGrid, cellOffset: Int, edgeOffset: Int)] = []
        var cells: [UInt16] = []
        var edges: [UInt32] = []
    }

    /// Reused between polygons: the build allocates per polygon only when one is larger
    /// than every polygon before it.
    struct Scratch {
        var row: [Int] = []
        /// Per edge of the ring, for the row being classified: the edge lies east of the cells
        /// before column `east[e]` and west of the cells after column `west[e]`.
        var east: [Int] = [], west: [Int] = []
        /// `cell << 32 | vertex` for every (cell, listed edge), in the order found.
        var pairs: [UInt64] = []
        var parity: [Bool] = []
        /// The result: `kx × ky + 1` cells and the listed edges.
        var cells: [UInt16] = []
        var listed: [UInt32] = []
    }

    /// The grid of the polygon made of `rings`, its cells and listed edges in `scratch`; nil
    /// when it has no edges, no area, or too many edges for a cell list (more than
    /// ``maximumListedEdges``): the run test then answers.
    static func classify(shapes: FenceShapes, rings: Range<Int>, scratch: inout Scratch) -> PolygonGrid? {
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
            if fill(grid, shapes: shapes, rings: rings, scratch: &scratch) { return grid }
            if kx * ky == 1 { return nil }
            target = Swift.max(1, kx * ky / 4)
        }
    }

    /// Classifies every cell of `grid` (see ``PolygonCellIndex``); false when the listed edges
    /// exceed ``maximumListedEdges``.
    static func fill(_ grid: PolygonGrid, shapes: FenceShapes, rings: Range<Int>, scratch s: inout Scratch) -> Bool {
        let v = shapes.vertices.pointer
        let kx = grid.kx, ky = grid.ky
        s.pairs.removeAll(keepingCapacity: true)
        s.parity.removeAll(keepingCapacity: true)
        s.parity.append(contentsOf: repeatElement(false, count: kx * ky))
        // The latitudes bounding each row: a point in row r has bottoms[r] ≤ y ≤ bottoms[r + 1].
        var bottoms = (0..<ky).map { grid.rowStart($0) }
        bottoms.append(grid.maxY)
        for ring in rings {
            let from = Int(shapes.vertexStarts[ring]), to = Int(shapes.vertexStarts[ring + 1])
            let m = to - from - 1  // edges; edge e joins vertices from + e and from + e + 1
            guard m > 0 else { continue }
            s.row.removeAll(keepingCapacity: true)
            for i in from..<to { s.row.append(grid.row(v[2 * i + 1])) }
            s.east.removeAll(keepingCapacity: true)
            s.east.append(contentsOf: repeatElement(0, count: m))
            s.west.removeAll(keepingCapacity: true)
            s.west.append(contentsOf: repeatElement(0, count: m))
            for r in 0..<ky {
                @inline(__always) func relevant(_ e: Int) -> Bool {
                    Swift.min(s.row[e], s.row[e + 1]) <= r && r <= Swift.max(s.row[e], s.row[e + 1])
                }
                // Each edge reaching the row: the columns of its part within the row.
                for e in 0..<m where relevant(e) {
                    let (lo, hi) = clippedLongitudes(v + 2 * (from + e), bottom: bottoms[r], top: bottoms[r + 1])
                    s.east[e] = grid.column(lo)
                    s.west[e] = grid.column(hi)
                }
                // Chains: maximal runs of consecutive edges reaching row r, walked from just
                // after an edge that does not (or the whole ring when every edge does).
                guard let gap = (0..<m).first(where: { !relevant($0) }) else {
                    addChain(start: 0, length: m, wholeRing: true, from: from, m: m, r: r, kx: kx, s: &s)
                    continue
                }
                var e = (gap + 1) % m, walked = 0
                while walked < m {
                    if !relevant(e) { e = (e + 1) % m; walked += 1; continue }
                    var length = 0
                    while walked < m && relevant((e + length) % m) { length += 1; walked += 1 }
                    addChain(start: e, length: length, wholeRing: false, from: from, m: m, r: r, kx: kx, s: &s)
                    e = (e + length) % m
                }
            }
        }
        // Cells in order, each with its edges (a stable counting sort of the pairs by cell).
        let cellCount = kx * ky
        guard s.pairs.count <= maximumListedEdges else { return false }
        var starts = [Int](repeating: 0, count: cellCount + 1)
        for pair in s.pairs { starts[Int(pair >> 32) + 1] += 1 }
        for c in 0..<cellCount { starts[c + 1] += starts[c] }
        s.cells.removeAll(keepingCapacity: true)
        for c in 0..<cellCount { s.cells.append(UInt16(starts[c]) | (s.parity[c] ? 0x8000 : 0)) }
        s.cells.append(UInt16(starts[cellCount]))
        s.listed.removeAll(keepingCapacity: true)
        s.listed.append(contentsOf: repeatElement(0, count: s.pairs.count))
        for pair in s.pairs {
            let c = Int(pair >> 32)
            s.listed[starts[c]] = UInt32(truncatingIfNeeded: pair)
            starts[c] += 1
        }
        return true
    }

    /// The smallest and largest longitude of the edge from `(e[0], e[1])` to `(e[2], e[3])`
    /// between latitudes `bottom` and `top`, widened by far more than the rounding of the
    /// interpolation: every point of the edge in that band lies within them.
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
        for line in [bottom, top] where (y1 < line && line < y2) || (y2 < line && line < y1) {
            let x = x1 + (line - y1) * (x2 - x1) / (y2 - y1)
            partLo = Swift.min(partLo, x - margin)
            partHi = Swift.max(partHi, x + margin)
        }
        guard partLo <= partHi else { return (lo, hi) }
        return (Swift.max(lo, partLo), Swift.min(hi, partHi))
    }

    /// Adds one chain of row `r` (edges `start ..< start + length` of the ring, cyclically;
    /// vertex indices relative to `from`) to the cells of that row.
    private static func addChain(
        start: Int, length: Int, wholeRing: Bool, from: Int, m: Int, r: Int, kx: Int, s: inout Scratch
    ) {
        // The chain lies east of the cells before `east` and west of those after `west`.
        var east = Int.max, west = Int.min
        for k in 0..<length {
            let e = (start + k) % m
            east = Swift.min(east, s.east[e])
            west = Swift.max(west, s.west[e])
        }
        // Cells west of the whole chain: it crosses each of their horizontal lines an even or
        // odd number of times depending only on which side of the row its two ends lie.
        if !wholeRing {
            let first = s.row[start], last = s.row[(start + length) % m]
            if (first > r) != (last > r) {
                for c in 0..<Swift.min(kx, Swift.max(0, east)) { s.parity[r * kx + c].toggle() }
            }
        }
        // Cells the chain's columns reach: edge by edge.
        let low = Swift.max(0, east), high = Swift.min(kx - 1, west)
        guard low <= high else { return }
        for c in low...high {
            let cell = r * kx + c
            for k in 0..<length {
                let e = (start + k) % m
                if s.west[e] < c { continue }  // wholly west of the cell: never east of its points
                let ra = s.row[e], rb = s.row[e + 1]
                if s.east[e] > c && Swift.min(ra, rb) < r && r < Swift.max(ra, rb) {
                    s.parity[cell].toggle()  // wholly east, from below the row to above it
                    continue
                }
                s.pairs.append(UInt64(cell) << 32 | UInt64(from + e))
            }
        }
    }
}

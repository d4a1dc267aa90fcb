@testable import GeofenceEngine

/// The obvious twin of ``PolygonCellIndex/fill(_:shapes:rings:scratch:)``: the row-by-row scan
/// the engine first shipped. For every row it looks at every edge, and for every cell of each
/// chain's columns at every edge of the chain (cells × edges), toggling parities one cell at
/// a time. Slow, and plainly what the layout at the top of `PolygonCellIndex.swift` says.
enum RowScanCells {
    /// The cells (`kx × ky + 1`, as stored) and listed edges of the polygon made of `rings`,
    /// or nil when the listed edges would exceed the maximum.
    static func fill(_ grid: PolygonGrid, shapes: FenceShapes, rings: Range<Int>) -> (cells: [UInt16], listed: [UInt32])? {
        let v = shapes.vertices.pointer
        let kx = grid.kx, ky = grid.ky
        var pairs: [UInt64] = []
        var parity = [Bool](repeating: false, count: kx * ky)
        // A point in row r has bottoms[r] ≤ y ≤ bottoms[r + 1]; the borders by binary search.
        var bottoms = (0..<ky).map { r in r == 0 ? grid.minY : PolygonGrid.smallest(from: grid.minY, to: grid.maxY) { grid.row($0) >= r } }
        bottoms.append(grid.maxY)
        for ring in rings {
            let from = Int(shapes.vertexStarts[ring]), to = Int(shapes.vertexStarts[ring + 1])
            let m = to - from - 1
            guard m > 0 else { continue }
            let row = (from..<to).map { grid.row(v[2 * $0 + 1]) }
            var east = [Int](repeating: 0, count: m), west = [Int](repeating: 0, count: m)
            for r in 0..<ky {
                func relevant(_ e: Int) -> Bool { min(row[e], row[e + 1]) <= r && r <= max(row[e], row[e + 1]) }
                for e in 0..<m where relevant(e) {
                    let (lo, hi) = PolygonCellIndex.clippedLongitudes(v + 2 * (from + e), bottom: bottoms[r], top: bottoms[r + 1])
                    east[e] = grid.column(lo)
                    west[e] = grid.column(hi)
                }
                func addChain(start: Int, length: Int, wholeRing: Bool) {
                    var chainEast = Int.max, chainWest = Int.min
                    for k in 0..<length {
                        chainEast = min(chainEast, east[(start + k) % m])
                        chainWest = max(chainWest, west[(start + k) % m])
                    }
                    if !wholeRing, (row[start] > r) != (row[(start + length) % m] > r) {
                        for c in 0..<min(kx, max(0, chainEast)) { parity[r * kx + c].toggle() }
                    }
                    let low = max(0, chainEast), high = min(kx - 1, chainWest)
                    guard low <= high else { return }
                    for c in low...high {
                        for k in 0..<length {
                            let e = (start + k) % m
                            if west[e] < c { continue }
                            if east[e] > c && min(row[e], row[e + 1]) < r && r < max(row[e], row[e + 1]) {
                                parity[r * kx + c].toggle()
                                continue
                            }
                            pairs.append(UInt64(r * kx + c) << 32 | UInt64(from + e))
                        }
                    }
                }
                guard let gap = (0..<m).first(where: { !relevant($0) }) else {
                    addChain(start: 0, length: m, wholeRing: true)
                    continue
                }
                var e = (gap + 1) % m, walked = 0
                while walked < m {
                    if !relevant(e) { e = (e + 1) % m; walked += 1; continue }
                    var length = 0
                    while walked < m && relevant((e + length) % m) { length += 1; walked += 1 }
                    addChain(start: e, length: length, wholeRing: false)
                    e = (e + length) % m
                }
            }
        }
        guard pairs.count <= PolygonCellIndex.maximumListedEdges else { return nil }
        // Grouped by cell, in the order found within a cell.
        let sorted = pairs.enumerated().sorted { ($0.element >> 32, $0.offset) < ($1.element >> 32, $1.offset) }.map(\.element)
        var listed: [UInt32] = [], cells: [UInt16] = []
        var k = 0
        for c in 0..<(kx * ky) {
            cells.append(UInt16(listed.count) | (parity[c] ? 0x8000 : 0))
            while k < sorted.count && Int(sorted[k] >> 32) == c { listed.append(UInt32(truncatingIfNeeded: sorted[k])); k += 1 }
        }
        cells.append(UInt16(listed.count))
        return (cells, listed)
    }
}

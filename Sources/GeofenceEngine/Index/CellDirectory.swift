import GeofenceGeometry

// Memory layout (a uniform grid of cells over the fences' extent, CSR, no objects)
// ---------------------------------------------------------------------------------
// * The extent is the union of the index entries' boxes; `columns × rows` cells of equal size
//   in degrees cover it. Cell (cx, cy) is number `cy * columns + cx`.
// * `starts[c] ..< starts[c + 1]` are the positions, in `boxes` / `slots`, of the entries whose
//   box meets cell c, in ascending slot order. `boxes[p]` is the entry's box as the R-tree
//   stores it (Float32 rounded outward, (minLon, minLat, -maxLon, -maxLat)), copied next to
//   its slot so a cell's candidates are read from one contiguous run.
// * Entries whose box spans more than `maximumCellsPerEntry` cells are not copied into cells;
//   they sit in `large` and are checked on every query.
// * `occupied`: the coverage, one bit per *fine* cell: each cell cut into 2^s × 2^s fine cells
//   (s = `fineShift`, 2 unless the grid is huge), fine cell (fx, fy) being bit f % 64 of word
//   f / 64 for f = fy * (columns << s) + fx; set when an entry's box reaches the fine cell. A
//   point in a clear fine cell has no candidate and is answered from a table that stays in the
//   first- or second-level cache without reading `starts` (with 1k fences, 9 % of the fixes
//   reach `starts` instead of the 19 % whose whole cell has entries). A fine cell's column is
//   `min((columns << s) - 1, Int((lon - minLon) * (inverseCellWidth * 2^s)))`: scaling by a
//   power of two is exact, so its column `>> s` is the cell's column, exactly.
// Memory: 4 bytes per cell, 20 bytes per (cell, entry) pair; the grid is sized so that there
// are about 64 cells per entry (fewer when boxes are large) and at most 2^22 cells.

/// A grid directory over the R-tree's entries: the tree's answer to "which boxes hold this
/// point" cached per cell, so a point query is one cell lookup and a few box checks.
///
/// The packed R-tree stays the index of record (box and nearest queries, and sets whose
/// extent makes a grid useless). For point containment this directory is measured 3–8×
/// faster than the tree's depth-first walk at 1k–100k fences, because the walk visits
/// about 50 boxes where a cell holds one or two.
package final class CellDirectory: Sendable {
    /// Cells per entry the grid aims for: most cells then hold no box at all, so most points are
    /// answered from the cell table alone (measured 15 % faster than 8 at 1k fences, the same at
    /// 10k and 100k).
    static let cellsPerEntry = 64
    static let maximumCells = 1 << 22
    /// An entry spanning more cells than this goes to the `large` list.
    static let maximumCellsPerEntry = 256
    /// With more large entries than this, the directory is not used (the tree answers).
    static let maximumLargeEntries = 64

    /// False when the set is empty or its boxes do not suit a grid; queries then use the tree.
    package let isEnabled: Bool
    let minLongitude: Double
    let minLatitude: Double
    let maxLongitude: Double
    let maxLatitude: Double
    let inverseCellWidth: Double
    let inverseCellHeight: Double
    let columns: Int
    let rows: Int
    let starts: FrozenBuffer<UInt32>
    /// One bit per cell: set when the cell has entries.
    let occupied: FrozenBuffer<UInt64>
    let boxes: FrozenBuffer<SIMD4<Float>>
    /// Candidate keys: `slot << 32 | storage position` (see ``FenceSet``'s storage order), so
    /// candidates sort by slot and still say where the fence's numbers are.
    let slots: FrozenBuffer<UInt64>
    let largeBoxes: FrozenBuffer<SIMD4<Float>>
    let largeSlots: FrozenBuffer<UInt64>
    let largeCount: Int
    /// The most candidates one search can report (largest cell plus the large entries).
    let maximumCandidates: Int
    /// The coverage's fine cells per cell side, as a power of two.
    let fineShift: Int

    /// Builds the directory over entry boxes (non-wrapping) and their slots, given in
    /// ascending slot order.
    ///
    /// - Complexity: O(n + p) for n entries and p (cell, entry) pairs.
    convenience init(boxes entryBoxes: [BoundingBox], slots entrySlots: [Int32], storage entryStorage: [Int32]) {
        let extent = entryBoxes.reduce(BoundingBox.empty) { $0.union($1) }
        let n = entryBoxes.count
        guard n > 0, !extent.isEmpty, extent.minLongitude.isFinite, extent.maxLatitude.isFinite else {
            self.init(disabled: ())
            return
        }
        // Square-ish cells in degrees: about `cellsPerEntry` per entry, but not much smaller
        // than half the median box (smaller cells only copy each box into more of them).
        let width = Swift.max(extent.maxLongitude - extent.minLongitude, 1e-9)
        let height = Swift.max(extent.maxLatitude - extent.minLatitude, 1e-9)
        let wanted = Double(Swift.min(Self.maximumCells, Swift.max(64, n * Self.cellsPerEntry)))
        var side = Swift.max((width * height / wanted).squareRoot(), Self.medianSide(entryBoxes))
        // Coarser cells until few boxes are too large to copy into their cells.
        var attempt = 0
        while true {
            let layout = Self.layout(extent: extent, width: width, height: height, side: side)
            var large = 0
            for box in entryBoxes where layout.cellCount(box) > Self.maximumCellsPerEntry { large += 1 }
            if large <= Self.maximumLargeEntries || attempt == 12 { break }
            side *= 2
            attempt += 1
        }
        let layout = Self.layout(extent: extent, width: width, height: height, side: side)
        let columns = layout.columns, rows = layout.rows, cells = columns * rows
        let fine = Self.fineLayout(layout)
        // Pass 1: count entries per cell (the starts, filled in place); set the large ones aside.
        let starts = UnsafeMutablePointer<UInt32>.allocate(capacity: cells + 1)
        starts.initialize(repeating: 0, count: cells + 1)
        var largeBoxes: [SIMD4<Float>] = [], largeSlots: [UInt64] = []
        var largeEntry = [Bool](repeating: false, count: n)
        for (e, box) in entryBoxes.enumerated() {
            if layout.cellCount(box) > Self.maximumCellsPerEntry {
                largeEntry[e] = true
                largeBoxes.append(PackedRTree.packed(box))
                largeSlots.append(Self.key(slot: entrySlots[e], storage: entryStorage[e]))
                continue
            }
            for cy in layout.row(box.minLatitude)...layout.row(box.maxLatitude) {
                for cx in layout.column(box.minLongitude)...layout.column(box.maxLongitude) { starts[cy * columns + cx + 1] &+= 1 }
            }
        }
        guard largeBoxes.count <= Self.maximumLargeEntries else {
            starts.deallocate()
            self.init(disabled: ())
            return
        }
        for c in 0..<cells { starts[c + 1] &+= starts[c] }
        // Pass 2: fill, in entry (= slot) order, so each cell's run is sorted by slot.
        let pairs = Int(starts[cells])
        let cursor = UnsafeMutablePointer<UInt32>.allocate(capacity: Swift.max(1, cells))
        cursor.initialize(from: starts, count: cells)
        let boxes = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: Swift.max(1, pairs))
        let slots = UnsafeMutablePointer<UInt64>.allocate(capacity: Swift.max(1, pairs))
        // With them, the coverage: the fine cells each (not large) box reaches.
        let fineWords = (fine.columns * fine.rows + 63) / 64
        let coverage = UnsafeMutablePointer<UInt64>.allocate(capacity: Swift.max(1, fineWords))
        coverage.initialize(repeating: 0, count: Swift.max(1, fineWords))
        for (e, box) in entryBoxes.enumerated() where !largeEntry[e] {
            let stored = PackedRTree.packed(box), key = Self.key(slot: entrySlots[e], storage: entryStorage[e])
            for cy in layout.row(box.minLatitude)...layout.row(box.maxLatitude) {
                for cx in layout.column(box.minLongitude)...layout.column(box.maxLongitude) {
                    let p = Int(cursor[cy * columns + cx])
                    boxes[p] = stored
                    slots[p] = key
                    cursor[cy * columns + cx] &+= 1
                }
            }
            for fy in fine.row(box.minLatitude)...fine.row(box.maxLatitude) {
                for fx in fine.column(box.minLongitude)...fine.column(box.maxLongitude) {
                    let f = fy * fine.columns + fx
                    coverage[f >> 6] |= 1 << UInt64(f & 63)
                }
            }
        }
        cursor.deallocate()
        var most = 0
        for c in 0..<cells { most = Swift.max(most, Int(starts[c + 1] &- starts[c])) }
        let startBuffer = FrozenBuffer(adopting: starts, count: cells + 1)
        PhaseTrace.note("directory: \(columns) × \(rows) cells, \(pairs) (cell, entry) pairs, \(largeSlots.count) large entries, at most \(most) a cell")
        self.init(
            grid: Grid(
                isEnabled: true, minLongitude: extent.minLongitude, minLatitude: extent.minLatitude,
                maxLongitude: extent.maxLongitude, maxLatitude: extent.maxLatitude, inverseCellWidth: layout.inverseWidth,
                inverseCellHeight: layout.inverseHeight, columns: columns, rows: rows, maximumCandidates: most + largeSlots.count,
                fineShift: fine.shift),
            starts: startBuffer, occupied: FrozenBuffer(adopting: coverage, count: fineWords),
            boxes: FrozenBuffer(adopting: boxes, count: pairs), slots: FrozenBuffer(adopting: slots, count: pairs),
            largeBoxes: FrozenBuffer(largeBoxes), largeSlots: FrozenBuffer(largeSlots))
    }

    /// The median of the boxes' longer sides (in degrees; the upper median for an even count):
    /// the sides' bit patterns (non-negative doubles order as integers) radix-sorted.
    /// - Complexity: O(n).
    static func medianSide(_ boxes: [BoundingBox]) -> Double {
        let n = boxes.count
        guard n > 0 else { return 0 }
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: n), spare = UnsafeMutablePointer<UInt64>.allocate(capacity: n)
        defer { keys.deallocate(); spare.deallocate() }
        for (k, box) in boxes.enumerated() {
            keys[k] = Swift.max(box.maxLongitude - box.minLongitude, box.maxLatitude - box.minLatitude).bitPattern
        }
        RadixSort.sort(keys, spare: spare, count: n)
        return Double(bitPattern: keys[n / 2])
    }

    /// The most fine cells the coverage may have (2^27 bits, 16 MiB); a finer split than this
    /// is not used.
    static let maximumFineCells = 1 << 27
    /// Fine cells per cell side: 2^2.
    static let fineShift = 2

    /// The fine grid of a layout: `fineShift` unless that would exceed ``maximumFineCells``.
    static func fineLayout(_ layout: Layout) -> Layout {
        var shift = fineShift
        while shift > 0 && (layout.columns * layout.rows) << (2 * shift) > maximumFineCells { shift -= 1 }
        return layout.finer(shift)
    }

    /// The directory's numbers other than its arrays (what a compiled fence file stores).
    struct Grid: Sendable {
        var isEnabled: Bool
        var minLongitude, minLatitude, maxLongitude, maxLatitude: Double
        var inverseCellWidth, inverseCellHeight: Double
        var columns, rows: Int
        var maximumCandidates: Int
        /// The coverage's fine cells per cell side, as a power of two (see the layout above).
        var fineShift: Int
    }

    /// A directory from its parts (built here, or read from a compiled file whose reader
    /// checked them: `columns × rows + 1` starts, ascending, the last one the pair count).
    init(
        grid: Grid, starts: FrozenBuffer<UInt32>, occupied: FrozenBuffer<UInt64>, boxes: FrozenBuffer<SIMD4<Float>>,
        slots: FrozenBuffer<UInt64>, largeBoxes: FrozenBuffer<SIMD4<Float>>, largeSlots: FrozenBuffer<UInt64>
    ) {
        isEnabled = grid.isEnabled
        minLongitude = grid.minLongitude
        minLatitude = grid.minLatitude
        maxLongitude = grid.maxLongitude
        maxLatitude = grid.maxLatitude
        inverseCellWidth = grid.inverseCellWidth
        inverseCellHeight = grid.inverseCellHeight
        columns = grid.columns
        rows = grid.rows
        self.starts = starts
        self.occupied = occupied
        self.boxes = boxes
        self.slots = slots
        self.largeBoxes = largeBoxes
        self.largeSlots = largeSlots
        largeCount = largeSlots.count
        maximumCandidates = grid.maximumCandidates
        fineShift = grid.fineShift
    }

    /// The numbers of ``Grid``.
    var grid: Grid {
        Grid(
            isEnabled: isEnabled, minLongitude: minLongitude, minLatitude: minLatitude, maxLongitude: maxLongitude,
            maxLatitude: maxLatitude, inverseCellWidth: inverseCellWidth, inverseCellHeight: inverseCellHeight,
            columns: columns, rows: rows, maximumCandidates: maximumCandidates, fineShift: fineShift)
    }

    /// Grid dimensions for a cell side (degrees) over the extent.
    struct Layout {
        var minLongitude: Double
        var minLatitude: Double
        var columns: Int
        var rows: Int
        var inverseWidth: Double
        var inverseHeight: Double
        /// For a fine layout, the fine cells per side of the cells it splits, as a power of two.
        var shift = 0

        @inline(__always) func column(_ lon: Double) -> Int {
            Swift.min(columns - 1, Swift.max(0, Int((lon - minLongitude) * inverseWidth)))
        }
        @inline(__always) func row(_ lat: Double) -> Int {
            Swift.min(rows - 1, Swift.max(0, Int((lat - minLatitude) * inverseHeight)))
        }
        /// The grid of the same extent with every cell cut into 2^shift × 2^shift: the scales
        /// multiplied by a power of two (exactly), so a fine column `>> shift` is the column.
        func finer(_ shift: Int) -> Layout {
            Layout(
                minLongitude: minLongitude, minLatitude: minLatitude, columns: columns << shift, rows: rows << shift,
                inverseWidth: inverseWidth * Double(1 << shift), inverseHeight: inverseHeight * Double(1 << shift), shift: shift)
        }
        func cellCount(_ box: BoundingBox) -> Int {
            (column(box.maxLongitude) - column(box.minLongitude) + 1) * (row(box.maxLatitude) - row(box.minLatitude) + 1)
        }
    }

    static func layout(extent: BoundingBox, width: Double, height: Double, side: Double) -> Layout {
        let columns = Swift.max(1, Swift.min(maximumCells, Int((width / side).rounded(.up))))
        let rows = Swift.max(1, Swift.min(maximumCells / columns, Int((height / side).rounded(.up))))
        return Layout(
            minLongitude: extent.minLongitude, minLatitude: extent.minLatitude, columns: columns, rows: rows,
            inverseWidth: Double(columns) / width, inverseHeight: Double(rows) / height)
    }

    private convenience init(disabled: Void) {
        self.init(
            grid: Grid(
                isEnabled: false, minLongitude: 0, minLatitude: 0, maxLongitude: -1, maxLatitude: -1,
                inverseCellWidth: 0, inverseCellHeight: 0, columns: 0, rows: 0, maximumCandidates: 0, fineShift: 0),
            starts: FrozenBuffer([0]), occupied: FrozenBuffer([]), boxes: FrozenBuffer([]), slots: FrozenBuffer([]),
            largeBoxes: FrozenBuffer([]), largeSlots: FrozenBuffer([]))
    }

    /// `slot << 32 | storage`.
    @inline(__always)
    static func key(slot: Int32, storage: Int32) -> UInt64 { UInt64(UInt32(slot)) << 32 | UInt64(UInt32(storage)) }

    /// Appends to `result` the slot of every entry whose box holds the point, ascending by
    /// slot, each slot once. `result` is not cleared. Requires ``isEnabled``.
    ///
    /// - Complexity: O(k) for the k entries of the point's cell (plus the large entries).
    package func search(latitude: Double, longitude: Double, into result: inout [Int32]) {
        var keys: [UInt64] = []
        view.search(latitude: latitude, longitude: longitude, into: &keys)
        for k in keys { result.append(Int32(truncatingIfNeeded: k >> 32)) }
    }

    /// Sorts `a[from...]` ascending and drops repeats (a cell's run merged with large entries).
    static func sortRemovingDuplicates(_ a: inout [UInt64], from: Int) {
        for i in (from + 1)..<a.count {
            let x = a[i]
            var j = i
            while j > from && a[j - 1] > x { a[j] = a[j - 1]; j -= 1 }
            a[j] = x
        }
        var w = from + 1
        for r in (from + 1)..<a.count where a[r] != a[w - 1] {
            a[w] = a[r]
            w += 1
        }
        a.removeLast(a.count - w)
    }

    /// Bytes held.
    package var memoryBytes: Int { starts.count * 4 + occupied.count * 8 + boxes.count * 16 + slots.count * 8 + largeCount * 24 }
}

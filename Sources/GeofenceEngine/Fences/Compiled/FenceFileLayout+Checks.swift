/// The structure checks of a compiled file's sections (see ``FenceFileLayout``).
extension FenceFileLayout {
    /// One check: a description of what is wrong, or nil.
    struct Check: Sendable {
        let run: @Sendable () -> String?
    }

    /// Every check, to run in parallel with the digests.
    func checks() -> [Check] {
        let n = self.n, meta = self.meta
        let (ids, properties, libraries, fragments) = (self.ids, self.properties, self.libraries, self.fragments)
        let (idOffsets, propertyOffsets, libraryOffsets, fragmentOffsets) = (self.idOffsets, self.propertyOffsets, self.libraryOffsets, self.fragmentOffsets)
        let (idTable, storageIndex) = (self.idTable, self.storageIndex)
        let (partStarts, ringStarts, vertexStarts, vertices) = (self.partStarts, self.ringStarts, self.vertexStarts, self.vertices)
        let (chunkRanges, chunkBounds, slotChunks) = (self.chunkRanges, self.chunkBounds, self.slotChunks)
        let (records, polygonCells, polygonCellEdges) = (self.records, self.polygonCells, self.polygonCellEdges)
        let (treeBoxes, treeRefs, treeLevels) = (self.treeBoxes, self.treeRefs, self.treeLevels)
        let (cellStarts, cellBoxes, cellSlots, largeBoxes, largeSlots) = (self.cellStarts, self.cellBoxes, self.cellSlots, self.largeBoxes, self.largeSlots)
        let cellOccupancy = self.cellOccupancy
        let perSlot: [(String, Int)] = [
            ("ATTR", attributes.count), ("LEVL", levels.count), ("RANK", ranks.count), ("DWLS", dwellSeconds.count),
            ("DWLM", dwellMilliseconds.count), ("FIDX", featureIndexes.count), ("CIRC", enclosingCircles.count),
            ("STIX", storageIndex.count), ("LVLB", levelBuffer.count), ("ECSL", slotChunks.count),
        ] + (fingerprints.map { [("FPRT", $0.count)] } ?? [])
        return [
            Check {
                if let (name, count) = perSlot.first(where: { $0.1 != n }) { return "section \(name) holds \(count) entries for \(n) fences" }
                return Self.offsets("IDOF", idOffsets, count: n + 1, end: ids.count)
                    ?? Self.offsets("PROF", propertyOffsets, count: n + 1, end: properties.count)
                    ?? Self.offsets("LIBO", libraryOffsets, count: n + 1, end: libraries.count)
                    ?? Self.offsets("EVTO", fragmentOffsets, count: 2 * n + 1, end: fragments.count)
            },
            Check {
                let size = idTable.count
                guard size >= 16, size & (size - 1) == 0, size >= 2 * n else { return "section IDHT has \(size) entries for \(n) fences" }
                for e in 0..<size where Int(idTable[e]) > n { return "section IDHT names slot \(idTable[e] - 1) of \(n)" }
                for k in 0..<storageIndex.count where storageIndex[k] < 0 || Int(storageIndex[k]) >= n {
                    return "section STIX holds position \(storageIndex[k]) of \(n)"
                }
                return nil
            },
            Check {
                guard vertices.count % 2 == 0, vertices.count / 2 < Int(Int32.max) else { return "section VERT holds \(vertices.count) numbers" }
                return Self.offsets("PRTS", partStarts, count: n + 1, end: ringStarts.count - 1)
                    ?? Self.offsets("RNGS", ringStarts, count: ringStarts.count, end: vertexStarts.count - 1)
                    ?? Self.offsets("VTXS", vertexStarts, count: vertexStarts.count, end: vertices.count / 2)
            },
            Check {
                let vertexCount = vertices.count / 2, chunks = chunkRanges.count
                guard chunkBounds.count == chunks else { return "sections ECBD and ECRG differ in length" }
                for c in 0..<chunks {
                    let r = chunkRanges[c]
                    guard r.x >= 0, r.y >= 0, Int(r.x) + Int(r.y) < vertexCount else { return "section ECRG: run \(c) is outside the vertices" }
                }
                for p in 0..<slotChunks.count {
                    let r = slotChunks[p]
                    guard r.y == -1 || (r.x >= 0 && r.y >= 0 && Int(r.x) + Int(r.y) <= chunks) else {
                        return "section ECSL: fence \(p)'s runs are outside the run list"
                    }
                }
                return nil
            },
            // The records in four parts, so they share the threads with the digests evenly.
        ] + (0..<4).map { k in
            Check {
                Self.cells(
                    n: n, range: (n * k / 4)..<(n * (k + 1) / 4), records: records, cells: polygonCells, edges: polygonCellEdges,
                    vertexCount: vertices.count / 2)
            }
        } + [
            Check { Self.tree(meta: meta, n: n, boxes: treeBoxes, refs: treeRefs, levels: treeLevels) },
            Check {
                Self.directory(meta: meta, n: n, starts: cellStarts, boxes: cellBoxes, slots: cellSlots, largeBoxes: largeBoxes, largeSlots: largeSlots)
                    ?? Self.occupancy(meta: meta, occupied: cellOccupancy)
            },
        ]
    }

    /// `offsets` has `count` entries, starts at 0, never decreases and ends at `end`.
    static func offsets<T: FixedWidthInteger>(_ name: String, _ offsets: FrozenBuffer<T>, count: Int, end: Int) -> String? {
        guard offsets.count == count, count >= 1 else { return "section \(name) holds \(offsets.count) offsets, expected \(count)" }
        guard offsets[0] == 0, Int(exactly: offsets[count - 1]) == end else { return "section \(name) does not span its data" }
        let p = offsets.pointer
        for i in 1..<Swift.max(1, count) where p[i] < p[i - 1] { return "section \(name) decreases at entry \(i)" }
        return nil
    }

    /// The containment records and polygon cells of positions `range`: two records per fence;
    /// every grid's numbers finite and in range, its cells inside `PCCL` and its first listed
    /// edge inside `PCED`. So a point inside a record's box always lands in its own cells.
    /// The cells' entries and the listed edges themselves are not read: the test clamps them
    /// (``PolygonCellIndex/View``), so the check is O(fences), not O(cells).
    static func cells(
        n: Int, range: Range<Int>, records: FrozenBuffer<SIMD4<Double>>, cells: FrozenBuffer<UInt16>, edges: FrozenBuffer<UInt32>,
        vertexCount: Int
    ) -> String? {
        guard records.count == 2 * n else { return "section FREC holds \(records.count) records for \(n) fences" }
        for p in range {
            let low = records[2 * p], high = records[2 * p + 1]
            guard low.w < 0, high.z.bitPattern != 0 else { continue }  // a circle, or a polygon without cells
            guard let grid = PolygonGrid(low, high), grid.kx <= 256, grid.ky <= 256,
                grid.minX.isFinite, grid.minY.isFinite, grid.maxX.isFinite, grid.maxY.isFinite,
                grid.inverseWidth.isFinite, grid.inverseHeight.isFinite,
                grid.minX <= grid.maxX, grid.minY <= grid.maxY, grid.inverseWidth > 0, grid.inverseHeight > 0,
                (grid.maxX - grid.minX) * grid.inverseWidth < Double(grid.kx) + 2,
                (grid.maxY - grid.minY) * grid.inverseHeight < Double(grid.ky) + 2
            else { return "section FREC: fence \(p)'s cell grid is out of range" }
            let cellBase = Int(high.w.bitPattern & 0xFFFF_FFFF), edgeBase = Int(high.w.bitPattern >> 32)
            guard cellBase + grid.kx * grid.ky < cells.count else { return "section FREC: fence \(p)'s cells are outside section PCCL" }
            guard edgeBase <= edges.count else { return "section FREC: fence \(p)'s edges are outside section PCED" }
            guard vertexCount >= 2 else { return "section FREC: fence \(p) has cells but the set has no edges" }
        }
        return nil
    }

    /// The directory's coverage: a bit per fine cell (run after
    /// ``directory(meta:n:starts:boxes:slots:largeBoxes:largeSlots:)`` passed). Only its size
    /// matters to safety (a wrong bit can only hide or show a cell's candidates); the digests
    /// catch damage.
    static func occupancy(meta: FenceFileMeta, occupied: FrozenBuffer<UInt64>) -> String? {
        let g = meta.grid
        let fine = g.isEnabled ? (g.columns << g.fineShift) * (g.rows << g.fineShift) : 0
        guard occupied.count == (fine + 63) / 64 else { return "section CDOC holds \(occupied.count) words for \(fine) fine cells" }
        return nil
    }

    /// The packed R-tree: items' values are slots; each node's first child lies in the level
    /// below (so every walk ends and stays in bounds).
    static func tree(meta: FenceFileMeta, n: Int, boxes: FrozenBuffer<SIMD4<Float>>, refs: FrozenBuffer<Int32>, levels: FrozenBuffer<Int>) -> String? {
        let count = meta.treeCount, total = boxes.count
        guard refs.count == total else { return "sections RTBX and RTRF differ in length" }
        if count == 0 { return total == 0 && levels.count == 0 ? nil : "the empty R-tree has boxes" }
        guard levels.count >= 1, levels[0] == count, levels[levels.count - 1] == total, levels.count <= 64 else {
            return "section RTLV does not describe the R-tree's \(total) boxes"
        }
        for l in 1..<Swift.max(1, levels.count) where levels[l] <= levels[l - 1] { return "section RTLV is not ascending" }
        if levels.count > 1 && levels[levels.count - 1] - levels[levels.count - 2] != 1 { return "the R-tree has more than one root" }
        for p in 0..<count where refs[p] < 0 || Int(refs[p]) >= n { return "section RTRF: item \(p) names slot \(refs[p]) of \(n)" }
        for l in 1..<Swift.max(1, levels.count) {
            let below = l >= 2 ? levels[l - 2] : 0
            for p in levels[l - 1]..<levels[l] where Int(refs[p]) < below || Int(refs[p]) >= levels[l - 1] {
                return "section RTRF: node \(p) points outside the level below"
            }
        }
        return nil
    }

    /// The grid directory: cells within the limit, starts spanning the pairs, keys naming slots
    /// and positions in range, numbers that keep every cell computation finite and in range.
    static func directory(
        meta: FenceFileMeta, n: Int, starts: FrozenBuffer<UInt32>, boxes: FrozenBuffer<SIMD4<Float>>,
        slots: FrozenBuffer<UInt64>, largeBoxes: FrozenBuffer<SIMD4<Float>>, largeSlots: FrozenBuffer<UInt64>
    ) -> String? {
        let g = meta.grid
        guard boxes.count == slots.count, largeBoxes.count == largeSlots.count else { return "the directory's boxes and keys differ in number" }
        guard g.isEnabled else {
            return starts.count == 1 && slots.count == 0 && largeSlots.count == 0 && g.maximumCandidates == 0
                ? nil : "a disabled directory holds cells"
        }
        let cells = g.columns * g.rows
        guard g.columns >= 1, g.rows >= 1, cells <= CellDirectory.maximumCells,
            [g.minLongitude, g.minLatitude, g.maxLongitude, g.maxLatitude, g.inverseCellWidth, g.inverseCellHeight].allSatisfy(\.isFinite),
            g.minLongitude <= g.maxLongitude, g.minLatitude <= g.maxLatitude, g.inverseCellWidth > 0, g.inverseCellHeight > 0,
            (g.maxLongitude - g.minLongitude) * g.inverseCellWidth < Double(g.columns) + 2,
            (g.maxLatitude - g.minLatitude) * g.inverseCellHeight < Double(g.rows) + 2
        else { return "the directory's grid numbers are out of range" }
        if let problem = offsets("CDST", starts, count: cells + 1, end: slots.count) { return problem }
        var most: UInt32 = 0
        let s = starts.pointer
        for c in 0..<cells { most = Swift.max(most, s[c + 1] &- s[c]) }
        guard Int(most) + largeSlots.count == g.maximumCandidates else { return "the directory's candidate bound is wrong" }
        for keys in [slots, largeSlots] {
            for k in 0..<keys.count where keys[k] >> 32 >= UInt64(n) || keys[k] & 0xFFFF_FFFF >= UInt64(n) {
                return "the directory names a fence outside the set"
            }
        }
        return nil
    }
}

import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

/// Turns validated fence records into a ``FenceSet``'s flat storage.
///
/// The slots are given in id order as references into the records (duplicates and rejected
/// features already left out). The builder gathers the per-slot arrays, computes every
/// fence's boxes, builds the R-tree, the storage (Hilbert) order, the cell directory, the
/// shapes in storage order, the polygon edge runs, the event fragments and the id table.
enum FenceSetBuilder {
    /// Builds the storage on `threads` threads and releases each chunk of records once it has
    /// been copied.
    ///
    /// - Complexity: O(n log n + v) for n fences and v vertices.
    static func build(_ chunks: inout [FenceRecords], slots: [RecordReference], threads: Int = Platform.coreCount) -> FenceStorage {
        let n = slots.count
        let g = gather(chunks, slots, threads: threads)
        // The R-tree and the storage order share one Hilbert sort when every fence has one box.
        PhaseTrace.mark("gather")
        let entryOrder = PackedRTree.hilbertOrder(g.entryBoxes)
        let order: [Int]  // storage position -> slot
        if g.entryBoxes.count == n {
            order = entryOrder
        } else {
            // The east part of a fence split at the antimeridian stands for the whole.
            var firstBox = [BoundingBox](repeating: .empty, count: n)
            for (e, slot) in g.entrySlots.enumerated().reversed() { firstBox[Int(slot)] = g.entryBoxes[e] }
            order = PackedRTree.hilbertOrder(firstBox)
        }
        var position = [Int32](repeating: 0, count: n)
        for (k, slot) in order.enumerated() { position[slot] = Int32(k) }
        let storage = position
        PhaseTrace.mark("hilbert")
        // Independent parts, two at a time, the longest first (100k fences alone: fragments
        // 20 ms, directory 19, tree 5, id table 1; the phase 27 ms, against 28.5 with the
        // tree first, its faults and memory traffic shared by both threads).
        let tree = TaskResult<PackedRTree>(), directory = TaskResult<CellDirectory>()
        let fragments = TaskResult<ByteTable>(), idTable = TaskResult<FenceIDTable>()
        ParallelRanges.run(threads: threads, [
            { fragments.value = EventLineFormatter.fenceFragments(ids: g.ids, circles: g.circles, levels: g.levels, properties: g.properties) },
            { directory.value = CellDirectory(boxes: g.entryBoxes, slots: g.entrySlots, storage: g.entrySlots.map { storage[Int($0)] }) },
            { tree.value = PackedRTree(boxes: g.entryBoxes, values: g.entrySlots, order: entryOrder) },
            { idTable.value = FenceIDTable(ids: g.ids) },
        ])
        PhaseTrace.mark("tree, directory, fragments, id table")
        let circleRecords = order.map { circleRecord(g.attributes[$0], g.circles[$0]) }
        let levelBuffer = FrozenBuffer<Int>(count: n) { out in
            for (k, slot) in order.enumerated() { out.initializeElement(at: k, to: g.levels[slot]) }
        }
        PhaseTrace.mark("records, levels")
        let shapes = FenceShapeScatter.scatter(&chunks, order: order, sizes: g.shapeSizes, recordSlots: g.recordSlots, threads: threads)
        PhaseTrace.mark("scatter")
        let polygonEdges = PolygonEdgeIndex(shapes: shapes, count: n, threads: threads)
        PhaseTrace.mark("edge runs")
        let polygonCells = PolygonCellIndex(shapes: shapes, circleRecords: circleRecords, threads: threads)
        PhaseTrace.mark("cells")
        var largest = 0.0
        for slot in 0..<n { largest = Swift.max(largest, g.circles[slot].z) }
        var anyLevel = false
        for slot in 0..<n where g.levels[slot] != FenceSet.noLevel { anyLevel = true; break }
        return FenceStorage(
            ids: g.ids, idTable: idTable.value!, properties: g.properties, libraries: g.libraries,
            attributes: g.attributes, levels: g.levels, ranks: g.ranks, dwellSeconds: g.dwellSeconds,
            dwellMilliseconds: g.dwellMilliseconds, featureIndexes: g.featureIndexes, enclosingCircles: g.circles,
            eventFragments: fragments.value!, storageIndex: FrozenBuffer(position), polygonCells: polygonCells,
            levelBuffer: levelBuffer, shapes: shapes, polygonEdges: polygonEdges, index: tree.value!, directory: directory.value!,
            anyLevelFence: anyLevel, largestRadius: largest)
    }

    /// A dwell time in seconds as the tracker counts it: ms, at least 1 for a positive time;
    /// 0 (disabled) for 0, a negative time or a non-number.
    static func trackerDwell(_ seconds: Double) -> Int64 {
        guard seconds.isFinite && seconds > 0 else { return 0 }
        return Swift.max(1, TrackerConfiguration.milliseconds(Swift.min(seconds, TrackerConfiguration.longestDuration)))
    }

    /// The hot-path record of a circle fence, both halves (see ``PolygonCellIndex``'s layout):
    /// (latitude, longitude in radians, cos latitude, threshold), (sin latitude, 0, 0, 0); for a
    /// polygon threshold −1 (``PolygonCellIndex`` writes the polygon's own record).
    static func circleRecord(_ attributes: FenceAttributes, _ circle: SIMD4<Double>) -> (SIMD4<Double>, SIMD4<Double>) {
        guard !attributes.contains(.polygon) else { return (SIMD4(0, 0, 0, -1), .zero) }
        let latR = circle.x * Sphere.degreesToRadians
        let (sinLat, cosLat) = CMath.sinCos(latR)
        return (SIMD4(latR, circle.y * Sphere.degreesToRadians, cosLat, Sphere.capThreshold(radius: circle.z)), SIMD4(sinLat, 0, 0, 0))
    }

    /// One or two non-wrapping boxes around record `i`'s shape.
    static func boundingBoxes(_ r: FenceRecords, _ i: Int) -> [BoundingBox] {
        guard r.isPolygon(i) else {
            let c = r.circles[i]
            return CircleBounds.boxes(center: Coordinate(latitude: c.x, longitude: c.y), radius: c.z)
        }
        return r.vertices.withUnsafeBufferPointer { all in
            var exteriors: [BoundingBox] = []
            for part in Int(r.partStarts[i])..<Int(r.partStarts[i + 1]) {
                let ring = Int(r.ringStarts[part])
                let from = 2 * Int(r.vertexStarts[ring]), to = 2 * Int(r.vertexStarts[ring + 1])
                exteriors.append(BoundingBox(positions: UnsafeBufferPointer(rebasing: all[from..<to])))
            }
            return BoundingBox.covering(exteriors)
        }
    }
}

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
    static func build(
        _ chunks: inout [FenceRecords], slots: [RecordReference], threads: Int = Platform.coreCount,
        purpose: FenceSet.Purpose = .everything
    ) -> FenceStorage {
        let everything = purpose == .everything
        let n = slots.count
        let g = gather(chunks, slots, threads: threads)
        // The R-tree and the storage order share one Hilbert sort when every fence has one box.
        PhaseTrace.mark("gather")
        let entryOrder = PackedRTree.hilbertOrder(g.entryBoxes, threads: threads)
        let order: [Int]  // storage position -> slot
        if g.entryBoxes.count == n {
            order = entryOrder
        } else {
            // The east part of a fence split at the antimeridian stands for the whole.
            var firstBox = [BoundingBox](repeating: .empty, count: n)
            for (e, slot) in g.entrySlots.enumerated().reversed() { firstBox[Int(slot)] = g.entryBoxes[e] }
            order = PackedRTree.hilbertOrder(firstBox, threads: threads)
        }
        var position = [Int32](repeating: 0, count: n)
        for (k, slot) in order.enumerated() { position[slot] = Int32(k) }
        let storage = position
        PhaseTrace.mark("hilbert")
        // Independent parts, two at a time, the longest first (100k fences alone: directory
        // 16 ms, fragments 16, tree 7, id table 1), then the shapes' chunks (about 1 ms each),
        // which fill the time the longer parts leave a thread idle: 28 ms for the whole where
        // the parts took 23 and the chunks 9 after them.
        let tree = TaskResult<PackedRTree>(), directory = TaskResult<CellDirectory>()
        let fragments = TaskResult<ByteTable>(), idTable = TaskResult<FenceIDTable>()
        var chosen: [@Sendable () -> Void] = [
            { directory.value = CellDirectory(boxes: g.entryBoxes, slots: g.entrySlots, storage: g.entrySlots.map { storage[Int($0)] }) },
            { idTable.value = FenceIDTable(ids: g.ids) },
        ]
        if everything {
            chosen.insert(
                { fragments.value = EventLineFormatter.fenceFragments(ids: g.ids, circles: g.circles, levels: g.levels, properties: g.properties) },
                at: 1)
            chosen.insert({ tree.value = PackedRTree(boxes: g.entryBoxes, values: g.entrySlots, order: entryOrder) }, at: 2)
        }
        let parts = chosen
        let scatter = FenceShapeScatter(order: order, sizes: g.shapeSizes)
        let recordSlots = g.recordSlots
        chunks.withUnsafeMutableBufferPointer { buffer in
            let records = SharedPointer(buffer.baseAddress!)
            ParallelWorkers.run(count: parts.count + buffer.count, threads: threads) { k, _ in
                guard k >= parts.count else { return parts[k]() }
                let c = k - parts.count
                scatter.copy(records[c], slots: recordSlots[c])
                // Freed at once (each chunk is touched by one worker only).
                (records.base + c).pointee.release()
            }
        }
        let shapes = scatter.shapes()
        if !everything {
            // Containment alone: the tree only where the directory does not answer.
            fragments.value = ByteTableBuilder().frozen()
            tree.value = directory.value!.isEnabled
                ? PackedRTree(boxes: [], values: [], order: [])
                : PackedRTree(boxes: g.entryBoxes, values: g.entrySlots, order: entryOrder)
        }
        PhaseTrace.mark("tree, directory, fragments, id table, shapes")
        let levelBuffer = FrozenBuffer<Int>(count: n) { out in
            for (k, slot) in order.enumerated() { out.initializeElement(at: k, to: g.levels[slot]) }
        }
        let polygonEdges = PolygonEdgeIndex(shapes: shapes, count: n, threads: threads)
        PhaseTrace.mark("levels, edge runs")
        let (attributes, circles) = (g.attributes, g.circles)
        let polygonCells = PolygonCellIndex(shapes: shapes, count: n, threads: threads) { p in
            circleRecord(attributes[order[p]], circles[order[p]])
        }
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
            anyLevelFence: anyLevel, largestRadius: largest, purpose: purpose)
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

    /// One or two non-wrapping boxes around record `i`'s shape: the first, and the second or
    /// `.empty` (``BoundingBox/coveringPair(count:_:)``, ``CircleBounds/boxPair(center:radius:)``:
    /// without arrays, two allocations per fence were a tenth of gathering).
    static func boundingBoxes(_ r: FenceRecords, _ i: Int) -> (BoundingBox, BoundingBox) {
        guard r.isPolygon(i) else {
            let c = r.circles[i]
            return CircleBounds.boxPair(center: Coordinate(latitude: c.x, longitude: c.y), radius: c.z)
        }
        let firstPart = Int(r.partStarts[i]), parts = Int(r.partStarts[i + 1]) - firstPart
        return r.vertices.withUnsafeBufferPointer { all in
            BoundingBox.coveringPair(count: parts) { k in
                let ring = Int(r.ringStarts[firstPart + k])
                let from = 2 * Int(r.vertexStarts[ring]), to = 2 * Int(r.vertexStarts[ring + 1])
                return BoundingBox(positions: UnsafeBufferPointer(rebasing: all[from..<to]))
            }
        }
    }
}

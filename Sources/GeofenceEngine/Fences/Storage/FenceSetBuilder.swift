import GeofenceGeometry
import RealModule

/// Turns validated fence records into a ``FenceSet``'s flat storage.
///
/// The slots are given in id order as references into the records (duplicates and rejected
/// features already left out). The builder gathers the per-slot arrays, computes every
/// fence's boxes, builds the R-tree, the storage (Hilbert) order, the cell directory, the
/// shapes in storage order, the polygon edge runs, the event fragments and the id table.
enum FenceSetBuilder {
    /// Builds the storage and releases each chunk of records once it has been copied.
    ///
    /// - Complexity: O(n log n + v) for n fences and v vertices.
    static func build(_ chunks: inout [FenceRecords], slots: [RecordReference]) -> FenceStorage {
        let n = slots.count
        let gathered = gatherBySlot(chunks, slots)
        // Boxes (one or two per fence) in slot order: the index entries.
        var entryBoxes: [BoundingBox] = [], entrySlots: [Int32] = []
        entryBoxes.reserveCapacity(n)
        entrySlots.reserveCapacity(n)
        for (slot, ref) in slots.enumerated() {
            for box in boundingBoxes(chunks[Int(ref.chunk)], Int(ref.index)) {
                entryBoxes.append(box)
                entrySlots.append(Int32(slot))
            }
        }
        let index = PackedRTree(boxes: entryBoxes, values: entrySlots)
        // Storage order: Hilbert order of each fence's first box (the east part of a fence split
        // at the antimeridian stands for the whole).
        var firstBox = [BoundingBox](repeating: .empty, count: n)
        for (e, slot) in entrySlots.enumerated().reversed() { firstBox[Int(slot)] = entryBoxes[e] }
        let order = PackedRTree.hilbertOrder(firstBox)  // storage position -> slot
        firstBox = []
        var position = [Int32](repeating: 0, count: n)
        for (k, slot) in order.enumerated() { position[slot] = Int32(k) }
        let directory = CellDirectory(boxes: entryBoxes, slots: entrySlots, storage: entrySlots.map { position[Int($0)] })
        entryBoxes = []
        entrySlots = []

        let circleRecords = order.map { circleRecord(gathered.attributes[$0], gathered.circles[$0]) }
        let levelBuffer = FrozenBuffer<Int>(count: n) { out in
            for (k, slot) in order.enumerated() { out.initializeElement(at: k, to: gathered.levels[slot]) }
        }
        let shapes = FenceShapeScatter.scatter(&chunks, slots: slots, order: order)
        let polygonEdges = PolygonEdgeIndex(shapes: shapes, count: n)
        let polygonCells = PolygonCellIndex(shapes: shapes, circleRecords: circleRecords)
        let ids = gathered.ids
        return FenceStorage(
            ids: ids, idTable: FenceIDTable(ids: ids), properties: gathered.properties, libraries: gathered.libraries,
            attributes: FrozenBuffer(gathered.attributes), levels: FrozenBuffer(gathered.levels),
            ranks: FrozenBuffer(gathered.ranks), dwellSeconds: FrozenBuffer(gathered.dwellSeconds),
            dwellMilliseconds: FrozenBuffer(gathered.dwellMilliseconds), featureIndexes: FrozenBuffer(gathered.featureIndexes),
            enclosingCircles: FrozenBuffer(gathered.circles),
            eventFragments: EventLineFormatter.fenceFragments(
                ids: ids, circles: gathered.circles, levels: gathered.levels, properties: gathered.properties),
            storageIndex: FrozenBuffer(position), polygonCells: polygonCells, levelBuffer: levelBuffer,
            shapes: shapes, polygonEdges: polygonEdges, index: index, directory: directory,
            anyLevelFence: gathered.levels.contains { $0 != FenceSet.noLevel },
            largestRadius: gathered.circles.reduce(0) { Swift.max($0, $1.z) })
    }

    /// The per-slot values, copied out of the records in slot order.
    struct Gathered {
        var ids = ByteTableBuilder(), properties = ByteTableBuilder(), libraries = ByteTableBuilder()
        var attributes: [FenceAttributes] = [], levels: [Int] = [], ranks: [Int] = []
        var dwellSeconds: [Double] = [], dwellMilliseconds: [Int64] = [], featureIndexes: [Int] = []
        var circles: [SIMD4<Double>] = []
    }

    static func gatherBySlot(_ chunks: [FenceRecords], _ slots: [RecordReference]) -> (
        ids: ByteTable, properties: ByteTable, libraries: ByteTable, attributes: [FenceAttributes], levels: [Int],
        ranks: [Int], dwellSeconds: [Double], dwellMilliseconds: [Int64], featureIndexes: [Int], circles: [SIMD4<Double>]
    ) {
        var g = Gathered()
        let n = slots.count
        g.attributes.reserveCapacity(n); g.levels.reserveCapacity(n); g.ranks.reserveCapacity(n)
        g.dwellSeconds.reserveCapacity(n); g.dwellMilliseconds.reserveCapacity(n)
        g.featureIndexes.reserveCapacity(n); g.circles.reserveCapacity(n)
        for ref in slots {
            let r = chunks[Int(ref.chunk)], i = Int(ref.index)
            g.ids.append(r.ids.slice(i))
            g.properties.append(r.properties.slice(i))
            g.libraries.append(r.libraries.slice(i))
            let attributes = r.attributes[i]
            g.attributes.append(attributes)
            g.levels.append(r.levels[i])
            g.ranks.append(r.ranks[i])
            g.dwellSeconds.append(r.dwellSeconds[i])
            g.dwellMilliseconds.append(attributes.contains(.dwell) ? trackerDwell(r.dwellSeconds[i]) : FenceSet.defaultDwell)
            g.featureIndexes.append(r.featureIndexes[i])
            g.circles.append(r.circles[i])
        }
        return (g.ids.frozen(), g.properties.frozen(), g.libraries.frozen(), g.attributes, g.levels, g.ranks,
                g.dwellSeconds, g.dwellMilliseconds, g.featureIndexes, g.circles)
    }

    /// A dwell time in seconds as the tracker counts it: ms, at least 1 for a positive time;
    /// 0 (disabled) for 0, a negative time or a non-number.
    static func trackerDwell(_ seconds: Double) -> Int64 {
        guard seconds.isFinite && seconds > 0 else { return 0 }
        return Swift.max(1, TrackerConfiguration.milliseconds(Swift.min(seconds, TrackerConfiguration.longestDuration)))
    }

    /// The hot-path record of a fence: a circle's numbers, or threshold -1 for a polygon.
    static func circleRecord(_ attributes: FenceAttributes, _ circle: SIMD4<Double>) -> SIMD4<Double> {
        guard !attributes.contains(.polygon) else { return SIMD4(0, 0, 0, -1) }
        let latR = circle.x * Sphere.degreesToRadians
        return SIMD4(latR, circle.y * Sphere.degreesToRadians, Double.cos(latR), Sphere.capThreshold(radius: circle.z))
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

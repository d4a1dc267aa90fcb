import GeofenceGeometry

extension FenceSetBuilder {
    /// The per-slot values of the records, in slot order, and every fence's boxes: what the
    /// builder needs besides the shapes.
    struct Gathered {
        var ids: ByteTable
        var properties: ByteTable
        var libraries: ByteTable
        var attributes: FrozenBuffer<FenceAttributes>
        var levels: FrozenBuffer<Int>
        var ranks: FrozenBuffer<Int>
        var dwellSeconds: FrozenBuffer<Double>
        var dwellMilliseconds: FrozenBuffer<Int64>
        var featureIndexes: FrozenBuffer<Int>
        var circles: FrozenBuffer<SIMD4<Double>>
        /// The index entries: one or two boxes per fence, in slot order, with their slots.
        var entryBoxes: [BoundingBox]
        var entrySlots: [Int32]
        /// By slot: the shape's parts, rings and positions.
        var shapeSizes: [SIMD3<UInt32>]
        /// By chunk and record: the record's slot, or -1 when it is not in the set.
        var recordSlots: [[Int32]]
    }

    /// Copies the records' per-fence values into slot order, chunk by chunk on `threads`
    /// threads (a chunk's records are read in order; the writes land at their slots).
    /// - Complexity: O(n + b) for n fences and b bytes of ids and properties (plus the
    ///   exterior vertices, for the boxes).
    static func gather(_ chunks: [FenceRecords], _ slots: [RecordReference], threads: Int) -> Gathered {
        let n = slots.count
        var recordSlots = chunks.map { [Int32](repeating: -1, count: $0.count) }
        for (slot, ref) in slots.enumerated() { recordSlots[Int(ref.chunk)][Int(ref.index)] = Int32(slot) }
        let attributes = SharedPointer<FenceAttributes>.allocate(n), levels = SharedPointer<Int>.allocate(n)
        let ranks = SharedPointer<Int>.allocate(n), dwellSeconds = SharedPointer<Double>.allocate(n)
        let dwellMilliseconds = SharedPointer<Int64>.allocate(n), featureIndexes = SharedPointer<Int>.allocate(n)
        let circles = SharedPointer<SIMD4<Double>>.allocate(n)
        let lengths = SharedPointer<SIMD3<UInt64>>.allocate(n)  // id, properties, library
        let sizes = SharedPointer<SIMD3<UInt32>>.allocate(n)  // parts, rings, positions
        let boxes = SharedPointer<(BoundingBox, BoundingBox)>.allocate(n)
        let owners = recordSlots
        /// Calls `body(record, index, slot)` for every record that is in the set, chunks in parallel.
        func forEachKept(_ body: @escaping @Sendable (FenceRecords, Int, Int) -> Void) {
            ParallelWorkers.run(count: chunks.count, threads: threads) { c, _ in
                let r = chunks[c]
                for i in 0..<r.count where owners[c][i] >= 0 { body(r, i, Int(owners[c][i])) }
            }
        }
        forEachKept { r, i, slot in
            let a = r.attributes[i]
            attributes[slot] = a
            levels[slot] = r.levels[i]
            ranks[slot] = r.ranks[i]
            dwellSeconds[slot] = r.dwellSeconds[i]
            dwellMilliseconds[slot] = a.contains(.dwell) ? trackerDwell(r.dwellSeconds[i]) : FenceSet.defaultDwell
            featureIndexes[slot] = r.featureIndexes[i]
            circles[slot] = r.circles[i]
            lengths[slot] = SIMD3(
                r.ids.offsets[i + 1] - r.ids.offsets[i], r.properties.offsets[i + 1] - r.properties.offsets[i],
                r.libraries.offsets[i + 1] - r.libraries.offsets[i])
            let firstPart = Int(r.partStarts[i]), endPart = Int(r.partStarts[i + 1])
            let firstRing = Int(r.ringStarts[firstPart]), endRing = Int(r.ringStarts[endPart])
            sizes[slot] = SIMD3(
                UInt32(endPart - firstPart), UInt32(endRing - firstRing), r.vertexStarts[endRing] - r.vertexStarts[firstRing])
            boxes[slot] = boundingBoxes(r, i)
        }
        // Offsets by prefix sums, then the blobs copied in parallel.
        var offsets = [SIMD3<UInt64>](repeating: .zero, count: n + 1)
        for slot in 0..<n { offsets[slot + 1] = offsets[slot] &+ lengths[slot] }
        lengths.base.deallocate()
        let total = offsets[n]
        let blobs = (SharedPointer<UInt8>.allocate(Int(total.x)), SharedPointer<UInt8>.allocate(Int(total.y)), SharedPointer<UInt8>.allocate(Int(total.z)))
        let starts = offsets
        forEachKept { r, i, slot in
            copy(r.ids, i, to: blobs.0.base + Int(starts[slot].x))
            copy(r.properties, i, to: blobs.1.base + Int(starts[slot].y))
            copy(r.libraries, i, to: blobs.2.base + Int(starts[slot].z))
        }
        func table(_ blob: SharedPointer<UInt8>, _ count: UInt64, _ lane: Int) -> ByteTable {
            ByteTable(
                bytes: FrozenBuffer(adopting: blob.base, count: Int(count)),
                offsets: FrozenBuffer(count: n + 1) { out in for k in 0...n { out.initializeElement(at: k, to: offsets[k][lane]) } })
        }
        var entryBoxes: [BoundingBox] = [], entrySlots: [Int32] = []
        entryBoxes.reserveCapacity(n)
        entrySlots.reserveCapacity(n)
        for slot in 0..<n {
            let (first, second) = boxes[slot]
            entryBoxes.append(first)
            entrySlots.append(Int32(slot))
            if !second.isEmpty {
                entryBoxes.append(second)
                entrySlots.append(Int32(slot))
            }
        }
        boxes.base.deallocate()
        let shapeSizes = Array(UnsafeBufferPointer(start: sizes.base, count: n))
        sizes.base.deallocate()
        return Gathered(
            ids: table(blobs.0, total.x, 0), properties: table(blobs.1, total.y, 1), libraries: table(blobs.2, total.z, 2),
            attributes: FrozenBuffer(adopting: attributes.base, count: n), levels: FrozenBuffer(adopting: levels.base, count: n),
            ranks: FrozenBuffer(adopting: ranks.base, count: n), dwellSeconds: FrozenBuffer(adopting: dwellSeconds.base, count: n),
            dwellMilliseconds: FrozenBuffer(adopting: dwellMilliseconds.base, count: n),
            featureIndexes: FrozenBuffer(adopting: featureIndexes.base, count: n), circles: FrozenBuffer(adopting: circles.base, count: n),
            entryBoxes: entryBoxes, entrySlots: entrySlots, shapeSizes: shapeSizes, recordSlots: recordSlots)
    }

    /// Copies string `i` of a builder's table to `destination`.
    @inline(__always)
    private static func copy(_ table: ByteTableBuilder, _ i: Int, to destination: UnsafeMutablePointer<UInt8>) {
        let from = Int(table.offsets[i]), to = Int(table.offsets[i + 1])
        guard to > from else { return }
        table.bytes.withUnsafeBufferPointer { destination.initialize(from: $0.baseAddress! + from, count: to - from) }
    }
}

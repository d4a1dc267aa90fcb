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
        // Offsets by prefix sums, straight into the three tables' offsets, and where each range
        // of slots starts writing its index entries (one per fence, a second right after a
        // fence split at the antimeridian); then the blobs and the entries in parallel.
        let idOffsets = SharedPointer<UInt64>.allocate(n + 1), propertyOffsets = SharedPointer<UInt64>.allocate(n + 1)
        let libraryOffsets = SharedPointer<UInt64>.allocate(n + 1)
        var total = SIMD3<UInt64>.zero
        let parts = Swift.max(1, Swift.min(8 * threads, n / 4096))
        var entryStarts = [Int](repeating: 0, count: parts + 1)
        var entryCount = 0, part = 0
        for slot in 0..<n {
            idOffsets[slot] = total.x; propertyOffsets[slot] = total.y; libraryOffsets[slot] = total.z
            total &+= lengths[slot]
            while part < parts && slot == n * part / parts {
                entryStarts[part] = entryCount
                part += 1
            }
            entryCount += boxes[slot].1.isEmpty ? 1 : 2
        }
        entryStarts[parts] = entryCount
        idOffsets[n] = total.x; propertyOffsets[n] = total.y; libraryOffsets[n] = total.z
        lengths.base.deallocate()
        let blobs = (SharedPointer<UInt8>.allocate(Int(total.x)), SharedPointer<UInt8>.allocate(Int(total.y)), SharedPointer<UInt8>.allocate(Int(total.z)))
        forEachKept { r, i, slot in
            copy(r.ids, i, to: blobs.0.base + Int(idOffsets[slot]))
            copy(r.properties, i, to: blobs.1.base + Int(propertyOffsets[slot]))
            copy(r.libraries, i, to: blobs.2.base + Int(libraryOffsets[slot]))
        }
        func table(_ blob: SharedPointer<UInt8>, _ count: UInt64, _ offsets: SharedPointer<UInt64>) -> ByteTable {
            ByteTable(bytes: FrozenBuffer(adopting: blob.base, count: Int(count)), offsets: FrozenBuffer(adopting: offsets.base, count: n + 1))
        }
        var entrySlots: [Int32] = [], entryBoxes: [BoundingBox] = []
        // An empty set keeps the literal empty arrays: `init(unsafeUninitializedCapacity: 0)`
        // stores its count into the runtime's shared empty-array object, a write that races
        // (harmlessly, but ThreadSanitizer reports it) with any thread reading an empty array.
        if entryCount > 0 {
            entryBoxes = [BoundingBox](unsafeUninitializedCapacity: entryCount) { boxOut, boxCount in
                entrySlots = [Int32](unsafeUninitializedCapacity: entryCount) { slotOut, slotCount in
                    Self.fillEntries(
                        count: n, starts: entryStarts, threads: threads, boxes: boxes, into: SharedPointer(boxOut.baseAddress!),
                        SharedPointer(slotOut.baseAddress!))
                    slotCount = entryCount
                }
                boxCount = entryCount
            }
        }
        boxes.base.deallocate()
        let shapeSizes = Array(UnsafeBufferPointer(start: sizes.base, count: n))
        sizes.base.deallocate()
        return Gathered(
            ids: table(blobs.0, total.x, idOffsets), properties: table(blobs.1, total.y, propertyOffsets),
            libraries: table(blobs.2, total.z, libraryOffsets),
            attributes: FrozenBuffer(adopting: attributes.base, count: n), levels: FrozenBuffer(adopting: levels.base, count: n),
            ranks: FrozenBuffer(adopting: ranks.base, count: n), dwellSeconds: FrozenBuffer(adopting: dwellSeconds.base, count: n),
            dwellMilliseconds: FrozenBuffer(adopting: dwellMilliseconds.base, count: n),
            featureIndexes: FrozenBuffer(adopting: featureIndexes.base, count: n), circles: FrozenBuffer(adopting: circles.base, count: n),
            entryBoxes: entryBoxes, entrySlots: entrySlots, shapeSizes: shapeSizes, recordSlots: recordSlots)
    }

    /// Writes every index entry's box and slot, in slot order (one entry per fence, a second
    /// right after a fence with two boxes, `boxes[slot].1` not empty), in ranges of slots on
    /// `threads` threads: range k is slots `n·k/parts ..< n·(k+1)/parts` and writes from entry
    /// `starts[k]` on (`starts.count - 1` ranges).
    private static func fillEntries(
        count n: Int, starts: [Int], threads: Int, boxes: SharedPointer<(BoundingBox, BoundingBox)>,
        into entryBoxes: SharedPointer<BoundingBox>, _ entrySlots: SharedPointer<Int32>
    ) {
        let parts = starts.count - 1
        ParallelWorkers.run(count: parts, threads: threads) { k, _ in
            var e = starts[k]
            for slot in (n * k / parts)..<(n * (k + 1) / parts) {
                let (first, second) = boxes[slot]
                entryBoxes[e] = first
                entrySlots[e] = Int32(slot)
                e += 1
                if !second.isEmpty {
                    entryBoxes[e] = second
                    entrySlots[e] = Int32(slot)
                    e += 1
                }
            }
        }
    }

    /// Copies string `i` of a builder's table to `destination`.
    @inline(__always)
    private static func copy(_ table: ByteTableBuilder, _ i: Int, to destination: UnsafeMutablePointer<UInt8>) {
        let from = Int(table.offsets[i]), to = Int(table.offsets[i + 1])
        guard to > from else { return }
        table.bytes.withUnsafeBufferPointer { destination.initialize(from: $0.baseAddress! + from, count: to - from) }
    }
}

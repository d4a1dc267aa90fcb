/// The sections of a compiled fence file as typed views of the mapping, with the checks that
/// make every later read of them stay in bounds.
///
/// A file whose checksums match was written by ``FenceFileWriter``; the checks are for one
/// that was not (crafted, or from a buggy writer): counts that agree between sections,
/// offsets that never decrease and end at their blob's end, positions and slots in range,
/// tree nodes that point to the level below. They read each array once, beside the digests.
struct FenceFileLayout {
    let meta: FenceFileMeta
    let n: Int
    let ids, properties, libraries, fragments: FrozenBuffer<UInt8>
    let idOffsets, propertyOffsets, libraryOffsets, fragmentOffsets: FrozenBuffer<UInt64>
    let idTable: FrozenBuffer<UInt32>
    let attributes: FrozenBuffer<FenceAttributes>
    let levels, ranks, featureIndexes, levelBuffer: FrozenBuffer<Int>
    let dwellSeconds: FrozenBuffer<Double>
    let dwellMilliseconds: FrozenBuffer<Int64>
    let enclosingCircles, records, chunkBounds: FrozenBuffer<SIMD4<Double>>
    let storageIndex, treeRefs: FrozenBuffer<Int32>
    let partStarts, ringStarts, vertexStarts, cellStarts: FrozenBuffer<UInt32>
    let vertices: FrozenBuffer<Double>
    let chunkRanges, slotChunks: FrozenBuffer<SIMD2<Int32>>
    let treeBoxes, cellBoxes, largeBoxes: FrozenBuffer<SIMD4<Float>>
    let treeLevels: FrozenBuffer<Int>
    let cellSlots, largeSlots, cellOccupancy: FrozenBuffer<UInt64>
    let polygonCells: FrozenBuffer<UInt16>
    let polygonCellEdges: FrozenBuffer<UInt32>
    /// `FPRT`, when the file has it (files written before 0.2 do not).
    let fingerprints: FrozenBuffer<UInt64>?

    init(entries: [FenceFileReader.Entry], bytes: UnsafeRawBufferPointer, keeper: AnyObject, name: String) throws(FileError) {
        var byID: [FenceSectionID: FenceFileReader.Entry] = [:]
        for entry in entries {
            guard byID.updateValue(entry, forKey: entry.id) == nil else {
                throw FileError(path: name, reason: "damaged: section \(entry.id) appears twice")
            }
        }
        func view<T>(_ id: FenceSectionID, _: T.Type) throws(FileError) -> FrozenBuffer<T> {
            guard let entry = byID[id] else {
                throw FileError(path: name, reason: "inconsistent: section \(id) is missing")
            }
            guard entry.elementSize == MemoryLayout<T>.stride else {
                throw FileError(path: name, reason: "inconsistent: section \(id) has \(entry.elementSize)-byte elements, expected \(MemoryLayout<T>.stride)")
            }
            let base = (bytes.baseAddress! + entry.offset).assumingMemoryBound(to: T.self)
            return FrozenBuffer(mapped: base, count: entry.byteCount / entry.elementSize, in: keeper)
        }
        typealias F = FenceSectionID
        let words = try view(F.meta, UInt64.self)
        guard let meta = FenceFileMeta(words: words.buffer) else {
            throw FileError(path: name, reason: "inconsistent: the META section's numbers are out of range")
        }
        self.meta = meta
        n = meta.count
        ids = try view(F.ids, UInt8.self); idOffsets = try view(F.idOffsets, UInt64.self)
        properties = try view(F.properties, UInt8.self); propertyOffsets = try view(F.propertyOffsets, UInt64.self)
        libraries = try view(F.libraries, UInt8.self); libraryOffsets = try view(F.libraryOffsets, UInt64.self)
        fragments = try view(F.fragments, UInt8.self); fragmentOffsets = try view(F.fragmentOffsets, UInt64.self)
        idTable = try view(F.idTable, UInt32.self)
        attributes = try view(F.attributes, FenceAttributes.self)
        levels = try view(F.levels, Int.self); ranks = try view(F.ranks, Int.self)
        featureIndexes = try view(F.featureIndexes, Int.self); levelBuffer = try view(F.levelBuffer, Int.self)
        dwellSeconds = try view(F.dwellSeconds, Double.self); dwellMilliseconds = try view(F.dwellMilliseconds, Int64.self)
        enclosingCircles = try view(F.enclosingCircles, SIMD4<Double>.self)
        records = try view(F.records, SIMD4<Double>.self)
        chunkBounds = try view(F.chunkBounds, SIMD4<Double>.self)
        storageIndex = try view(F.storageIndex, Int32.self); treeRefs = try view(F.treeRefs, Int32.self)
        partStarts = try view(F.partStarts, UInt32.self); ringStarts = try view(F.ringStarts, UInt32.self)
        vertexStarts = try view(F.vertexStarts, UInt32.self); cellStarts = try view(F.cellStarts, UInt32.self)
        vertices = try view(F.vertices, Double.self)
        chunkRanges = try view(F.chunkRanges, SIMD2<Int32>.self); slotChunks = try view(F.slotChunks, SIMD2<Int32>.self)
        treeBoxes = try view(F.treeBoxes, SIMD4<Float>.self); cellBoxes = try view(F.cellBoxes, SIMD4<Float>.self)
        largeBoxes = try view(F.largeBoxes, SIMD4<Float>.self)
        treeLevels = try view(F.treeLevels, Int.self)
        cellSlots = try view(F.cellSlots, UInt64.self); largeSlots = try view(F.largeSlots, UInt64.self)
        cellOccupancy = try view(F.cellOccupancy, UInt64.self)
        polygonCells = try view(F.polygonCells, UInt16.self); polygonCellEdges = try view(F.polygonCellEdges, UInt32.self)
        fingerprints = byID[F.fingerprints] == nil ? nil : try view(F.fingerprints, UInt64.self)
    }

    /// The storage the set serves from: views of the mapping, nothing copied.
    func storage() -> FenceStorage {
        let shapes = FenceShapes(partStarts: partStarts, ringStarts: ringStarts, vertexStarts: vertexStarts, vertices: vertices)
        return FenceStorage(
            ids: ByteTable(bytes: ids, offsets: idOffsets), idTable: FenceIDTable(entries: idTable),
            properties: ByteTable(bytes: properties, offsets: propertyOffsets), libraries: ByteTable(bytes: libraries, offsets: libraryOffsets),
            attributes: attributes, levels: levels, ranks: ranks, dwellSeconds: dwellSeconds,
            dwellMilliseconds: dwellMilliseconds, featureIndexes: featureIndexes, enclosingCircles: enclosingCircles,
            eventFragments: ByteTable(bytes: fragments, offsets: fragmentOffsets), storageIndex: storageIndex,
            polygonCells: PolygonCellIndex(records: records, cells: polygonCells, edges: polygonCellEdges),
            levelBuffer: levelBuffer, shapes: shapes,
            polygonEdges: PolygonEdgeIndex(vertices: vertices, chunkBounds: chunkBounds, chunkRanges: chunkRanges, slotChunks: slotChunks),
            index: PackedRTree(nodeSize: meta.treeNodeSize, count: meta.treeCount, boxes: treeBoxes, refs: treeRefs, levelEnds: treeLevels),
            directory: CellDirectory(
                grid: meta.grid, starts: cellStarts, occupied: cellOccupancy, boxes: cellBoxes, slots: cellSlots, largeBoxes: largeBoxes, largeSlots: largeSlots),
            anyLevelFence: meta.anyLevelFence, largestRadius: meta.largestRadius, fingerprints: fingerprints)
    }
}

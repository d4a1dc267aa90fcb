/// Writes a fence set as a compiled fence file (layout in `FenceFileFormat`).
enum FenceFileWriter {
    /// One section to write: id, element size and bytes (valid while the set lives).
    struct Section {
        var id: FenceSectionID
        var elementSize: Int
        var bytes: UnsafeRawBufferPointer
    }

    /// The sections of `set` in file order, with the META words in `meta` and the fences'
    /// fingerprints in `fingerprints` (both kept alive by the caller).
    static func sections(of set: FenceSet, meta: UnsafeBufferPointer<UInt64>, fingerprints: UnsafeBufferPointer<UInt64>) -> [Section] {
        set.storage.requireEverything("writing a compiled file")
        func s<T>(_ id: FenceSectionID, _ buffer: FrozenBuffer<T>) -> Section {
            Section(id: id, elementSize: MemoryLayout<T>.stride, bytes: buffer.bytes)
        }
        typealias F = FenceSectionID
        return [
            Section(id: F.meta, elementSize: 8, bytes: UnsafeRawBufferPointer(meta)),
            s(F.ids, set.storage.ids.bytes), s(F.idOffsets, set.storage.ids.offsets), s(F.idTable, set.storage.idTable.entries),
            s(F.properties, set.storage.properties.bytes), s(F.propertyOffsets, set.storage.properties.offsets),
            s(F.libraries, set.storage.libraries.bytes), s(F.libraryOffsets, set.storage.libraries.offsets),
            s(F.attributes, set.storage.attributes), s(F.levels, set.storage.levels), s(F.ranks, set.storage.ranks),
            s(F.dwellSeconds, set.storage.dwellSeconds), s(F.dwellMilliseconds, set.storage.dwellMilliseconds),
            s(F.featureIndexes, set.storage.featureIndexes), s(F.enclosingCircles, set.storage.enclosingCircles),
            s(F.fragments, set.storage.eventFragments.bytes), s(F.fragmentOffsets, set.storage.eventFragments.offsets),
            s(F.storageIndex, set.storage.storageIndex), s(F.records, set.storage.polygonCells.records), s(F.levelBuffer, set.storage.levelBuffer),
            s(F.partStarts, set.storage.shapes.partStarts), s(F.ringStarts, set.storage.shapes.ringStarts),
            s(F.vertexStarts, set.storage.shapes.vertexStarts), s(F.vertices, set.storage.shapes.vertices),
            s(F.chunkBounds, set.storage.polygonEdges.chunkBounds), s(F.chunkRanges, set.storage.polygonEdges.chunkRanges),
            s(F.slotChunks, set.storage.polygonEdges.slotChunks),
            s(F.polygonCells, set.storage.polygonCells.cells), s(F.polygonCellEdges, set.storage.polygonCells.edges),
            s(F.treeBoxes, set.storage.index.boxes), s(F.treeRefs, set.storage.index.refs), s(F.treeLevels, set.storage.index.levelEnds),
            s(F.cellStarts, set.storage.directory.starts), s(F.cellOccupancy, set.storage.directory.occupied), s(F.cellBoxes, set.storage.directory.boxes), s(F.cellSlots, set.storage.directory.slots),
            s(F.largeBoxes, set.storage.directory.largeBoxes), s(F.largeSlots, set.storage.directory.largeSlots),
            Section(id: F.fingerprints, elementSize: 8, bytes: UnsafeRawBufferPointer(fingerprints)),
        ]
    }

    /// Writes `set` to `path` atomically (a temporary file renamed over it once flushed).
    ///
    /// - Returns: the file's size in bytes.
    /// - Throws: ``FileError`` naming the path when it cannot be written.
    /// - Complexity: O(size), the digests on every core.
    @discardableResult
    static func write(_ set: FenceSet, to path: String) throws(FileError) -> Int {
        let writer = try AtomicFileWriter(path: path)
        let end = try emit(set) { (bytes) throws(FileError) in try writer.write(bytes) }
        try writer.commit()
        return end
    }

    /// The file's bytes in memory (``FenceSet/compiledBytes()``).
    static func bytes(_ set: FenceSet) throws(FileError) -> [UInt8] {
        var out: [UInt8] = []
        _ = try emit(set) { (bytes) throws(FileError) in out.append(contentsOf: bytes) }
        return out
    }

    /// `put` on an array's bytes (`withUnsafeBytes` rethrows untyped errors).
    private static func putArray(_ bytes: [UInt8], _ put: (UnsafeRawBufferPointer) throws(FileError) -> Void) throws(FileError) {
        let result: Result<Void, FileError> = bytes.withUnsafeBytes { b in
            do throws(FileError) { try put(b); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Hands the file's bytes to `put`, in order; returns the size.
    private static func emit(
        _ set: FenceSet, _ put: (UnsafeRawBufferPointer) throws(FileError) -> Void
    ) throws(FileError) -> Int {
        let meta = FenceFileMeta(set).words
        let fingerprints = set.storage.fingerprints.map { Array($0.buffer) } ?? (0..<set.count).map(set.fingerprint(at:))
        return try meta.withUnsafeBufferPointer { (metaWords) throws(FileError) -> Int in
            let sections = fingerprints.withUnsafeBufferPointer { Self.sections(of: set, meta: metaWords, fingerprints: $0) }
            let tableEnd = FenceFileFormat.padded(FenceFileFormat.headerSize + sections.count * FenceFileFormat.entrySize)
            var offsets: [Int] = []
            var end = tableEnd
            for section in sections {
                offsets.append(end)
                end += FenceFileFormat.padded(section.bytes.count)
            }
            let regions = sections.map {
                FenceFileDigest.Region(payload: $0.bytes, paddedLength: FenceFileFormat.padded($0.bytes.count))
            }
            let digests = FenceFileDigest.digests(regions, threads: Platform.coreCount)
            // The table, then the header over it.
            var table = [UInt8]()
            for (k, section) in sections.enumerated() {
                table.appendLittleEndian(section.id.raw)
                table.appendLittleEndian(UInt32(section.elementSize))
                table.appendLittleEndian(UInt64(offsets[k]))
                table.appendLittleEndian(UInt64(section.bytes.count))
                table.appendLittleEndian(digests[k])
            }
            table.append(contentsOf: [UInt8](repeating: 0, count: tableEnd - FenceFileFormat.headerSize - table.count))
            var header = FenceFileFormat.magic
            header.appendLittleEndian(FenceFileFormat.version)
            header.appendLittleEndian(UInt32(sections.count))
            header.appendLittleEndian(UInt64(end))
            header.appendLittleEndian(UInt64(set.count))
            header.appendLittleEndian(table.withUnsafeBytes { XXH64.hash($0) })
            header.append(contentsOf: [UInt8](repeating: 0, count: FenceFileFormat.headerSize - header.count))
            let headerHash = header.withUnsafeBytes { XXH64.hash($0) }
            header.replaceSubrange(40..<48, with: withUnsafeBytes(of: headerHash.littleEndian) { Array($0) })

            try putArray(header, put)
            try putArray(table, put)
            let zeros = [UInt8](repeating: 0, count: FenceFileFormat.alignment)
            for section in sections {
                // In pieces: the writer copies what it is given into its buffer.
                var from = 0
                while from < section.bytes.count {
                    let to = Swift.min(from + FenceFileFormat.blockSize, section.bytes.count)
                    try put(UnsafeRawBufferPointer(rebasing: section.bytes[from..<to]))
                    from = to
                }
                let padding = FenceFileFormat.padded(section.bytes.count) - section.bytes.count
                if padding > 0 { try putArray(Array(zeros[0..<padding]), put) }
            }
            return end
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends the little-endian bytes of an integer.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

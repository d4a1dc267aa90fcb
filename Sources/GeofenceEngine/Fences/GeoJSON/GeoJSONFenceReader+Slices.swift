/// Reading a sequence of features in slices, in parallel, and linking the slices.
extension GeoJSONFenceReader {
    /// A syntax error in a sequence of features, with the start of the feature it is in.
    struct SliceSyntaxError: Error {
        var featureStart: Int
        var position: Int
    }

    /// Reads the features from `start` (the first feature, or the `]` of an empty array) to the
    /// end of the sequence, and returns them with the offset just past the sequence.
    ///
    /// Slices of about `bytes / (8 × threads)` bytes (64 KiB to 16 MiB) are read in parallel; then,
    /// in order, a slice is kept when it started where the previous one stopped, else read
    /// again from there on this thread (a guessed start that was wrong: a `{` inside a value).
    /// Pages of the mapped file are given back once read.
    ///
    /// - Throws: ``SliceSyntaxError`` when the text is not JSON.
    static func link(
        _ bytes: UnsafeRawBufferPointer, start: Int, layout: GeoJSONSegment.Layout, depth: Int, name: String, checks: FenceGeometryCheck.Options,
        threads: Int, file: MappedFile?, sliceBytes: Int? = nil
    ) throws(SliceSyntaxError) -> (decoded: Decoded, end: Int) {
        let size = bytes.count - start
        let sliceSize = sliceBytes ?? Swift.min(16 << 20, Swift.max(64 << 10, size / Swift.max(1, 8 * threads)))
        let count = Swift.max(1, (size + sliceSize - 1) / sliceSize)
        let bounds = (0...count).map { Swift.min(bytes.count, start + $0 * sliceSize) }
        let segments = DisjointSlots<GeoJSONSegment?>(repeating: nil, count: count)
        let shared = SharedBytes(bytes: bytes)
        ParallelWorkers.run(count: count, threads: threads) { k, _ in
            let segment = GeoJSONSegment.read(
                shared.bytes, from: bounds[k], to: bounds[k + 1], first: k == 0 ? start : nil, arrayStart: k == 0 && layout == .array,
                layout: layout, depth: depth, checks: checks)
            if let from = segment.start { file?.release(from..<segment.next) }
            segments[k] = segment
        }
        var decoded = Decoded()
        var cursor = start
        var ended = false
        for k in 0..<count where !ended && cursor < bounds[k + 1] {
            var segment = segments[k]!
            segments[k] = nil
            if segment.start != cursor {
                segment = GeoJSONSegment.read(bytes, from: bounds[k], to: bounds[k + 1], first: cursor, layout: layout, depth: depth, checks: checks)
            }
            if let position = segment.syntaxError {
                throw SliceSyntaxError(featureStart: segment.lastStart, position: position)
            }
            decoded.append(&segment)
            cursor = segment.next
            ended = segment.reachedEnd
        }
        guard ended else { throw SliceSyntaxError(featureStart: cursor, position: bytes.count) }
        return (decoded, cursor)
    }

    /// The file's bytes, shared read-only with the workers.
    private struct SharedBytes: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }
}

extension GeoJSONFenceReader.Decoded {
    /// Takes a slice's features, numbering them after those already taken.
    mutating func append(_ segment: inout GeoJSONSegment) {
        let base = featureCount
        var records = segment.reader.records
        segment.reader.records = FenceRecords()
        for i in records.featureIndexes.indices { records.featureIndexes[i] += base }
        if records.count > 0 { chunks.append(records) }
        for var p in segment.problems {
            p.featureIndex += base
            problems.append(p)
        }
        for var r in segment.repairs {
            r.featureIndex += base
            repairs.append(r)
        }
        if !segment.rejectedIndexes.isEmpty {
            rejected.append((segment.rejected, segment.rejectedIndexes.map { $0 + base }))
        }
        if let error = segment.geometryError, geometryError == nil { geometryError = error }
        featureCount += segment.count
    }
}

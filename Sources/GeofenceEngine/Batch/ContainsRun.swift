import GeofenceGEOS
import GeofenceGeometry

/// What `geofence contains` counted: rows read = answered + rejected, always.
package struct ContainsSummary: Sendable, Equatable {
    package var read = 0
    package var answered = 0
    package var blankLines = 0
    package var rejectedByReason: [String: Int] = [:]

    package init() {}

    package var rejected: Int { rejectedByReason.values.reduce(0, +) }

    /// The one-line summary for standard error.
    package func line(file: String) -> String {
        let reasons = rejectedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var text = "\(file): \(read) row(s) read, \(answered) answered, \(rejected) rejected"
        if !reasons.isEmpty { text += " (\(reasons))" }
        if blankLines > 0 { text += "; \(blankLines) blank line(s) skipped" }
        return text
    }
}

/// `geofence contains` on every core: each row of a fix CSV answered with the ids of the fences
/// that contain it, one NDJSON line per data row or a CSV line per answer (``ContainsFormat``),
/// in input order whatever the thread count.
///
/// The file is read in blocks of whole lines (mapped when it is a regular file). Each block
/// is cut into one slice per thread; every slice is parsed (the one-pass row parser, the full
/// parser behind it for anything unusual) and answered through the batch query by its
/// worker's own evaluator, then, once the slices' row and line counts are known, written as
/// lines into the slice's own buffer; the buffers are handed to `write` in file order. So the
/// output is byte for byte the one-thread output. While the other workers parse and answer a
/// block, the calling thread writes the lines of the block before and reads the block after,
/// then takes its share of the slices (writing 35 MB to a file took a fifth of a 10k run's
/// wall time when it stood between blocks; a `gzip -dc` at the pipe's other end stood still
/// while a block was answered).
package enum ContainsRun {
    /// Answers every row of `path` and hands the output to `write` in order.
    ///
    /// - Parameter blockSize: bytes of the file per block (whole lines; a longer line makes
    ///   its block longer).
    /// - Parameter maximumLineBytes: a longer line is a row rejected with reason `lineLength`
    ///   (never held in memory); a longer header line is an error.
    /// - Parameter format: NDJSON lines or CSV pairs.
    /// - Throws: ``FileError`` for an unreadable or empty file or a bad header,
    ///   ``ThreadStartError`` when a thread cannot start, ``GEOSError`` when GEOS fails, and
    ///   whatever `write` throws.
    /// - Complexity: O(file size + answers), on `threads` threads; memory: two blocks of the
    ///   file and their output.
    package static func run(
        fenceSet: FenceSet, fixes path: String, threads: Int, blockSize: Int = ContainsInput.defaultBlockSize,
        maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes, format: ContainsFormat = .ndjson,
        write: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> ContainsSummary {
        let input = try ContainsInput(fixes: path, blockSize: blockSize, maximumLineBytes: maximumLineBytes)
        return try run(fenceSet: fenceSet, input: input, threads: threads, format: format, write: write)
    }

    /// ``run(fenceSet:fixes:threads:blockSize:maximumLineBytes:format:write:)`` from a file already
    /// opened and its header read (``ContainsInput/opening(fixes:blockSize:maximumLineBytes:while:)``
    /// reads it while the fences load).
    ///
    /// A live feed is answered as it comes: the reader hands over whole lines at most
    /// ``LineBlockReader/defaultIdleMilliseconds`` after they came, the next block is read
    /// ahead only when a whole line comes within that time, and before the run waits for
    /// rows that have not come, every line answered so far goes to `write`, then
    /// `beforeWaiting` runs (the command flushes its output there; from a pipe it also runs
    /// after each block's lines are written). The CSV header goes to `write` first, once the
    /// workers and their evaluators are ready.
    package static func run(
        fenceSet: FenceSet, input: ContainsInput, threads: Int, format: ContainsFormat = .ndjson,
        write: (UnsafeRawBufferPointer) throws -> Void,
        beforeWaiting: () throws -> Void = {}
    ) throws -> ContainsSummary {
        let reader = input.reader, path = input.path, fixHeader = input.header, rest = input.rest
        let maximumLineBytes = reader.maximumLineBytes
        func next() throws(FileError) -> LineBlockReader.Chunk? {
            do { return try reader.nextChunk() } catch { throw FileError(path: path, reason: error.reason) }
        }
        let pool = try WorkerPool(threads: threads)
        let evaluators = try EvaluatorBox((0..<pool.threads).map { _ throws(GEOSError) in try ContainmentEvaluator(fenceSet: fenceSet) })
        let ids = format.ids(fenceSet)
        let outputHeader = format.header
        if outputHeader.utf8CodeUnitCount > 0 {
            try write(UnsafeRawBufferPointer(start: outputHeader.utf8Start, count: outputHeader.utf8CodeUnitCount))
        }
        // While the other workers parse and answer a block, the calling thread writes the
        // lines of the block before: parsing fills a slice's rows, not its lines, which stay as they
        // are until the slice formats the next block, after the write.
        var slices: [ContainsSlice] = []
        var pending: [UnsafeRawBufferPointer] = []
        func writePending() throws {
            defer { pending.removeAll(keepingCapacity: true) }
            for bytes in pending { try write(bytes) }
        }
        // From a pipe, before the run may wait for its producer: every line answered so far
        // out, and flushed (a steady trickle is read ahead block after block, so this runs
        // after every block, not only when the run waits).
        func handOut() throws {
            guard !reader.isMapped else { return }
            try writePending()
            try beforeWaiting()
        }
        func nextWaiting() throws -> LineBlockReader.Chunk? {
            try handOut()
            return try next()
        }
        var summary = ContainsSummary()
        var line = 2, row = 1, checkedBytes = 0, answersPerRow = 0
        let mostAnswers = Self.mostAnswers(fenceSet), answerBytes = Self.bytesPerPair + ids.longest + format.bytesPerAnswer
        var chunk: LineBlockReader.Chunk? = try rest.map { .lines($0) } ?? nextWaiting()
        while let current = chunk {
            guard case .lines(let block) = current else {
                // A line over the cap, never held: one rejected row.
                guard case .overlongLine(let length) = current else { break }
                try writePending()
                let out = format.rejectedRow(
                    row, "lineLength: line \(line): \(length) bytes or more, longer than the maximum of \(maximumLineBytes)")
                try out.withUnsafeBytes { try write($0) }
                summary.read += 1
                summary.rejectedByReason["lineLength", default: 0] += 1
                row += 1
                line += 1
                chunk = try nextWaiting()
                continue
            }
            // What a block's rows need (the slices' arrays, the batch's scratch, the lines, a
            // pipe's second buffer), asked for before the first block and any larger one: a
            // memory limit is then a clear error, not a trap in whichever thread asked last.
            // Under an address-space limit its answers too: at most as many a row as a cell of
            // the directory gives; without a directory, twice the most a row had in a block so
            // far, 16 at least. (Without a limit a large estimate could only be refused where
            // the allocation would not be: overcommit grants what is not touched.)
            let perRow = mostAnswers ?? Swift.max(16, 2 * answersPerRow)
            let answers = Platform.addressSpaceLimit == nil ? 0 : (Self.lineBreaks(block) + 1) * perRow
            let estimate = block.count * Self.bytesPerBlockByte + answers * answerBytes
            if estimate > checkedBytes {
                let purpose = "answering a block of \(MemoryHeadroom.mebibytes(block.count)) MiB of rows"
                if let problem = MemoryHeadroom.refusal(bytes: estimate - checkedBytes, for: purpose, advice: "raise the limit") {
                    try writePending()
                    throw FileError(path: path, reason: problem)
                }
                checkedBytes = estimate
            }
            let p = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let bounds = FixFileReader.sliceBounds(p, count: block.count, parts: block.count < 1 << 16 ? 1 : pool.threads)
            while slices.count < bounds.count { slices.append(ContainsSlice()) }
            let work = SliceBox(slices), base = SendablePointer(p)
            let failures = DisjointSlots<GEOSError?>(repeating: nil, count: bounds.count)
            // Parse and answer, while the block before is written and the next one read (the
            // reader keeps this block while it reads the next; a read error waits its turn,
            // after this block's lines). A pipe that stays quiet is not read ahead: this
            // block's lines then go out before the wait for more (nil below).
            var following: Result<LineBlockReader.Chunk?, FileError>? = nil
            try pool.run(count: bounds.count, { k, worker in
                do throws(GEOSError) {
                    try work.slices[k].parseAndAnswer(
                        base.pointer, bounds[k].0, bounds[k].1, header: fixHeader, evaluator: evaluators.evaluators[worker],
                        maximumLineBytes: maximumLineBytes)
                } catch { failures[k] = error }
            }, meanwhile: {
                try writePending()
                try handOut()
                do throws(FileError) {
                    if case .chunk(let chunk) = try reader.nextChunk(orNotYetWithin: LineBlockReader.defaultIdleMilliseconds) {
                        following = .success(chunk)
                    }
                } catch { following = .failure(FileError(path: path, reason: error.reason)) }
            })
            if let failure = failures.storage.lazy.compactMap({ $0 }).first { throw failure }
            PhaseTrace.mark("rows: parse and answer \(block.count >> 10) KiB, the block before written, the next read")
            // Rows and lines are numbered across slices; then each slice writes its lines.
            var firstRows: [Int] = [], firstLines: [Int] = []
            for k in 0..<bounds.count {
                firstRows.append(row)
                firstLines.append(line)
                row += slices[k].rows.count
                line += slices[k].lineCount
                slices[k].tally(into: &summary)
            }
            let (rowStarts, lineStarts) = (firstRows, firstLines)
            pool.run(count: bounds.count) { k, _ in
                work.slices[k].format(firstRow: rowStarts[k], firstLine: lineStarts[k], ids: ids, as: format)
            }
            PhaseTrace.mark("rows: format")
            let blockRows = slices.prefix(bounds.count).reduce(0) { $0 + $1.rows.count }
            let blockAnswers = slices.prefix(bounds.count).reduce(0) { $0 + $1.answerCount }
            answersPerRow = Swift.max(answersPerRow, (blockAnswers + blockRows - 1) / Swift.max(1, blockRows))
            for k in 0..<bounds.count { pending.append(slices[k].output) }
            guard let following else {
                chunk = try nextWaiting()
                continue
            }
            do { chunk = try following.get() } catch {
                try writePending()
                throw error
            }
        }
        try writePending()
        PhaseTrace.mark("rows: the last block written")
        return summary
    }

    /// Bytes of memory a block's rows take per byte of the block, beside their answers:
    /// measured 5.6 for 8 MiB blocks of 45-byte rows with half an answer a row, under an
    /// address-space limit (read like a pipe: two buffers), 1k fences, two threads.
    static let bytesPerBlockByte = 6
    /// Bytes of one answer's pair, in the slice's pairs and the batch's two (the pairs and
    /// their sorting copy); its output adds the fence's quoted id and the format's
    /// ``ContainsFormat/bytesPerAnswer``.
    static let bytesPerPair = 3 * 2 * MemoryLayout<Int32>.stride

    /// The most fences one fix can be in, at most: the most candidates a cell of the
    /// directory gives; nil without a directory (every fence would be no useful bound).
    static func mostAnswers(_ set: FenceSet) -> Int? {
        let directory = set.directory
        guard directory.isEnabled else { return nil }
        return Swift.max(1, Swift.min(set.count, directory.maximumCandidates))
    }

    /// The line breaks in `block`.
    static func lineBreaks(_ block: UnsafeRawBufferPointer) -> Int {
        var n = 0
        for byte in block where byte == 0x0A { n &+= 1 }
        return n
    }
}

/// Per-worker evaluators, handed to the worker threads (worker w only uses its own).
final class EvaluatorBox: @unchecked Sendable {
    let evaluators: [ContainmentEvaluator]
    init(_ evaluators: [ContainmentEvaluator]) { self.evaluators = evaluators }
}

/// The slices of one block, handed to the worker threads (each slice to one worker at a time).
final class SliceBox: @unchecked Sendable {
    let slices: [ContainsSlice]
    init(_ slices: [ContainsSlice]) { self.slices = slices }
}

/// Reads a fix CSV in large blocks and parses each block on several threads.
///
/// Line numbers are 1-based and count every physical line (the header is line 1), so a
/// rejected row can be found with `sed -n <line>p`. Input without a header line (the columns
/// given apart) starts with line 1; `lineOffset` is added to every line number.
package final class FixFileReader {
    package let path: String
    let header: FixCSVHeader
    private let reader: LineBlockReader
    /// The data after the header in the first block, not yet handed out.
    private var firstBlockRest: UnsafeRawBufferPointer?
    private var nextLine: Int
    /// The block after the one being parsed, read while the workers parse (the reader keeps
    /// a block valid through the next call): a pipe's producer runs meanwhile. A read error
    /// waits here for its turn.
    private var readAhead: Result<LineBlockReader.Chunk?, FileError>? = nil
    /// Each slice's scratch, where it is staged before it is placed in the store
    /// (``FixStore/Writer/place(from:count:at:deviceCount:)``); indexed by slice.
    private var scratch: [ScratchMemory] = []

    /// Opens the file and reads its header, or takes `header` when the file has no header line.
    /// - Throws: ``FileError`` for an unreadable or empty file, or a bad header line (a
    ///   header longer than `maximumLineBytes` included).
    init(
        path: String, blockSize: Int = 8 << 20, header given: FixCSVHeader? = nil, lineOffset: Int = 0,
        maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes,
        idleMilliseconds: Int32 = LineBlockReader.defaultIdleMilliseconds
    ) throws(FileError) {
        self.path = path
        reader = try Self.openLines(path, blockSize: blockSize, maximumLineBytes: maximumLineBytes, idleMilliseconds: idleMilliseconds)
        if let given {
            // No header line: every line is data, the first is line 1; the first block is
            // read by the first `nextSlices` (an overlong first line is then a rejected row).
            header = given
            nextLine = 1 + lineOffset
            firstBlockRest = nil
            return
        }
        nextLine = 2 + lineOffset
        (header, firstBlockRest) = try Self.readHeader(reader, path: path, lineNumber: 1 + lineOffset)
    }

    /// A fixes file's lines, read ahead (a pipe into two buffers in turn); shared by the batch
    /// and `geofence contains`.
    /// - Throws: ``FileError`` when the file cannot be opened.
    static func openLines(_ path: String, blockSize: Int, maximumLineBytes: Int, idleMilliseconds: Int32) throws(FileError)
        -> LineBlockReader
    {
        do {
            return try LineBlockReader(
                path: path, blockSize: blockSize, maximumLineBytes: maximumLineBytes, readsAhead: true, idleMilliseconds: idleMilliseconds)
        } catch {
            throw FileError(path: path, reason: error.reason)
        }
    }

    /// Reads the header line from the first block of `reader`: the header, and the rest of
    /// the block (nil when none). Shared by the batch and `geofence contains`.
    /// - Throws: ``FileError`` for an unreadable or empty file, or a bad header line (one
    ///   longer than the reader's maximum included), naming it as line `lineNumber`.
    static func readHeader(_ reader: LineBlockReader, path: String, lineNumber: Int = 1) throws(FileError)
        -> (header: FixCSVHeader, rest: UnsafeRawBufferPointer?)
    {
        let maximumLineBytes = reader.maximumLineBytes
        let chunk: LineBlockReader.Chunk?
        do { chunk = try reader.nextChunk() } catch { throw FileError(path: path, reason: error.reason) }
        let first: UnsafeRawBufferPointer
        switch chunk {
        case .lines(let block) where block.count > 0:
            first = block
        case .overlongLine(let bytes):
            throw FileError(path: path, reason: Self.longHeader(bytes, maximum: maximumLineBytes))
        default:
            throw FileError(path: path, reason: "empty file (expected a header line naming at least device_id,timestamp,lat,lon)")
        }
        let bytes = first.bindMemory(to: UInt8.self)
        let end = Platform.firstLineBreak(in: bytes.baseAddress!, from: 0, to: bytes.count)
        if end > maximumLineBytes { throw FileError(path: path, reason: Self.longHeader(end, maximum: maximumLineBytes)) }
        let header: FixCSVHeader
        do {
            header = try FixCSVHeader(line: UnsafeRawBufferPointer(rebasing: first[0..<end]))
        } catch {
            throw FileError(path: path, reason: "line \(lineNumber): \(error.reason)")
        }
        return (header, end + 1 < first.count ? UnsafeRawBufferPointer(rebasing: first[(end + 1)...]) : nil)
    }

    static func longHeader(_ bytes: Int, maximum: Int) -> String {
        "line 1: the header line has \(bytes) bytes or more, longer than the maximum of \(maximum) (is this a CSV text file?)"
    }

    /// True when the file has an accuracy or a level column (the store then keeps them).
    var hasExtras: Bool {
        header.roles.contains(FixCSVHeader.FieldRole.accuracy) || header.roles.contains(FixCSVHeader.FieldRole.level)
    }

    /// The file's size in bytes, or nil when it is not a regular file (a pipe).
    var fileSize: Int? { reader.fileSize }

    /// Bytes read from the file so far.
    var bytesRead: Int { reader.bytesRead }

    /// Parses the next block into `store`, from slot `store.used` on, in
    /// up to `pool.threads` slices (in file order), or returns nil at the end of the file.
    /// The slices' `firstLine` are absolute line numbers; `store.used` moves past the block.
    ///
    /// Without `keepLines` each slice stages its rows in its own scratch, and once every
    /// slice's row count is known the slices are placed one after the other (in parallel):
    /// the store grows by the block's rows, no more. With `keepLines` (the streaming path,
    /// whose store holds one block) each slice writes its rows in place, at slots known
    /// before any row is parsed.
    /// - Throws: ``FileError`` when the file cannot be read, memory is refused, or it
    ///   has more lines than the store can address (``FixStore/maximumSlots``).
    func nextSlices(pool: WorkerPool, policy: FixRowPolicy, store: FixStore, keepLines: Bool = false)
        throws(FileError) -> [ParsedSlice]?
    {
        let block: UnsafeRawBufferPointer
        if let rest = firstBlockRest {
            block = rest
            firstBlockRest = nil
        } else {
            let next = readAhead ?? readChunk()
            readAhead = nil
            let chunk = try next.get()
            switch chunk {
            case nil:
                return nil
            case .overlongLine(let bytes):
                return number([ParsedSlice.overlongLine(bytes: bytes, policy: policy, firstSlot: store.used)])
            case .lines(let lines):
                block = lines
            }
        }
        let p = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let bounds = Self.sliceBounds(p, count: block.count, parts: block.count < 1 << 16 ? 1 : pool.threads)
        let base = SendablePointer(p)
        try prepareMemory(bounds: bounds, keepLines: keepLines, keepsExtras: store.keepsExtras)
        let header = self.header
        let results = DisjointSlots<ParsedSlice?>(repeating: nil, count: bounds.count)
        let scratch = self.scratch
        // An accepted row holds at least "a,1,0,0" and a line break, so a slice of n bytes
        // has at most n / 8 + 1 of them.
        let capacities = bounds.map { ($0.1 - $0.0) / 8 + 1 }
        var slot = store.used
        if keepLines {
            let firstSlots = capacities.map { capacity in
                defer { slot += capacity }
                return slot
            }
            if let problem = store.reserve(slot) { throw FileError(path: path, reason: problem) }
            let target = store.writer
            pool.run(count: bounds.count, { i, _ in
                results[i] = ParsedSlice.parse(
                    base.pointer, bounds[i].0, bounds[i].1, header: header, policy: policy,
                    into: target, firstSlot: firstSlots[i], keepLines: true, scratch: scratch[i])
            }, meanwhile: readNext)
            store.used = slot
            return number(results.storage.map { $0! })
        }
        let staging = store.writer
        pool.run(count: bounds.count, { i, _ in
            results[i] = ParsedSlice.parse(
                base.pointer, bounds[i].0, bounds[i].1, header: header, policy: policy,
                into: staging, firstSlot: 0, keepLines: false, scratch: scratch[i])
        }, meanwhile: readNext)
        var slices = results.storage.map { $0! }
        for i in slices.indices {
            slices[i].firstSlot = slot
            slot += slices[i].rowCount
        }
        if let problem = store.reserve(slot) { throw FileError(path: path, reason: problem) }
        let target = store.writer, keepsExtras = store.keepsExtras
        let placements = slices.map { (first: $0.firstSlot, count: $0.rowCount, devices: $0.interner.count) }
        pool.run(count: bounds.count) { i, _ in
            let staged = FixStore.Writer.staging(in: scratch[i], rows: capacities[i], keepsExtras: keepsExtras)
            let placement = placements[i]
            target.place(from: staged, count: placement.count, at: placement.first, deviceCount: placement.devices)
        }
        store.used = slot
        return number(slices)
    }

    /// The reader's next chunk, its error named after the file.
    private func readChunk() -> Result<LineBlockReader.Chunk?, FileError> {
        do { return .success(try reader.nextChunk()) } catch { return .failure(FileError(path: path, reason: error.reason)) }
    }

    /// Reads the block after the one being parsed (see ``readAhead``).
    private func readNext() {
        readAhead = readChunk()
    }

    /// Gives the slices their absolute first line numbers.
    private func number(_ slices: [ParsedSlice]) -> [ParsedSlice] {
        var slices = slices
        for i in slices.indices {
            slices[i].firstLine = nextLine
            nextLine += slices[i].lineCount
        }
        return slices
    }

    /// Sizes each slice's scratch (staged rows) and checks that the slices' own allocations
    /// can be had (``MemoryHeadroom``), on this thread, where a refusal is an error and not
    /// a trap in a worker.
    ///
    /// A slice of n bytes stages at most n / 8 + 1 rows; its new ids, their offsets and
    /// hashes take about its size again (the margin covers the rest of the worst case, every
    /// row a new device).
    private func prepareMemory(bounds: [(Int, Int)], keepLines: Bool, keepsExtras: Bool) throws(FileError) {
        while scratch.count < bounds.count { scratch.append(ScratchMemory()) }
        if !keepLines {
            let rowBytes = MemoryLayout<FixStore.Core>.stride + MemoryLayout<UInt32>.stride
                + (keepsExtras ? MemoryLayout<FixStore.Extras>.stride : 0)
            for (k, bound) in bounds.enumerated() {
                let bytes = ((bound.1 - bound.0) / 8 + 1) * rowBytes
                if !scratch[k].prepare(bytes) {
                    throw FileError(path: path, reason: MemoryHeadroom.message(bytes: bytes, for: "staging a slice of rows"))
                }
            }
        }
        let slicesBytes = bounds.reduce(0) { $0 + ($1.1 - $1.0) }
        if let problem = MemoryHeadroom.refusal(bytes: slicesBytes, for: "parsing a block of rows") {
            throw FileError(path: path, reason: problem)
        }
    }

    /// Cuts `[0, count)` into up to `parts` ranges of whole lines.
    static func sliceBounds(_ p: UnsafePointer<UInt8>, count: Int, parts: Int) -> [(Int, Int)] {
        var bounds: [(Int, Int)] = []
        var start = 0
        for k in 1...max(1, parts) where start < count {
            var end = k == parts ? count : max(start + 1, count * k / parts)
            while end < count && p[end - 1] != 0x0A { end += 1 }  // end just after a line break
            bounds.append((start, end))
            start = end
        }
        return bounds
    }
}

/// A raw pointer handed to worker threads that only read through it.
struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafePointer<UInt8>
    init(_ pointer: UnsafePointer<UInt8>) { self.pointer = pointer }
}

/// A fix file that cannot be read: missing, unreadable, empty, or without the needed columns.
public struct FixFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Reads a fix CSV in large blocks and parses each block on several threads.
///
/// Line numbers are 1-based and count every physical line (the header is line 1), so a
/// rejected row can be found with `sed -n <line>p`.
package final class FixFileReader {
    package let path: String
    let header: FixCSVHeader
    private let reader: LineBlockReader
    /// The data after the header in the first block, not yet handed out.
    private var firstBlockRest: UnsafeRawBufferPointer?
    private var nextLine = 2
    /// Each parsing thread's scratch, where it stages a slice before placing it in the store
    /// (``FixStore/Writer/place(from:count:at:deviceCount:)``); indexed by worker.
    private var scratch: [ScratchMemory] = []

    /// Opens the file and reads its header.
    /// - Throws: ``FixFileError`` for an unreadable or empty file, or a bad header line (a
    ///   header longer than `maximumLineBytes` included).
    init(path: String, blockSize: Int = 8 << 20, maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes)
        throws(FixFileError)
    {
        self.path = path
        do {
            reader = try LineBlockReader(path: path, blockSize: blockSize, maximumLineBytes: maximumLineBytes)
        } catch {
            throw FixFileError(path: path, reason: error.reason)
        }
        let chunk: LineBlockReader.Chunk?
        do { chunk = try reader.nextChunk() } catch { throw FixFileError(path: path, reason: error.reason) }
        let first: UnsafeRawBufferPointer
        switch chunk {
        case .lines(let block) where block.count > 0:
            first = block
        case .overlongLine(let bytes):
            throw FixFileError(path: path, reason: Self.longHeader(bytes, maximum: maximumLineBytes))
        default:
            throw FixFileError(path: path, reason: "empty file (expected a header line naming at least device_id,timestamp,lat,lon)")
        }
        let bytes = first.bindMemory(to: UInt8.self)
        let end = Platform.firstLineBreak(in: bytes.baseAddress!, from: 0, to: bytes.count)
        if end > maximumLineBytes { throw FixFileError(path: path, reason: Self.longHeader(end, maximum: maximumLineBytes)) }
        do {
            header = try FixCSVHeader(line: UnsafeRawBufferPointer(rebasing: first[0..<end]))
        } catch {
            throw FixFileError(path: path, reason: "line 1: \(error.reason)")
        }
        firstBlockRest = end + 1 < first.count ? UnsafeRawBufferPointer(rebasing: first[(end + 1)...]) : nil
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
    /// Every slice knows its slots before any row is parsed and writes its rows in place.
    /// - Throws: ``FixFileError`` when the file cannot be read or has more lines than the
    ///   store can address (``FixStore/maximumSlots``).
    func nextSlices(pool: WorkerPool, policy: FixRowPolicy, store: FixStore, keepLines: Bool = false)
        throws(FixFileError) -> [ParsedSlice]?
    {
        let block: UnsafeRawBufferPointer
        if let rest = firstBlockRest {
            block = rest
            firstBlockRest = nil
        } else {
            let chunk: LineBlockReader.Chunk?
            do { chunk = try reader.nextChunk() } catch { throw FixFileError(path: path, reason: error.reason) }
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
        // An accepted row holds at least "a,1,0,0" and a line break, so a slice of n bytes
        // has at most n / 8 + 1 of them: each slice gets that many slots, known before any
        // row is parsed. The slots its shorter or rejected lines leave unused are never
        // written, so they take address space, not memory.
        var slot = store.used
        let firstSlots = bounds.map { bound in
            defer { slot += (bound.1 - bound.0) / 8 + 1 }
            return slot
        }
        if let problem = store.reserve(slot) { throw FixFileError(path: path, reason: problem) }
        try prepareMemory(bounds: bounds, keepLines: keepLines, keepsExtras: store.keepsExtras, threads: pool.threads)
        let header = self.header
        let results = DisjointSlots<ParsedSlice?>(repeating: nil, count: bounds.count)
        let target = store.writer
        let scratch = self.scratch
        pool.run(count: bounds.count) { i, worker in
            results[i] = ParsedSlice.parse(
                base.pointer, bounds[i].0, bounds[i].1, header: header, policy: policy,
                into: target, firstSlot: firstSlots[i], keepLines: keepLines, scratch: scratch[worker])
        }
        let slices = results.storage.map { $0! }
        // The next block starts after the last row written, not after the last slot this
        // block could have used: the store grows with the rows, not with the file's bytes.
        store.used = slices.last.map { $0.firstSlot + $0.rowCount } ?? store.used
        return number(slices)
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

    /// Sizes each parsing thread's scratch for the block's largest slice and checks that the
    /// slices' own allocations can be had (``MemoryHeadroom``), on this thread, where a refusal
    /// is an error and not a trap in a worker.
    ///
    /// A slice of n bytes stages at most n / 8 + 1 rows; its ids, their hashes and its table
    /// take at most about 4 bytes per byte of the slice (every row a new device).
    private func prepareMemory(bounds: [(Int, Int)], keepLines: Bool, keepsExtras: Bool, threads: Int) throws(FixFileError) {
        let largest = bounds.map { $0.1 - $0.0 }.max() ?? 0
        while scratch.count < threads { scratch.append(ScratchMemory()) }
        if !keepLines {
            let rowBytes = MemoryLayout<FixStore.Core>.stride + MemoryLayout<UInt32>.stride
                + (keepsExtras ? MemoryLayout<FixStore.Extras>.stride : 0)
            for k in 0..<Swift.min(threads, bounds.count) where !scratch[k].prepare((largest / 8 + 1) * rowBytes) {
                throw FixFileError(path: path, reason: MemoryHeadroom.message(bytes: (largest / 8 + 1) * rowBytes, for: "a parsing thread's scratch"))
            }
        }
        let slicesBytes = bounds.reduce(0) { $0 + ($1.1 - $1.0) } * 4
        if let problem = MemoryHeadroom.refusal(bytes: slicesBytes, for: "parsing a block of rows") {
            throw FixFileError(path: path, reason: problem)
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

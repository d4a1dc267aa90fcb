/// A fix file that cannot be read: missing, unreadable, empty, or without the needed columns.
public struct FixFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Reads a fix CSV in large blocks and parses each block on several threads.
///
/// Line numbers are 1-based and count every physical line (the header is line 1), so a
/// rejected row can be found with `sed -n <line>p`. Input without a header line (the columns
/// given apart) starts with line 1; `lineOffset` is added to every line number.
final class FixFileReader {
    let path: String
    let header: FixCSVHeader
    private let reader: LineBlockReader
    /// The data after the header in the first block, not yet handed out.
    private var firstBlockRest: UnsafeRawBufferPointer?
    private var nextLine: Int
    /// Each parsing thread's scratch, where it stages a slice before placing it in the store
    /// (``FixStore/Writer/place(from:count:at:deviceCount:)``); indexed by worker.
    private var scratch: [ScratchMemory] = []

    /// Opens the file and reads its header, or takes `header` when the file has no header line.
    init(path: String, blockSize: Int = 8 << 20, header given: FixCSVHeader? = nil, lineOffset: Int = 0) throws(FixFileError) {
        self.path = path
        do {
            reader = try LineBlockReader(path: path, blockSize: blockSize)
        } catch {
            throw FixFileError(path: path, reason: error.reason)
        }
        let first: UnsafeRawBufferPointer?
        do { first = try reader.nextBlock() } catch { throw FixFileError(path: path, reason: error.reason) }
        if let given {
            // No header line: every line is data, the first is line 1.
            header = given
            nextLine = 1 + lineOffset
            firstBlockRest = first.flatMap { $0.count > 0 ? $0 : nil }
            return
        }
        nextLine = 2 + lineOffset
        guard let first, first.count > 0 else {
            throw FixFileError(path: path, reason: "empty file (expected a header line naming at least device_id,timestamp,lat,lon)")
        }
        let bytes = first.bindMemory(to: UInt8.self)
        var end = 0
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        do {
            header = try FixCSVHeader(line: UnsafeRawBufferPointer(rebasing: first[0..<end]))
        } catch {
            throw FixFileError(path: path, reason: "line \(1 + lineOffset): \(error.reason)")
        }
        firstBlockRest = end + 1 < first.count ? UnsafeRawBufferPointer(rebasing: first[(end + 1)...]) : nil
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
            do {
                guard let next = try reader.nextBlock() else { return nil }
                block = next
            } catch {
                throw FixFileError(path: path, reason: error.reason)
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
        store.used = slot
        let header = self.header
        let results = DisjointSlots<ParsedSlice?>(repeating: nil, count: bounds.count)
        let target = store.writer
        while scratch.count < pool.threads { scratch.append(ScratchMemory()) }
        let scratch = self.scratch
        pool.run(count: bounds.count) { i, worker in
            results[i] = ParsedSlice.parse(
                base.pointer, bounds[i].0, bounds[i].1, header: header, policy: policy,
                into: target, firstSlot: firstSlots[i], keepLines: keepLines, scratch: scratch[worker])
        }
        var slices = results.storage.map { $0! }
        for i in slices.indices {
            slices[i].firstLine = nextLine
            nextLine += slices[i].lineCount
        }
        return slices
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

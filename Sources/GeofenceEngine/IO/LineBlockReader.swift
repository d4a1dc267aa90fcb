/// Reads a text file in large blocks that each end on a line break, so lines can be parsed
/// in place (and a block split between threads) without copying.
///
/// A regular file is mapped and its blocks are views of the page cache (no copy; the pages
/// of blocks already handed out are dropped from the process as it goes, so resident memory
/// stays about two blocks); under an address-space limit (`ulimit -v`), which would count
/// the whole mapping, it is read like a pipe. Pipes and devices are read block by block into
/// a buffer of one block (default 8 MiB), or the longest line when that is longer, whatever
/// the input's size; with `readsAhead`, into two such buffers in turn, so that a block stays
/// valid while the next one is read and a caller can read ahead while it works on a block (a
/// producer at the pipe's other end, such as `gzip -dc`, then runs while the block is worked
/// on, not only while it is read). From a pipe, whole lines wait at most
/// ``defaultIdleMilliseconds`` for more before they are handed over, so a live feed's lines
/// are not held until a block fills.
/// A mapped file must not shrink while it is read (a truncated mapping is a bus error):
/// inputs that may change go through a pipe (`cat file |` … `--fixes /dev/stdin`).
///
/// **Line length.** A line may hold at most ``maximumLineBytes`` bytes before its line break
/// (default 1 MiB). A longer line that does not fit in a block is never held: it is skipped
/// and reported as ``Chunk/overlongLine(bytes:)`` (so `/dev/zero` costs one block, not all
/// memory). A longer line inside a block is left to the caller, who checks each line's
/// length against the same maximum (``forEachLine(_:overlongLine:)`` does).
package final class LineBlockReader {
    /// The default longest line, in bytes (line break not included): 1 MiB.
    package static let defaultMaximumLineBytes = 1 << 20

    /// What ``nextChunk()`` returns: whole lines, or the news that one line was too long.
    package enum Chunk {
        /// A block of whole lines (the last block may end without a line break). The bytes
        /// stay valid until the next call, or with `readsAhead` until the second call after
        /// (the next call reads into the other buffer).
        case lines(UnsafeRawBufferPointer)
        /// One line longer than ``maximumLineBytes``, skipped without being held: `bytes` is
        /// how much of it was seen when it was found too long (at least the maximum). The
        /// rest of the line is read past on the next call, so an endless line (`/dev/zero`)
        /// is reported at once.
        case overlongLine(bytes: Int)
    }

    package let path: String
    /// The longest line accepted, in bytes.
    package let maximumLineBytes: Int
    private let fd: Int32
    /// A pipe's buffers: one, or with `readsAhead` two (the second allocated when a second
    /// block is read).
    private var buffers: [UnsafeMutableRawBufferPointer]
    /// The buffer of the last block of lines handed out: the next block goes to the other.
    private var linesBuffer = 1
    /// Bytes of the next block already read (the partial line after the last break), at
    /// `lastBlockEnd` in buffer `carryBuffer`.
    private var carry = 0
    private var carryBuffer = 0
    private let readsAhead: Bool
    /// See ``defaultIdleMilliseconds``.
    private let idleMilliseconds: Int32
    private var atEOF = false
    /// The size of a regular file when it was opened; nil for pipes and devices.
    package let fileSize: Int?
    /// Total bytes read so far.
    package private(set) var bytesRead = 0

    /// Opens the file. - Throws: ``FileError`` naming the file and the reason.
    /// - Parameter readsAhead: keep each block valid through the call after next (two buffers
    ///   for a pipe), for callers that read the next block while they work on one.
    /// - Parameter idleMilliseconds: a pipe quiet this long hands over the whole lines read
    ///   so far (see ``defaultIdleMilliseconds``).
    package init(
        path: String, blockSize: Int = 8 << 20, maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes,
        readsAhead: Bool = false, idleMilliseconds: Int32 = LineBlockReader.defaultIdleMilliseconds
    ) throws(FileError) {
        self.path = path
        self.readsAhead = readsAhead
        self.idleMilliseconds = max(0, idleMilliseconds)
        self.maximumLineBytes = max(1, maximumLineBytes)
        fd = Platform.openForReading(path)
        guard fd >= 0 else { throw FileError(path: path, reason: FileBytes.errnoText("cannot open")) }
        let status = Platform.status(of: fd)
        if status?.kind == .directory {
            Platform.close(fd)
            throw FileError(path: path, reason: "is a directory, not a file")
        }
        fileSize = status?.kind == .regular ? status?.size : nil
        self.blockSize = max(blockSize, 64)
        // Under an address-space limit the mapping would count the whole file against it:
        // the file is then read block by block, like a pipe.
        if let size = fileSize, Platform.addressSpaceLimit == nil, let mapped = Platform.mapReadOnly(fd, size: size) {
            // A regular file is read through a mapping: blocks are views of the page cache,
            // with no copy (read(2) copying the file was a tenth of a whole batch run).
            Platform.adviseSequential(mapped.baseAddress!, size: size)
            mapping = mapped
            buffers = []
        } else {
            mapping = nil
            // A pipe (other kinds refuse): room for the writer to run ahead between reads.
            if readsAhead && status?.kind == .other { Platform.enlargePipe(fd, bytes: 1 << 20) }
            guard let memory = Platform.allocate(bytes: self.blockSize) else {
                Platform.close(fd)
                throw FileError(path: path, reason: "cannot allocate a read buffer of \(self.blockSize >> 20) MiB (out of memory)")
            }
            buffers = [UnsafeMutableRawBufferPointer(start: memory, count: self.blockSize), UnsafeMutableRawBufferPointer(start: nil, count: 0)]
        }
    }

    deinit {
        if let mapping { Platform.unmap(mapping.baseAddress!, size: mapping.count) }
        Platform.close(fd)
        for buffer in buffers { if let base = buffer.baseAddress { Platform.free(base) } }
    }

    /// True when the file is mapped (a regular file): its blocks never wait for a producer.
    package var isMapped: Bool { mapping != nil }

    /// ``nextChunk()``, or with `patience` ``nextChunk(orNotYetWithin:)``.
    func next(givingUpAfter patience: Int32?) throws(FileError) -> Arrival {
        if let mapping { return .chunk(nextMappedChunk(mapping)) }
        // Nothing left: no second buffer made for it.
        if atEOF && carry == 0 && !skippingLine { return .chunk(nil) }
        // Reading ahead, the buffer the last block of lines is not in; as large as the one
        // with the carry.
        target = readsAhead ? 1 - linesBuffer : 0
        if buffers[target].count < buffers[carryBuffer].count {
            try grow(to: buffers[carryBuffer].count, keeping: 0)
        }
        if skippingLine {
            skippingLine = false
            try skipRestOfLine()
        }
        // Move the carried partial line to the front.
        if carry > 0 && (lastBlockEnd > 0 || carryBuffer != target) {
            buffer.baseAddress!.copyMemory(from: buffers[carryBuffer].baseAddress! + lastBlockEnd, byteCount: carry)  // may overlap
        }
        carryBuffer = target
        lastBlockEnd = 0
        var filled = carry
        let start = Platform.monotonicSeconds()
        // When the first whole line of this block came (the carry has one after an overlong
        // line was skipped).
        var firstLine: Double? =
            filled > 0 && Platform.firstLineBreak(in: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), from: 0, to: filled) < filled
            ? start : nil
        while true {
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if !atEOF && filled < buffer.count {
                if let firstLine {
                    // Whole lines held: handed over once the idle time has passed since the
                    // first came, or when the pipe stays quiet until then.
                    let left = idleMilliseconds - Self.milliseconds(since: firstLine)
                    if left <= 0 || !Platform.waitReadable(fd, milliseconds: left) {
                        return .chunk(linesUpTo(Self.lineEnd(base, filled), filled: filled))
                    }
                } else if let patience {
                    let left = patience - Self.milliseconds(since: start)
                    if left <= 0 || !Platform.waitReadable(fd, milliseconds: left) {
                        // Nothing whole yet: what came waits in this buffer for the next call.
                        carry = filled
                        return .notYet
                    }
                }
                let n = try readMore(at: filled)
                if n == 0 {
                    atEOF = true
                } else {
                    if firstLine == nil && Platform.firstLineBreak(in: base, from: filled, to: filled + n) < filled + n {
                        firstLine = Platform.monotonicSeconds()
                    }
                    filled += n
                    continue
                }
            }
            if filled == 0 { return .chunk(nil) }
            if atEOF {
                carry = 0
                lastBlockEnd = filled
                if filled > maximumLineBytes && Platform.firstLineBreak(in: base, from: 0, to: filled) == filled {
                    return .chunk(.overlongLine(bytes: filled))  // the last line, unterminated and too long
                }
                linesBuffer = target
                return .chunk(.lines(UnsafeRawBufferPointer(rebasing: buffer[0..<filled])))
            }
            // Full buffer: cut after its last line break.
            let cut = Self.lineEnd(base, filled)
            if cut == 0 {
                // One line longer than the buffer: grow up to the longest line, or skip it.
                if buffer.count > maximumLineBytes {
                    // Reported now; the rest of the line is skipped on the next call.
                    skippingLine = true
                    carry = 0
                    lastBlockEnd = 0
                    return .chunk(.overlongLine(bytes: filled))
                }
                try grow(to: min(buffer.count * 2, maximumLineBytes + 1), keeping: filled)
                continue
            }
            return .chunk(linesUpTo(cut, filled: filled))
        }
    }

    /// Whole milliseconds since `time` (``Platform/monotonicSeconds()``), at most a day.
    private static func milliseconds(since time: Double) -> Int32 {
        Int32(min(86_400_000, max(0, (Platform.monotonicSeconds() - time) * 1000)))
    }

    /// The block of the lines before `cut` (just after a line break) of the `filled` bytes
    /// read; the bytes after it are carried to the next block.
    private func linesUpTo(_ cut: Int, filled: Int) -> Chunk {
        carry = filled - cut
        lastBlockEnd = cut
        linesBuffer = target
        return .lines(UnsafeRawBufferPointer(rebasing: buffer[0..<cut]))
    }

    /// The index just after the last line break of `base[0 ..< count]`, or 0 when it has none.
    private static func lineEnd(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
        var cut = count
        while cut > 0 && base[cut - 1] != 0x0A { cut -= 1 }
        return cut
    }

    /// How long the whole lines read from a pipe wait for more before they are handed over as
    /// a block (see ``nextChunk()``): 100 ms. A producer that keeps writing fills a block
    /// sooner (`gzip -dc`: 8 MiB in about 40 ms), so its blocks stay whole.
    package static let defaultIdleMilliseconds: Int32 = 100

    /// Reads into the buffer from `offset`; the bytes read (0 at the end of the file).
    private func readMore(at offset: Int) throws(FileError) -> Int {
        let n = Platform.read(fd, into: buffer.baseAddress! + offset, count: buffer.count - offset)
        if n < 0 { throw FileError(path: path, reason: FileBytes.errnoText("read failed")) }
        bytesRead += n
        return n
    }

    /// Reads past the rest of a line already reported too long, keeping what follows its
    /// line break as the carry (in the target buffer).
    /// - Throws: ``FileError`` once ``maximumSkippedBytes`` go by without a line break
    ///   (an endless line, such as `/dev/zero`'s, is an error, not a spin).
    private func skipRestOfLine() throws(FileError) {
        carryBuffer = target
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var skipped = 0
        while true {
            guard skipped <= Self.maximumSkippedBytes else {
                throw FileError(
                    path: path, reason: "a line of more than \(Self.maximumSkippedBytes >> 30) GiB without a line break (is this a text file?)")
            }
            let n = try readMore(at: 0)
            skipped += n
            if n == 0 {
                atEOF = true
                carry = 0
                lastBlockEnd = 0
                return
            }
            let lineBreak = Platform.firstLineBreak(in: base, from: 0, to: n)
            if lineBreak < n {
                carry = n - lineBreak - 1
                lastBlockEnd = lineBreak + 1
                return
            }
        }
    }

    /// The most bytes of one overlong line read past before the input is taken for not text.
    package static let maximumSkippedBytes = 1 << 30

    /// True when the reader is inside a line reported too long (a pipe or device).
    private var skippingLine = false

    /// The buffer the current call reads into.
    private var target = 0
    private var buffer: UnsafeMutableRawBufferPointer { buffers[target] }

    /// Replaces the target buffer by one of `size` bytes holding its first `keeping` bytes
    /// (makes the second buffer, first used, with `keeping` 0).
    private func grow(to size: Int, keeping: Int) throws(FileError) {
        guard let bigger = Platform.allocate(bytes: size) else {
            let what = keeping == 0 && size == blockSize ? "a read buffer of \(size >> 20) MiB" : "a line of \(size) bytes"
            throw FileError(path: path, reason: "cannot allocate memory for \(what) (out of memory)")
        }
        if let old = buffer.baseAddress {
            bigger.copyMemory(from: old, byteCount: keeping)
            Platform.free(old)
        }
        buffers[target] = UnsafeMutableRawBufferPointer(start: bigger, count: size)
    }

    private var lastBlockEnd = 0
    private let blockSize: Int
    /// The whole file, when it could be mapped, and how far blocks have been handed out.
    private let mapping: UnsafeRawBufferPointer?
    private var mappedOffset = 0
    /// Where the pages already dropped from the mapping end (a multiple of the page size).
    private var droppedEnd = 0

    /// The next block of the mapping: about `blockSize` bytes, cut after a line break. The
    /// pages of the blocks before the previous one are dropped from this process (they stay
    /// in the page cache), so the resident set holds two blocks, not the file.
    private func nextMappedChunk(_ mapping: UnsafeRawBufferPointer) -> Chunk? {
        let start = mappedOffset
        guard start < mapping.count else { return nil }
        if lastBlockEnd > droppedEnd {
            // Only what the last call left: the pages before are gone already (dropping from
            // the start each time walked the whole read part's page tables again).
            Platform.dropPages(inside: mapping.baseAddress! + droppedEnd, bytes: lastBlockEnd - droppedEnd)
            droppedEnd = lastBlockEnd / Platform.pageSize * Platform.pageSize
        }
        lastBlockEnd = start
        let base = mapping.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var cut = min(mapping.count, start + blockSize)
        if cut < mapping.count {
            var back = cut
            while back > start && base[back - 1] != 0x0A { back -= 1 }
            if back > start {
                cut = back
            } else {
                // One line longer than a block: the block runs to its end, unless it is too long.
                let lineBreak = Platform.firstLineBreak(in: base, from: start, to: mapping.count)
                cut = min(mapping.count, lineBreak + 1)
                if lineBreak - start > maximumLineBytes {
                    mappedOffset = cut
                    bytesRead = cut
                    return .overlongLine(bytes: lineBreak - start)
                }
            }
        }
        mappedOffset = cut
        bytesRead = cut
        return .lines(UnsafeRawBufferPointer(rebasing: mapping[start..<cut]))
    }
}

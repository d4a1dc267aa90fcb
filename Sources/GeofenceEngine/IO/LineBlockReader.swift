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
/// on, not only while it is read). A pipe that goes quiet (a live feed) hands over the whole
/// lines it sent once nothing more has come for ``defaultIdleMilliseconds``, so a slow
/// producer's lines are not held until a block fills.
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

    /// Opens the file. - Throws: ``FileReadError`` naming the file and the reason.
    /// - Parameter readsAhead: keep each block valid through the call after next (two buffers
    ///   for a pipe), for callers that read the next block while they work on one.
    /// - Parameter idleMilliseconds: a pipe quiet this long hands over the whole lines read
    ///   so far (see ``defaultIdleMilliseconds``).
    package init(
        path: String, blockSize: Int = 8 << 20, maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes,
        readsAhead: Bool = false, idleMilliseconds: Int32 = LineBlockReader.defaultIdleMilliseconds
    ) throws(FileReadError) {
        self.path = path
        self.readsAhead = readsAhead
        self.idleMilliseconds = max(0, idleMilliseconds)
        self.maximumLineBytes = max(1, maximumLineBytes)
        fd = Platform.openForReading(path)
        guard fd >= 0 else { throw FileReadError(path: path, reason: FileBytes.errnoText("cannot open")) }
        let status = Platform.status(of: fd)
        if status?.kind == .directory {
            Platform.close(fd)
            throw FileReadError(path: path, reason: "is a directory, not a file")
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
                throw FileReadError(path: path, reason: "cannot allocate a read buffer of \(self.blockSize >> 20) MiB (out of memory)")
            }
            buffers = [UnsafeMutableRawBufferPointer(start: memory, count: self.blockSize), UnsafeMutableRawBufferPointer(start: nil, count: 0)]
        }
    }

    deinit {
        if let mapping { Platform.unmap(mapping.baseAddress!, size: mapping.count) }
        Platform.close(fd)
        for buffer in buffers { if let base = buffer.baseAddress { Platform.free(base) } }
    }

    /// The next block of whole lines, or nil at the end of the file. The bytes stay valid
    /// until the next call (with `readsAhead`, the second call after).
    /// - Throws: ``FileReadError`` when the file cannot be read, or has a line longer than
    ///   ``maximumLineBytes`` that does not fit in a block.
    package func nextBlock() throws(FileReadError) -> UnsafeRawBufferPointer? {
        switch try nextChunk() {
        case nil: return nil
        case .lines(let block): return block
        case .overlongLine(let bytes):
            throw FileReadError(path: path, reason: "a line of \(bytes) bytes or more, longer than the maximum of \(maximumLineBytes)")
        }
    }

    /// The next block of whole lines, or the length of a line too long to hold, or nil at the
    /// end of the file.
    ///
    /// - Complexity: O(block size); one `read` call per block in the usual case.
    package func nextChunk() throws(FileReadError) -> Chunk? {
        if let mapping { return nextMappedChunk(mapping) }
        // Nothing left: no second buffer made for it.
        if atEOF && carry == 0 && !skippingLine { return nil }
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
        while true {
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if !atEOF && filled < buffer.count {
                // A producer that pauses (a live feed, `tail -f`) has the whole lines it sent
                // handed over now, not once a block has gathered; one that keeps writing
                // never waits here, and its blocks stay whole.
                if filled > carry && !Platform.waitReadable(fd, milliseconds: idleMilliseconds) {
                    let cut = Self.lineEnd(base, filled)
                    if cut > 0 { return linesUpTo(cut, filled: filled) }
                }
                let n = try readMore(at: filled)
                if n == 0 { atEOF = true } else { filled += n; continue }
            }
            if filled == 0 { return nil }
            if atEOF {
                carry = 0
                lastBlockEnd = filled
                if filled > maximumLineBytes && Platform.firstLineBreak(in: base, from: 0, to: filled) == filled {
                    return .overlongLine(bytes: filled)  // the last line, unterminated and too long
                }
                linesBuffer = target
                return .lines(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
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
                    return .overlongLine(bytes: filled)
                }
                try grow(to: min(buffer.count * 2, maximumLineBytes + 1), keeping: filled)
                continue
            }
            return linesUpTo(cut, filled: filled)
        }
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

    /// How long a pipe may stay quiet before the whole lines read so far are handed over as
    /// a block (see ``nextChunk()``): 100 ms. A producer that keeps writing is never this
    /// slow between two reads, so its blocks stay whole; a live feed is answered within it.
    package static let defaultIdleMilliseconds: Int32 = 100

    /// Whether the next ``nextChunk()`` has something to start on within `milliseconds`:
    /// bytes that arrive, the file's end, or a mapped file (always). False when a pipe stays
    /// quiet that long, so a caller can hand out what it holds before it waits.
    package func hasInput(withinMilliseconds milliseconds: Int32) -> Bool {
        if mapping != nil || atEOF || skippingLine { return true }
        return Platform.waitReadable(fd, milliseconds: milliseconds)
    }

    /// Reads into the buffer from `offset`; the bytes read (0 at the end of the file).
    private func readMore(at offset: Int) throws(FileReadError) -> Int {
        let n = Platform.read(fd, into: buffer.baseAddress! + offset, count: buffer.count - offset)
        if n < 0 { throw FileReadError(path: path, reason: FileBytes.errnoText("read failed")) }
        bytesRead += n
        return n
    }

    /// Reads past the rest of a line already reported too long, keeping what follows its
    /// line break as the carry (in the target buffer).
    /// - Throws: ``FileReadError`` once ``maximumSkippedBytes`` go by without a line break
    ///   (an endless line, such as `/dev/zero`'s, is an error, not a spin).
    private func skipRestOfLine() throws(FileReadError) {
        carryBuffer = target
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var skipped = 0
        while true {
            guard skipped <= Self.maximumSkippedBytes else {
                throw FileReadError(
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
    private func grow(to size: Int, keeping: Int) throws(FileReadError) {
        guard let bigger = Platform.allocate(bytes: size) else {
            let what = keeping == 0 && size == blockSize ? "a read buffer of \(size >> 20) MiB" : "a line of \(size) bytes"
            throw FileReadError(path: path, reason: "cannot allocate memory for \(what) (out of memory)")
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

    /// Calls `body` with each line (no line break) and its 1-based line number, in order.
    /// A final line without a line break is a line too.
    ///
    /// A line longer than ``maximumLineBytes`` goes to `overlongLine` with its number and
    /// length instead; without that handler it is an error (``FileReadError``).
    /// `beforeWaiting` runs whenever the next block has not come yet (a live feed's pause):
    /// a caller flushes its output there.
    package func forEachLine(
        _ body: (_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ lineNumber: Int) throws -> Void,
        overlongLine: ((_ lineNumber: Int, _ bytes: Int) throws -> Void)? = nil,
        beforeWaiting: (() throws -> Void)? = nil
    ) throws {
        var lineNumber = 0
        func overlong(_ bytes: Int) throws {
            if let overlongLine { return try overlongLine(lineNumber, bytes) }
            throw FileReadError(
                path: path, reason: "line \(lineNumber): \(bytes) bytes or more, longer than the maximum of \(maximumLineBytes)")
        }
        while true {
            if let beforeWaiting, !hasInput(withinMilliseconds: 0) { try beforeWaiting() }
            guard let chunk = try nextChunk() else { break }
            guard case .lines(let block) = chunk else {
                if case .overlongLine(let bytes) = chunk {
                    lineNumber += 1
                    try overlong(bytes)
                }
                continue
            }
            let base = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var start = 0
            let n = block.count
            while start < n {
                let end = Platform.firstLineBreak(in: base, from: start, to: n)
                lineNumber += 1
                if end - start > maximumLineBytes { try overlong(end - start) } else { try body(base, start, end, lineNumber) }
                start = end + 1
            }
        }
    }
}

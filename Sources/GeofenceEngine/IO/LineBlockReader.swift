/// Reads a text file in large blocks that each end on a line break, so lines can be parsed
/// in place (and a block split between threads) without copying.
///
/// A regular file is mapped and its blocks are views of the page cache (no copy; the pages
/// of blocks already handed out are dropped from the process as it goes, so resident memory
/// stays about two blocks). Pipes and devices are read block by block into a buffer: one
/// block (default 8 MiB) plus the longest line, whatever the input's size. A mapped file
/// must not shrink while it is read (a truncated mapping is a bus error): inputs that may
/// change go through a pipe (`cat file |` … `--fixes /dev/stdin`).
public final class LineBlockReader {
    public let path: String
    private let fd: Int32
    private var buffer: UnsafeMutableRawBufferPointer
    /// Bytes of the next block already in the buffer (the partial line after the last break).
    private var carry = 0
    private var atEOF = false
    /// The size of a regular file when it was opened; nil for pipes and devices.
    public let fileSize: Int?
    /// Total bytes read so far.
    public private(set) var bytesRead = 0

    /// Opens the file. - Throws: ``FileReadError`` naming the file and the reason.
    public init(path: String, blockSize: Int = 8 << 20) throws(FileReadError) {
        self.path = path
        fd = Platform.openForReading(path)
        guard fd >= 0 else { throw FileReadError(path: path, reason: FileBytes.errnoText("cannot open")) }
        let status = Platform.status(of: fd)
        if status?.kind == .directory {
            Platform.close(fd)
            throw FileReadError(path: path, reason: "is a directory, not a file")
        }
        fileSize = status?.kind == .regular ? status?.size : nil
        self.blockSize = max(blockSize, 64)
        if let size = fileSize, let mapped = Platform.mapReadOnly(fd, size: size) {
            // A regular file is read through a mapping: blocks are views of the page cache,
            // with no copy (read(2) copying the file was a tenth of a whole batch run).
            Platform.adviseSequential(mapped.baseAddress!, size: size)
            mapping = mapped
            buffer = .allocate(byteCount: 64, alignment: 16)
        } else {
            mapping = nil
            buffer = .allocate(byteCount: self.blockSize, alignment: 16)
        }
    }

    deinit {
        if let mapping { Platform.unmap(mapping.baseAddress!, size: mapping.count) }
        Platform.close(fd)
        buffer.deallocate()
    }

    /// The next block of whole lines (the last block may end without a line break), or nil at
    /// the end of the file. The bytes stay valid until the next call.
    ///
    /// - Complexity: O(block size); one `read` call per block in the usual case.
    public func nextBlock() throws(FileReadError) -> UnsafeRawBufferPointer? {
        if let mapping { return nextMappedBlock(mapping) }
        // Move the carried partial line to the front.
        if carry > 0 && lastBlockEnd > 0 {
            buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + lastBlockEnd, byteCount: carry)  // may overlap
        }
        lastBlockEnd = 0
        var filled = carry
        while true {
            if !atEOF && filled < buffer.count {
                let n = Platform.read(fd, into: buffer.baseAddress! + filled, count: buffer.count - filled)
                if n < 0 {
                    throw FileReadError(path: path, reason: FileBytes.errnoText("read failed"))
                }
                if n == 0 { atEOF = true } else { filled += n; bytesRead += n; continue }
            }
            if filled == 0 { return nil }
            if atEOF {
                carry = 0
                lastBlockEnd = filled
                return UnsafeRawBufferPointer(rebasing: buffer[0..<filled])
            }
            // Full buffer: cut after its last line break.
            var cut = filled
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            while cut > 0 && base[cut - 1] != 0x0A { cut -= 1 }
            if cut == 0 {
                // One line longer than the buffer: grow and read on.
                let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
                bigger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: filled)
                buffer.deallocate()
                buffer = bigger
                continue
            }
            carry = filled - cut
            lastBlockEnd = cut
            return UnsafeRawBufferPointer(rebasing: buffer[0..<cut])
        }
    }

    private var lastBlockEnd = 0
    private let blockSize: Int
    /// The whole file, when it could be mapped, and how far blocks have been handed out.
    private let mapping: UnsafeRawBufferPointer?
    private var mappedOffset = 0

    /// The next block of the mapping: about `blockSize` bytes, cut after a line break. The
    /// pages of the blocks before the previous one are dropped from this process (they stay
    /// in the page cache), so the resident set holds two blocks, not the file.
    private func nextMappedBlock(_ mapping: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let start = mappedOffset
        guard start < mapping.count else { return nil }
        let page = Platform.pageSize
        if lastBlockEnd > 0 {
            let dropEnd = lastBlockEnd / page * page
            if dropEnd > 0 { Platform.adviseDontNeed(mapping.baseAddress!, size: dropEnd) }
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
                // One line longer than a block: the block runs to its end.
                while cut < mapping.count && base[cut - 1] != 0x0A { cut += 1 }
            }
        }
        mappedOffset = cut
        bytesRead = cut
        return UnsafeRawBufferPointer(rebasing: mapping[start..<cut])
    }

    /// Calls `body` with each line (no line break) and its 1-based line number, in order.
    /// A final line without a line break is a line too.
    public func forEachLine(
        _ body: (_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ lineNumber: Int) throws -> Void
    ) throws {
        var lineNumber = 0
        while let block = try nextBlock() {
            let base = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var start = 0
            let n = block.count
            while start < n {
                var end = start
                while end < n && base[end] != 0x0A { end += 1 }
                lineNumber += 1
                try body(base, start, end, lineNumber)
                start = end + 1
            }
        }
    }
}

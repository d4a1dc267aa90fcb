/// The ways a ``LineBlockReader`` hands out its lines: block by block, or line by line.
extension LineBlockReader {
    /// The next block of whole lines, or nil at the end of the file. The bytes stay valid
    /// until the next call (with `readsAhead`, the second call after).
    /// - Throws: ``FileError`` when the file cannot be read, or has a line longer than
    ///   ``maximumLineBytes`` that does not fit in a block.
    package func nextBlock() throws(FileError) -> UnsafeRawBufferPointer? {
        switch try nextChunk() {
        case nil: return nil
        case .lines(let block): return block
        case .overlongLine(let bytes):
            throw FileError(path: path, reason: "a line of \(bytes) bytes or more, longer than the maximum of \(maximumLineBytes)")
        }
    }

    /// The next block of whole lines, or the length of a line too long to hold, or nil at the
    /// end of the file.
    ///
    /// From a pipe, the whole lines read so far are handed over once
    /// ``defaultIdleMilliseconds`` have passed since the first of them came (a live feed,
    /// even a steady trickle, is answered within that), or at once when the pipe goes quiet;
    /// a producer that keeps writing fills the block first.
    /// - Complexity: O(block size); one `read` call per block in the usual case.
    package func nextChunk() throws(FileError) -> Chunk? {
        guard case .chunk(let chunk) = try next(givingUpAfter: nil) else { return nil }  // never .notYet without patience
        return chunk
    }

    /// What ``nextChunk(orNotYetWithin:)`` found.
    package enum Arrival {
        /// What ``nextChunk()`` returns.
        case chunk(Chunk?)
        /// No whole line came in time; what did come is kept for the next call, and the block
        /// handed out before stays valid.
        case notYet
    }

    /// ``nextChunk()``, unless no whole line comes within `milliseconds` (a live feed that
    /// paused, even within a line): then ``Arrival/notYet``, so a caller that reads ahead can
    /// hand out what it holds first. A line longer than the maximum is still read past in
    /// full.
    package func nextChunk(orNotYetWithin milliseconds: Int32) throws(FileError) -> Arrival {
        try next(givingUpAfter: max(0, milliseconds))
    }

    /// Calls `body` with each line (no line break) and its 1-based line number, in order.
    /// A final line without a line break is a line too.
    ///
    /// A line longer than ``maximumLineBytes`` goes to `overlongLine` with its number and
    /// length instead; without that handler it is an error (``FileError``).
    /// `beforeWaiting` runs before each block read from a pipe (which may wait for a live
    /// feed's next lines): a caller flushes its output there.
    package func forEachLine(
        _ body: (_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ lineNumber: Int) throws -> Void,
        overlongLine: ((_ lineNumber: Int, _ bytes: Int) throws -> Void)? = nil,
        beforeWaiting: (() throws -> Void)? = nil
    ) throws {
        var lineNumber = 0
        func overlong(_ bytes: Int) throws {
            if let overlongLine { return try overlongLine(lineNumber, bytes) }
            throw FileError(
                path: path, reason: "line \(lineNumber): \(bytes) bytes or more, longer than the maximum of \(maximumLineBytes)")
        }
        while true {
            // Before a pipe's next block, which may have to wait for its producer.
            if let beforeWaiting, !isMapped { try beforeWaiting() }
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

/// The fixes' file of `geofence contains`, opened and its header read: the first block of
/// lines is in memory (see ``ContainsRun/run(fenceSet:input:threads:write:)``).
///
/// Made on one thread and handed to another once (``opening(fixes:blockSize:maximumLineBytes:while:)``),
/// never used by two at a time.
package final class ContainsInput: @unchecked Sendable {
    let path: String
    let reader: LineBlockReader
    let header: FixCSVHeader
    /// The first block's lines after the header (nil when the header was all of it).
    let rest: UnsafeRawBufferPointer?

    /// Bytes of the file a block: 8 MiB, or 1 MiB under an address-space limit (`ulimit -v`),
    /// where each block asks first for what it will need (``ContainsRun``) and smaller blocks
    /// keep a block's answers, which no row count bounds, within the margin asked beyond.
    package static var defaultBlockSize: Int { Platform.addressSpaceLimit == nil ? 8 << 20 : 1 << 20 }

    /// Opens `path` (a regular file is mapped; a pipe is read ahead, a block behind the one
    /// answered) and reads its header line.
    /// - Throws: ``FileError`` for a file that cannot be opened or read, an empty file or a
    ///   bad header.
    /// - Parameter idleMilliseconds: how long a pipe's whole lines wait for more
    ///   (``LineBlockReader/defaultIdleMilliseconds``).
    package init(
        fixes path: String, blockSize: Int = ContainsInput.defaultBlockSize, maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes,
        idleMilliseconds: Int32 = LineBlockReader.defaultIdleMilliseconds
    ) throws(FileError) {
        self.path = path
        reader = try FixFileReader.openLines(path, blockSize: blockSize, maximumLineBytes: maximumLineBytes, idleMilliseconds: idleMilliseconds)
        (header, rest) = try FixFileReader.readHeader(reader, path: path)
    }

    /// Opens `path` and reads its first block on a thread of its own while `meanwhile` (the
    /// fences' load) runs on the calling thread (``InputOpening``).
    /// - Throws: what `meanwhile` throws, else ``FileError``.
    package static func opening<T>(
        fixes path: String, blockSize: Int = ContainsInput.defaultBlockSize, maximumLineBytes: Int = LineBlockReader.defaultMaximumLineBytes,
        idleMilliseconds: Int32 = LineBlockReader.defaultIdleMilliseconds, while meanwhile: () throws -> T
    ) throws -> (T, ContainsInput) {
        try InputOpening.opening(
            path,
            { () throws(FileError) in
                try ContainsInput(fixes: path, blockSize: blockSize, maximumLineBytes: maximumLineBytes, idleMilliseconds: idleMilliseconds)
            }, while: meanwhile)
    }
}

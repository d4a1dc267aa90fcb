/// A buffered byte writer to standard output, standard error or a file.
///
/// A file path is written atomically: the bytes go to a temporary file beside it
/// (``AtomicFileWriter``), and ``commit()`` makes the complete file appear at the path. Until
/// then a file already at the path is untouched; a sink dropped without ``commit()`` (a run
/// that failed) removes its temporary file and leaves the path as it was. A path that names a
/// device or a pipe (`/dev/null`, a FIFO) is written in place, as a stream, like standard
/// output.
///
/// Not `Sendable`: one writer per thread (workers format into their own byte arrays and one
/// thread writes them, in order).
package final class OutputSink {
    package let name: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let file: AtomicFileWriter?
    private var buffer: [UInt8] = []
    private let flushThreshold: Int
    private var committed = false

    /// Standard output.
    package static func standardOutput() -> OutputSink { OutputSink(fd: 1, name: "standard output", owns: false) }
    /// Standard error (flushed at every call of ``flush()``).
    package static func standardError() -> OutputSink { OutputSink(fd: 2, name: "standard error", owns: false) }

    private init(fd: Int32, name: String, owns: Bool, file: AtomicFileWriter? = nil, flushThreshold: Int = 1 << 20) {
        self.fd = fd
        self.name = name
        ownsDescriptor = owns
        self.file = file
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Starts the file at `path`: a temporary file beside it that ``commit()`` renames over
    /// it (over the file a symbolic link points to, when `path` is one); or, when `path` is
    /// a device or a pipe, that device, written as a stream.
    /// - Throws: ``FileError`` naming the file and why it cannot be written.
    package convenience init(path: String) throws(FileError) {
        switch Platform.status(atPath: path)?.kind {
        case .directory:
            throw FileError(path: path, reason: "is a directory, not a file")
        case .other:
            let fd = Platform.openExistingForWriting(path)
            guard fd >= 0 else { throw FileError(path: path, reason: FileBytes.errnoText("cannot open for writing")) }
            self.init(fd: fd, name: path, owns: true)
        case .regular:
            // A link keeps pointing where it did: its target is replaced, not the link.
            let target = Platform.resolvingLinks(path) ?? path
            self.init(fd: -1, name: path, owns: false, file: try AtomicFileWriter(path: target))
        case nil:
            self.init(fd: -1, name: path, owns: false, file: try AtomicFileWriter(path: path))
        }
    }

    deinit {
        if let file {
            if !committed { file.abandon() }
        } else {
            try? flush()
            if ownsDescriptor { Platform.close(fd) }
        }
    }

    /// True when the sink writes a file that appears only on ``commit()``.
    package var isAtomicFile: Bool { file != nil }

    /// Appends bytes; writes them out once a megabyte has gathered.
    @inline(__always)
    package func write(_ bytes: [UInt8]) throws(FileError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Appends raw bytes; a range of ``AtomicFileWriter/directMinimum`` bytes or more goes
    /// straight to the descriptor or the file (after what is buffered), without a copy.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        if bytes.count < AtomicFileWriter.directMinimum {
            buffer.append(contentsOf: bytes)
            if buffer.count >= flushThreshold { try flush() }
            return
        }
        try flush()
        if let file {
            // A file path has no descriptor here (fd is -1): its writer takes the range.
            try file.write(bytes)
        } else if !Platform.writeAll(fd, bytes) {
            throw FileError(path: name, reason: FileBytes.errnoText("write failed"))
        }
    }

    /// Appends a string's UTF-8.
    package func write(_ text: String) throws(FileError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Writes out everything buffered (to the temporary file, for a file path).
    package func flush() throws(FileError) {
        defer { buffer.removeAll(keepingCapacity: true) }
        if let file {
            // withUnsafeBytes rethrows untyped: the error is carried out by hand.
            let failure = buffer.withUnsafeBytes { bytes -> FileError? in
                do throws(FileError) { try file.write(bytes) } catch { return error }
                return nil
            }
            if let failure { throw failure }
            return
        }
        if !Platform.writeAll(fd, buffer) {
            throw FileError(path: name, reason: FileBytes.errnoText("write failed"))
        }
    }

    /// Flushes; for a file path, makes the complete file appear at the path (flushed to disk,
    /// renamed over it). Further calls do nothing.
    /// - Throws: ``FileError``; the path then keeps its previous file.
    package func commit() throws(FileError) {
        guard !committed else { return }
        try flush()
        committed = true
        try file?.commit()
    }

    /// Removes the file now at the path (the previous run's), for a file path; does nothing
    /// for a stream. For an output that must never be seen beside another output it does not
    /// belong to: `geofence evaluate` removes the old summary before the new events appear, so
    /// a run killed between the two renames leaves no summary rather than the old one.
    package func removePreviousFile() {
        guard let file, !committed else { return }
        if Platform.remove(file.path) { Platform.synchronizeDirectory(AtomicFileWriter.split(file.path).folder) }
    }

    /// True when the descriptor is a terminal (progress bars only draw on one).
    package var isTerminal: Bool { file == nil && Platform.isTerminal(fd) }
}

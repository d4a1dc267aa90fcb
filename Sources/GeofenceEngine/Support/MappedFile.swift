/// A whole file mapped read-only into memory, unmapped when the last reference goes.
///
/// Fence files (GeoJSON to parse, compiled sets to serve queries from) are mapped rather than
/// read: no copy, and the pages of a compiled set are shared by every process that opens it.
/// The file must not be truncated while it is mapped (reading a page past a new end would
/// raise SIGBUS), as for the fix files the batch maps.
package final class MappedFile: @unchecked Sendable {
    /// The file's bytes (empty for an empty file).
    package let bytes: UnsafeRawBufferPointer
    package let path: String
    /// What `fstat` said of the file when it was mapped (its identity and times).
    package let status: Platform.FileStatus

    /// Maps `path`.
    /// - Throws: ``FileError`` naming the file: missing, unreadable, a directory, not a
    ///   regular file, or refused by `mmap`.
    package init(path: String) throws(FileError) {
        self.path = path
        let fd = Platform.openForReading(path)
        guard fd >= 0 else { throw FileError(path: path, reason: FileBytes.errnoText("cannot open")) }
        defer { Platform.close(fd) }
        guard let status = Platform.status(of: fd) else {
            throw FileError(path: path, reason: FileBytes.errnoText("cannot stat"))
        }
        switch status.kind {
        case .directory: throw FileError(path: path, reason: "is a directory, not a file")
        case .other: throw FileError(path: path, reason: "is not a regular file (a pipe or device cannot be mapped)")
        case .regular: break
        }
        self.status = status
        if status.size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let mapped = Platform.mapReadOnly(fd, size: status.size) else {
            throw FileError(path: path, reason: FileBytes.errnoText("cannot map \(status.size) bytes"))
        }
        bytes = mapped
    }

    deinit {
        if let base = bytes.baseAddress { Platform.unmap(base, size: bytes.count) }
    }

    /// Gives the pages of `range` back (they read again from the file if touched): for a file
    /// read once from start to end, so it does not stay resident as a whole.
    package func release(_ range: Range<Int>) {
        guard let base = bytes.baseAddress else { return }
        Platform.dropPages(inside: base + range.lowerBound, bytes: range.count)
    }
}

/// A buffered byte writer to standard output, standard error or a file.
///
/// Not `Sendable`: one writer per thread (workers format into their own byte arrays and one
/// thread writes them, in order).
public final class OutputSink {
    public let name: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let flushThreshold: Int

    /// Standard output.
    public static func standardOutput() -> OutputSink { OutputSink(fd: 1, name: "standard output", owns: false) }
    /// Standard error (flushed at every call of ``flush()``).
    public static func standardError() -> OutputSink { OutputSink(fd: 2, name: "standard error", owns: false) }

    private init(fd: Int32, name: String, owns: Bool, flushThreshold: Int = 1 << 20) {
        self.fd = fd
        self.name = name
        ownsDescriptor = owns
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Creates (or truncates) the file at `path`.
    /// - Throws: ``FileReadError`` naming the file and why it cannot be written.
    public convenience init(path: String) throws(FileReadError) {
        let fd = Platform.createTruncating(path)
        guard fd >= 0 else { throw FileReadError(path: path, reason: FileBytes.errnoText("cannot create")) }
        self.init(fd: fd, name: path, owns: true)
    }

    deinit {
        try? flush()
        if ownsDescriptor { Platform.close(fd) }
    }

    /// Appends bytes; writes them out once a megabyte has gathered.
    @inline(__always)
    public func write(_ bytes: [UInt8]) throws(FileReadError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Appends raw bytes; a range of a megabyte or more goes straight to the descriptor
    /// (after what is buffered), without a copy.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileReadError) {
        if buffer.count + bytes.count < flushThreshold {
            buffer.append(contentsOf: bytes)
            return
        }
        try flush()
        if bytes.count < flushThreshold {
            buffer.append(contentsOf: bytes)
        } else if !Platform.writeAll(fd, bytes) {
            throw FileReadError(path: name, reason: FileBytes.errnoText("write failed"))
        }
    }

    /// Appends a string's UTF-8.
    public func write(_ text: String) throws(FileReadError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Writes out everything buffered.
    public func flush() throws(FileReadError) {
        if !Platform.writeAll(fd, buffer) {
            let reason = FileBytes.errnoText("write failed")
            buffer.removeAll(keepingCapacity: true)
            throw FileReadError(path: name, reason: reason)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// True when the descriptor is a terminal (progress bars only draw on one).
    public var isTerminal: Bool { Platform.isTerminal(fd) }
}

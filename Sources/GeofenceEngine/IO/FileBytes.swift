/// A file that cannot be read or written, or whose content is not what it must be: a fence
/// file or fix file that is missing, unreadable, damaged or without the needed columns, an
/// output that cannot be written. One type for every file, naming the file and why.
public struct FileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file (or `<bytes>`, or the name given for bytes in memory).
    public var path: String
    /// What is wrong, in words (from `errno` where the system said).
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// Whole-file and chunked reads with POSIX calls (no Foundation on the hot path).
package enum FileBytes {
    /// The most bytes ``read(_:maximumBytes:)`` takes by default: 4 GiB.
    package static let defaultMaximumBytes = 4 << 30

    /// The whole file, at most `maximumBytes` (a larger file, or a pipe or device that goes
    /// on longer, such as `/dev/zero`, is an error, not a process that grows until it dies).
    /// - Throws: ``FileError`` naming the file: cannot open or read, too large, or out of
    ///   memory.
    package static func read(_ path: String, maximumBytes: Int = defaultMaximumBytes) throws(FileError) -> [UInt8] {
        let fd = Platform.openForReading(path)
        guard fd >= 0 else { throw FileError(path: path, reason: errnoText("cannot open")) }
        defer { Platform.close(fd) }
        guard let status = Platform.status(of: fd) else { throw FileError(path: path, reason: errnoText("cannot stat")) }
        if status.kind == .directory { throw FileError(path: path, reason: "is a directory, not a file") }
        if status.size > maximumBytes { throw tooLarge(path, maximumBytes) }
        // Swift's arrays trap when memory is refused: ask first (``MemoryHeadroom``), for the
        // file and for each doubling while a pipe's size is not known.
        if let problem = MemoryHeadroom.refusal(bytes: status.size + (1 << 20), for: "reading the file") {
            throw FileError(path: path, reason: problem)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(status.size)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { Platform.read(fd, into: $0.baseAddress!, count: $0.count) }
            if n < 0 { throw FileError(path: path, reason: errnoText("read failed")) }
            if n == 0 { break }
            if bytes.count + n > maximumBytes { throw tooLarge(path, maximumBytes) }
            if bytes.count + n > bytes.capacity, let problem = MemoryHeadroom.refusal(bytes: 2 * (bytes.count + n), for: "reading the file") {
                throw FileError(path: path, reason: problem)
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    static func tooLarge(_ path: String, _ maximum: Int) -> FileError {
        FileError(path: path, reason: "larger than the maximum of \(maximum >> 20) MiB read at once")
    }

    static func errnoText(_ what: String) -> String {
        Platform.errorText(what)
    }
}

/// Why a file could not be opened or read, in words (from `errno`).
public struct FileReadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Whole-file and chunked reads with POSIX calls (no Foundation on the hot path).
public enum FileBytes {
    /// The whole file.
    public static func read(_ path: String) throws(FileReadError) -> [UInt8] {
        let fd = Platform.openForReading(path)
        guard fd >= 0 else { throw FileReadError(path: path, reason: errnoText("cannot open")) }
        defer { Platform.close(fd) }
        guard let status = Platform.status(of: fd) else { throw FileReadError(path: path, reason: errnoText("cannot stat")) }
        if status.kind == .directory { throw FileReadError(path: path, reason: "is a directory, not a file") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(status.size)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { Platform.read(fd, into: $0.baseAddress!, count: $0.count) }
            if n < 0 { throw FileReadError(path: path, reason: errnoText("read failed")) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    static func errnoText(_ what: String) -> String {
        Platform.errorText(what)
    }
}

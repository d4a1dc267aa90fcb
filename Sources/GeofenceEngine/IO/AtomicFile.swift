import Synchronization

/// A file that appears at its path complete or not at all: bytes go to a temporary file in
/// the same folder, which ``commit()`` flushes (`fsync`), renames over the path and makes
/// durable (`fsync` of the folder). Until then the previous file at the path, if any, is
/// untouched; dropping the writer without committing removes the temporary file.
///
/// The temporary name says what it is and whose it is:
/// `.<file name>.geofence-tmp-<pid>-<counter>-<random>` in the target's folder, so
/// concurrent writers to one path never share one, and a killed writer's leftover is
/// recognisable.
///
/// Not `Sendable`: one writer per thread.
package final class AtomicFileWriter {
    /// The path the file appears at on ``commit()``.
    package let path: String
    /// The temporary file written until then.
    package let temporaryPath: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var finished = false
    private static let flushThreshold = 1 << 20

    /// Creates the temporary file next to `path`.
    /// - Throws: ``FileReadError`` naming `path` when the folder cannot take a new file.
    package init(path: String) throws(FileReadError) {
        self.path = path
        var made: (String, Int32)? = nil
        for _ in 0..<16 {
            let candidate = Self.temporaryName(for: path)
            let fd = Platform.createExclusive(candidate)
            if fd >= 0 { made = (candidate, fd); break }
            if !Platform.lastErrorIsFileExists { break }
        }
        guard let (temporary, fd) = made else {
            throw FileReadError(path: path, reason: FileBytes.errnoText("cannot create a temporary file beside it"))
        }
        temporaryPath = temporary
        self.fd = fd
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    deinit { abandon() }

    /// The folder of `path` ("" for a bare file name) and its last component.
    package static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    /// Prefix of every temporary name for `path` (what a cleanup of stale files looks for).
    package static func temporaryPrefix(for path: String) -> String {
        let (folder, name) = split(path)
        return "\(folder).\(name).geofence-tmp-"
    }

    private static let counter = ProcessCounter()

    private static func temporaryName(for path: String) -> String {
        let random = UInt64.random(in: 0...UInt64.max)
        let hex = String(random, radix: 16)
        return "\(temporaryPrefix(for: path))\(Platform.processID)-\(counter.next())-\(hex)"
    }

    /// Appends bytes (written out once a megabyte has gathered).
    package func write(_ bytes: [UInt8]) throws(FileReadError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try drain() }
    }

    /// Appends raw bytes.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileReadError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try drain() }
    }

    private func drain() throws(FileReadError) {
        guard !buffer.isEmpty else { return }
        if !Platform.writeAll(fd, buffer) {
            let reason = FileBytes.errnoText("write failed")
            abandon()
            throw FileReadError(path: path, reason: reason)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, renames the temporary file over `path` and makes the rename durable.
    /// - Throws: ``FileReadError``; the temporary file is then removed and `path` untouched.
    package func commit() throws(FileReadError) {
        precondition(!finished, "commit after commit or abandon")
        try drain()
        guard Platform.synchronize(fd) else {
            let reason = FileBytes.errnoText("cannot flush to disk")
            abandon()
            throw FileReadError(path: path, reason: reason)
        }
        Platform.close(fd)
        fd = -1
        guard Platform.rename(temporaryPath, to: path) else {
            let reason = FileBytes.errnoText("cannot rename \(temporaryPath) over it")
            Platform.remove(temporaryPath)
            finished = true
            throw FileReadError(path: path, reason: reason)
        }
        finished = true
        Platform.synchronizeDirectory(Self.split(path).folder)
    }

    /// Drops the temporary file; `path` stays as it was. Safe to call more than once.
    package func abandon() {
        guard !finished else { return }
        finished = true
        if fd >= 0 { Platform.close(fd); fd = -1 }
        Platform.remove(temporaryPath)
        buffer = []
    }
}

/// A process-wide counter for unique names (thread-safe).
final class ProcessCounter: Sendable {
    private let value = Atomic<UInt64>(0)
    func next() -> UInt64 { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}

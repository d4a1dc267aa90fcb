import Synchronization

/// A file that appears at its path complete or not at all: bytes go to a temporary file in
/// the same folder, which ``commit()`` flushes (`fsync`), renames over the path and makes
/// durable (`fsync` of the folder). Until then the previous file at the path, if any, is
/// untouched; dropping the writer without committing removes the temporary file.
///
/// The temporary name says what it is and whose it is:
/// `.<file name>.geofence-tmp-<pid>-<counter>-<random>` in the target's folder, so
/// concurrent writers to one path never share one, and a killed writer's leftover is
/// recognisable: the next writer to the same path removes the temporary files of processes
/// that no longer exist (``removeStaleTemporaryFiles(for:)``).
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
    /// Bytes written to the temporary file, how many of them the device was asked to take
    /// (``Platform/startWriteback(_:offset:count:)``), and up to where the system took the
    /// request (nothing where it has no such call).
    private var written = 0
    private var writebackAsked = 0
    package private(set) var writebackStarted = 0
    /// Bytes written between writeback hints. Without them the data of a file smaller than
    /// the system's dirty-page threshold waits for ``commit()``'s `fsync`: 65–100 ms of the
    /// 230 ms `make run` took for its 117 MB of events.
    package static let writebackStep = 8 << 20

    /// Creates the temporary file next to `path`.
    /// - Throws: ``FileError`` naming `path` when the folder cannot take a new file.
    package init(path: String) throws(FileError) {
        self.path = path
        Self.removeStaleTemporaryFiles(for: path)
        var made: (String, Int32)? = nil
        for _ in 0..<16 {
            let candidate = Self.temporaryName(for: path)
            let fd = Platform.createExclusive(candidate)
            if fd >= 0 { made = (candidate, fd); break }
            if !Platform.lastErrorIsFileExists { break }
        }
        guard let (temporary, fd) = made else {
            throw FileError(path: path, reason: FileBytes.errnoText("cannot create a temporary file beside it"))
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

    /// Removes the temporary files that writers to `path` left when they were killed: those
    /// whose process no longer exists. Files of live processes (this one included) are
    /// concurrent writers and stay. Returns how many were removed.
    ///
    /// A process id the system has since given to another process keeps its file until that
    /// process ends too; the name still says what the file is.
    @discardableResult
    package static func removeStaleTemporaryFiles(for path: String) -> Int {
        let (folder, name) = split(path)
        let prefix = ".\(name).geofence-tmp-"
        guard let entries = Platform.folderEntries(folder) else { return 0 }
        var removed = 0
        for entry in entries where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-", maxSplits: 1).first.flatMap({ Int32($0) }),
                pid != Platform.processID, !Platform.processExists(pid)
            else { continue }
            if Platform.remove(folder + entry) { removed += 1 }
        }
        return removed
    }

    private static func temporaryName(for path: String) -> String {
        let random = UInt64.random(in: 0...UInt64.max)
        let hex = String(random, radix: 16)
        return "\(temporaryPrefix(for: path))\(Platform.processID)-\(counter.next())-\(hex)"
    }

    /// Appends bytes (written out once a megabyte has gathered).
    package func write(_ bytes: [UInt8]) throws(FileError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try drain() }
    }

    /// Appends raw bytes. A range of ``directMinimum`` bytes or more goes straight to the file
    /// after what is buffered: callers that gather their bytes themselves (a device's event
    /// lines) pay no second copy.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        if bytes.count >= Self.directMinimum {
            try drain()
            try writeOut(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try drain() }
    }

    /// The smallest raw range written without going through the buffer: large enough that
    /// the system call costs little beside the copy it saves.
    package static let directMinimum = 64 << 10

    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        try checkOpen()
        if !Platform.writeAll(fd, bytes) { try fail("write failed") }
        wrote(bytes.count)
    }

    /// Counts `n` bytes written and, every ``writebackStep`` bytes, asks the device to start
    /// taking them, so writing to the disk overlaps the work that produces the rest.
    private func wrote(_ n: Int) {
        written += n
        if written - writebackAsked >= Self.writebackStep {
            if Platform.startWriteback(fd, offset: writebackAsked, count: written - writebackAsked) { writebackStarted = written }
            writebackAsked = written
        }
    }

    /// Throws when the file was already committed or abandoned (after an earlier error).
    private func checkOpen() throws(FileError) {
        if finished { throw FileError(path: path, reason: "already committed or abandoned (after an earlier error)") }
    }

    /// Abandons the file and throws why (from `errno`, read first).
    private func fail(_ what: String) throws(FileError) -> Never {
        let reason = FileBytes.errnoText(what)
        abandon()
        throw FileError(path: path, reason: reason)
    }

    private func drain() throws(FileError) {
        guard !buffer.isEmpty else { return }
        try checkOpen()
        let ok = buffer.withUnsafeBytes { Platform.writeAll(fd, $0) }
        if !ok { try fail("write failed") }
        wrote(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, renames the temporary file over `path` and makes the rename durable.
    /// - Throws: ``FileError``; the temporary file is then removed and `path` untouched.
    package func commit() throws(FileError) {
        try checkOpen()
        try drain()
        guard Platform.synchronize(fd) else { try fail("cannot flush to disk") }
        Platform.close(fd)
        fd = -1
        guard Platform.rename(temporaryPath, to: path) else {
            let reason = FileBytes.errnoText("cannot rename \(temporaryPath) over it")
            Platform.remove(temporaryPath)
            finished = true
            throw FileError(path: path, reason: reason)
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on `DATA/lock`, held while the server runs, so a second server on
/// the same `--data` is refused before it opens the database.
///
/// SQLite's own locks would let a second process in as a reader and writer taking turns,
/// and two servers would then hand out the same sequence numbers. The lock dies with the
/// process (also on `kill -9`), so no stale lock file blocks a restart.
final class DataLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock, without waiting.
    /// - Throws: ``ServerError`` when another process holds it, or the file cannot be opened.
    init(folder: String) throws(ServerError) {
        let path = folder + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ServerError("--data \(folder): cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno == EWOULDBLOCK ? "another geofence-server is using it" : String(cString: strerror(errno))
            close(fd)
            throw ServerError("--data \(folder): \(reason)")
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}

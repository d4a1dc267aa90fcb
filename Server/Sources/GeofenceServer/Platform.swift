#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The server's one door to the OS: the data folder's lock, and the allocator's arenas.

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

/// The C allocator's settings the server makes at start.
enum Allocator {
    /// glibc's allocator gives each thread that meets contention an arena of its own, up to 8
    /// a core, and memory freed into one arena is not reused by another. A device's state is
    /// allocated on whichever thread runs the engine and freed on another, so with the default
    /// the resident size grew by 380 bytes a device over a benchmark's 100,000 devices,
    /// against 290 with two arenas (`MALLOC_ARENA_MAX=2`), at the same throughput. Does nothing
    /// on other C libraries.
    static func limitArenas(to count: Int32) {
        #if canImport(Glibc)
        // mallopt is in <malloc.h>, which Swift's Glibc module leaves out: looked up by name.
        // M_ARENA_MAX is -8 in glibc's malloc.h (a stable ABI value since glibc 2.10).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(-8, count)
        #endif
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
#error("geofence-engine runs on Linux (Glibc) and macOS (Darwin)")
#endif

// The one door to the operating system for the engine, the `geofence` tool and the benchmark:
// every call into the C library other than maths (which comes from swift-numerics' RealModule)
// is made here, with a Glibc and a Darwin branch where they differ. No other source file
// imports Glibc or Darwin (a test checks it), so porting is this file.

/// Operating-system calls: files, mappings, clocks, memory, processes.
package enum Platform {
    // MARK: Errors

    /// The calling thread's `errno`.
    package static var lastError: Int32 { errno }

    /// `strerror` of a code, as text.
    package static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// `"<what>: <strerror(errno)>"`, read before anything else can change `errno`.
    package static func errorText(_ what: String) -> String { "\(what): \(describe(errno))" }

    /// True when the last call failed because the file already exists (`EEXIST`).
    package static var lastErrorIsFileExists: Bool { errno == EEXIST }

    /// True when the last call failed only because a signal interrupted it.
    package static var interrupted: Bool { errno == EINTR }

    // MARK: Files

    /// What `fstat` says about an open file.
    package struct FileStatus: Equatable, Sendable {
        package enum Kind: Sendable { case regular, directory, other }
        package var kind: Kind
        package var size: Int
        /// Device and inode: the file's identity (two paths to one file compare equal).
        package var device: UInt64
        package var inode: UInt64
        /// Last modification and last status change (`st_mtim`, `st_ctim`), in nanoseconds
        /// since 1970. Any write to the file sets the change time, which no call can set back.
        package var modified: Int64
        package var changed: Int64
    }

    /// Opens `path` read-only; -1 on failure (see ``errorText(_:)``).
    package static func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }

    /// Creates or truncates `path` for writing (mode 0644); -1 on failure.
    package static func createTruncating(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    }

    /// Creates `path` for writing, failing if it exists (mode 0644); -1 on failure.
    package static func createExclusive(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    }

    /// The status of an open file, or nil.
    package static func status(of fd: Int32) -> FileStatus? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return FileStatus(st)
    }

    /// The status of the file at `path` (links followed), or nil.
    package static func status(atPath path: String) -> FileStatus? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileStatus(st)
    }

    /// The path with its symbolic links resolved (`realpath`), or nil when it does not exist.
    package static func resolvingLinks(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(UnsafeMutableRawPointer(resolved)) }
        return String(cString: resolved)
    }

    /// Reads up to `count` bytes; retries when interrupted. Bytes read, 0 at the end, -1 on error.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        while true {
            #if canImport(Glibc)
            let n = Glibc.read(fd, buffer, count)
            #else
            let n = Darwin.read(fd, buffer, count)
            #endif
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Writes all of `bytes`, retrying partial and interrupted writes. False on error (errno set).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            #else
            let n = Darwin.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Writes all of a byte array; false on error.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Closes a descriptor.
    package static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// Flushes a file's data to the device (`fsync`); false on error.
    package static func synchronize(_ fd: Int32) -> Bool { fsync(fd) == 0 }

    /// Starts writing a range of a file's data to the device without waiting for it (Linux's
    /// `sync_file_range` with `SYNC_FILE_RANGE_WRITE`), so a later ``synchronize(_:)`` has less
    /// left to wait for. Only a hint: it makes nothing durable. True when the system took it;
    /// false where there is no such call (Darwin), or for a descriptor it refuses (a pipe).
    @discardableResult
    package static func startWriteback(_ fd: Int32, offset: Int, count: Int) -> Bool {
        #if canImport(Glibc)
        // Not in the Glibc module (it needs _GNU_SOURCE): looked up by name, once.
        guard let call = syncFileRange else { return false }
        return call(fd, Int64(offset), Int64(count), 2) == 0  // SYNC_FILE_RANGE_WRITE
        #else
        return false
        #endif
    }

    #if canImport(Glibc)
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    private static let syncFileRange: SyncFileRange? = dlsym(nil, "sync_file_range").map { unsafeBitCast($0, to: SyncFileRange.self) }
    #endif

    /// Renames atomically within one file system; false on error.
    package static func rename(_ from: String, to: String) -> Bool {
        #if canImport(Glibc)
        Glibc.rename(from, to) == 0
        #else
        Darwin.rename(from, to) == 0
        #endif
    }

    /// Removes a file; false on error.
    @discardableResult
    package static func remove(_ path: String) -> Bool { unlink(path) == 0 }

    /// Makes a rename in `directory` durable (`fsync` of the directory); errors are ignored
    /// (some file systems refuse it, and the data itself is already flushed).
    package static func synchronizeDirectory(_ directory: String) {
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Sets a file's modification time, to the nanosecond (`utimensat`; its access time is
    /// left as it is); false on error. The change time becomes now, as for any change.
    @discardableResult
    package static func setModified(_ path: String, nanoseconds: Int64) -> Bool {
        #if canImport(Glibc)
        let omit = (1 << 30) - 2  // UTIME_OMIT (a macro Swift does not import)
        #else
        let omit = -2
        #endif
        var times = [
            timespec(tv_sec: 0, tv_nsec: omit),
            timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000)),
        ]
        return utimensat(AT_FDCWD, path, &times, 0) == 0
    }

    /// Creates `path` and any missing folders above it (mode 0700: they may hold a user's
    /// records); true when it exists as a folder afterwards.
    package static func makeFolders(_ path: String) -> Bool {
        if status(atPath: path)?.kind == .directory { return true }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            guard makeFolders(String(path[..<slash])) else { return false }
        }
        return mkdir(path, 0o700) == 0 || status(atPath: path)?.kind == .directory
    }

    /// True when the descriptor is a terminal.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Opens an existing file for writing, without creating or truncating it (devices and
    /// pipes given as an output path); -1 on failure.
    package static func openExistingForWriting(_ path: String) -> Int32 { open(path, O_WRONLY | O_CLOEXEC) }

    /// The names in a folder (without `.` and `..`), or nil when it cannot be read.
    package static func folderEntries(_ path: String) -> [String]? {
        guard let folder = opendir(path.isEmpty ? "." : path) else { return nil }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Memory

    /// The virtual memory page size in bytes.
    package static let pageSize: Int = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Maps `size` bytes of an open file read-only (private), or nil.
    package static func mapReadOnly(_ fd: Int32, size: Int) -> UnsafeRawBufferPointer? {
        guard size > 0, let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else { return nil }
        return UnsafeRawBufferPointer(start: p, count: size)
    }

    /// Reserves `bytes` of zeroed, writable address space that takes memory only where it is
    /// touched (`MAP_NORESERVE` where the system has it), or nil.
    package static func reserveAnonymous(bytes: Int) -> UnsafeMutableRawPointer? {
        #if canImport(Glibc)
        let flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
        #else
        let flags = MAP_PRIVATE | MAP_ANON
        #endif
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, flags, -1, 0), p != MAP_FAILED else { return nil }
        return p
    }

    /// Unmaps a mapping made by ``mapReadOnly(_:size:)`` or ``reserveAnonymous(bytes:)``.
    package static func unmap(_ base: UnsafeRawPointer, size: Int) {
        munmap(UnsafeMutableRawPointer(mutating: base), size)
    }

    /// Tells the system a mapping will be read in order.
    package static func adviseSequential(_ base: UnsafeRawPointer, size: Int) {
        madvise(UnsafeMutableRawPointer(mutating: base), size, MADV_SEQUENTIAL)
    }

    /// Asks for a pipe's buffer of at least `bytes` (Linux: `F_SETPIPE_SZ`, capped by the
    /// system's `pipe-max-size`, and only when the pipe's is smaller: never shrunk; elsewhere
    /// nothing), so the writer at its other end can run further ahead of the reader. Returns
    /// whether the pipe has that room now; a refusal changes nothing.
    @discardableResult
    package static func enlargePipe(_ fd: Int32, bytes: Int) -> Bool {
        #if canImport(Glibc)
        let current = fcntl(fd, 1032 /* F_GETPIPE_SZ */)
        guard current >= 0 else { return false }  // not a pipe
        if Int(current) >= bytes { return true }
        return fcntl(fd, 1031 /* F_SETPIPE_SZ */, Int32(clamping: bytes)) >= 0
        #else
        return false
        #endif
    }

    /// Waits up to `milliseconds` for `fd` to have something for `read`: bytes, its end, or an
    /// error (each makes the next read return at once). False when the time ran out first. A
    /// `poll` that fails for any reason other than a signal answers true: the caller's read
    /// then decides, as it would have without asking.
    package static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let n = poll(&entry, 1, milliseconds)
            if n < 0 && errno == EINTR { continue }
            return n != 0
        }
    }

    /// Drops a mapping's pages from this process (they read back from the file, or as zeros
    /// for anonymous memory). `base` must be page-aligned.
    package static func adviseDontNeed(_ base: UnsafeRawPointer, size: Int) {
        madvise(UnsafeMutableRawPointer(mutating: base), size, MADV_DONTNEED)
    }

    /// ``adviseDontNeed(_:size:)`` for the pages wholly inside `[start, start + bytes)` (none
    /// when no whole page is): the one rounding the mapped readers and stores share.
    package static func dropPages(inside start: UnsafeRawPointer, bytes: Int) {
        let first = (Int(bitPattern: start) + pageSize - 1) / pageSize * pageSize
        let last = (Int(bitPattern: start) + Swift.max(0, bytes)) / pageSize * pageSize
        if last > first { adviseDontNeed(UnsafeRawPointer(bitPattern: first)!, size: last - first) }
    }

    /// The process's address-space limit in bytes (`ulimit -v`, `prlimit --as`), or nil when
    /// there is none. Read, never set.
    package static var addressSpaceLimit: Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_AS.rawValue)
        #else
        let resource = RLIMIT_AS
        #endif
        // RLIM_INFINITY is all ones (it does not import as a constant on Linux).
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Under an address-space limit, keeps the C library to one heap for all threads: glibc
    /// gives each thread that allocates its own heap of 64 MiB of address space (reserved,
    /// not used), which a limit counts in full. No effect without a limit, or on Darwin.
    package static func shareOneHeapUnderAddressSpaceLimit() {
        #if canImport(Glibc)
        // mallopt is not in the Glibc module (malloc.h): looked up by name. M_ARENA_MAX is -8.
        guard addressSpaceLimit != nil, let symbol = dlsym(nil, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        _ = unsafeBitCast(symbol, to: Mallopt.self)(-8, 1)
        #endif
    }

    /// `malloc`, which returns nil when refused (Swift's allocation traps instead).
    package static func allocate(bytes: Int) -> UnsafeMutableRawPointer? { malloc(bytes) }

    /// `realloc`: `pointer`'s block (from ``allocate(bytes:)``) resized to `bytes`, its
    /// contents kept, or nil when refused (the block is then untouched). Large blocks grow by
    /// remapping their pages (glibc's `mremap`), not by copying them.
    package static func reallocate(_ pointer: UnsafeMutableRawPointer, bytes: Int) -> UnsafeMutableRawPointer? {
        realloc(pointer, bytes)
    }

    /// True when `bytes` more of address space can be had right now: a writable mapping of
    /// that size is made and dropped at once, touching nothing. It fails where the allocation
    /// it stands for would: under an address-space limit (`ulimit -v`) and under strict
    /// overcommit accounting.
    package static func canReserve(bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0), p != MAP_FAILED else {
            return false
        }
        munmap(p, bytes)
        return true
    }

    /// Frees what ``allocate(bytes:)`` returned.
    package static func free(_ pointer: UnsafeMutableRawPointer) {
        #if canImport(Glibc)
        Glibc.free(pointer)
        #else
        Darwin.free(pointer)
        #endif
    }

    /// This process's peak resident set size in bytes (0 when unknown).
    ///
    /// Linux: `VmHWM` of /proc/self/status (getrusage's `ru_maxrss` would carry over the
    /// parent's peak across fork and exec). macOS: `ru_maxrss`, which Darwin gives in bytes.
    package static func peakResidentBytes() -> Int {
        #if canImport(Glibc)
        guard let value = statusField("VmHWM:") else { return 0 }
        return (Int(value.filter(\.isNumber)) ?? 0) * 1024  // the kernel reports kB
        #else
        return selfUsage().map { Int($0.ru_maxrss) } ?? 0
        #endif
    }

    /// This process's resource usage so far (`getrusage(RUSAGE_SELF)`), or nil.
    private static func selfUsage() -> rusage? {
        var usage = rusage()
        #if canImport(Glibc)
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        #endif
        return usage
    }

    /// Page faults the process has taken without reading from disk (`ru_minflt`): mostly
    /// first touches of fresh memory, which the kernel must clear (for profiling).
    package static func minorPageFaults() -> Int {
        selfUsage().map { Int($0.ru_minflt) } ?? 0
    }

    /// CPU seconds the process has used so far, all threads, user and system.
    package static func processorSeconds() -> Double {
        guard let usage = selfUsage() else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    // MARK: Time, processes, numbers

    /// Seconds on the monotonic clock (for durations only).
    package static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Nanoseconds since 1970 on the real-time clock: the clock file times are stamped from.
    package static func wallClockNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }

    /// Sleeps for `seconds` (`nanosleep`; an interrupted sleep just ends early).
    package static func sleep(seconds: Double) {
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        _ = nanosleep(&time, nil)
    }

    /// The one-minute load average (NaN when unknown): machines are shared, and a high value
    /// explains a slow benchmark run.
    package static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : .nan
    }

    /// The cores this process may run on (at least 1), read once: on Linux the CPUs of its
    /// affinity mask (`taskset`, a container's cpuset: `Cpus_allowed` in `/proc/self/status`),
    /// or fewer when a cgroup CPU quota allows fewer (``CPUQuota``: `docker run --cpus`, a
    /// Kubernetes CPU limit); elsewhere the cores online. The default thread count, and
    /// whether a ``WorkerPool``'s threads may spin while they wait, follow it.
    package static var coreCount: Int { allowedCores }

    private static let allowedCores: Int = {
        let cores = affinityCores
        #if canImport(Glibc)
        // `mountinfo` passes 1 MiB on hosts with thousands of mounts (a busy container node).
        if let quota = CPUQuota.cores(read: { smallTextFile($0, limit: 16 << 20) }) { return Swift.min(cores, quota) }
        #endif
        return cores
    }()

    /// The text of a small file (a `/proc` or `/sys` one, whose size is not known before it is
    /// read), nil when it cannot be read or passes `limit` bytes.
    package static func smallTextFile(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = openForReading(path)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(fd, into: $0.baseAddress!, count: $0.count) }
            if got < 0 { return nil }
            if got == 0 { break }
            bytes.append(contentsOf: chunk[0..<got])
            if bytes.count > limit { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of a line of `/proc/self/status` (what follows `key`, e.g. `"VmHWM:"`), nil
    /// when the file or the line is missing.
    private static func statusField(_ key: String) -> Substring? {
        guard let status = smallTextFile("/proc/self/status"),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) })
        else { return nil }
        return line.dropFirst(key.count)
    }

    /// The CPUs of the affinity mask, or the cores online.
    private static let affinityCores: Int = {
        let online = Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #if canImport(Glibc)
        // `sched_getaffinity` is not in Swift's Glibc module (it needs _GNU_SOURCE).
        guard let mask = statusField("Cpus_allowed:") else { return online }
        let allowed = mask.reduce(0) { sum, c in sum + (c.hexDigitValue?.nonzeroBitCount ?? 0) }
        return allowed > 0 ? Swift.min(allowed, online) : online
        #else
        return online
        #endif
    }()

    /// This process's id.
    package static var processID: Int32 { getpid() }

    /// True while a process with this id exists (`kill(pid, 0)`: only "no such process" says
    /// it is gone; a process of another user still exists).
    package static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno != ESRCH
    }

    /// What ``runAndWait(_:silencingOutput:)`` measured of a child process.
    package struct ChildRun: Sendable {
        /// The exit status (0…255), or 128 + the signal that ended it.
        package var status: Int32
        /// Wall time from just before `posix_spawn` to the return of `wait4`.
        package var seconds: Double
        /// The child's peak resident set size (`ru_maxrss`), in bytes.
        package var peakResidentBytes: Int
    }

    /// Runs `arguments[0]` (a path) with `arguments` and waits for it: `posix_spawn` and
    /// `wait4`, so the wall time is the child's own (Foundation's `Process` added about 40 ms
    /// to each run here) and its peak memory comes from the kernel. Standard output (and
    /// standard error) go to `/dev/null` when `silencingOutput`. Nil when it cannot be started.
    package static func runAndWait(_ arguments: [String], silencingOutput: Bool = true) -> ChildRun? {
        guard let path = arguments.first else { return nil }
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if silencingOutput {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for case let a? in argv { free(UnsafeMutableRawPointer(a)) } }
        #if canImport(Glibc)
        let environment = environ
        #else
        let environment = _NSGetEnviron().pointee
        #endif
        var pid: pid_t = 0
        let start = monotonicSeconds()
        guard posix_spawn(&pid, path, &actions, nil, argv, environment) == 0 else { return nil }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { return nil }
        }
        let seconds = monotonicSeconds() - start
        // The wait status: low 7 bits the signal (0: exited), bits 8–15 the exit code.
        let signal = status & 0x7F
        #if canImport(Glibc)
        let peak = Int(usage.ru_maxrss) * 1024  // kB on Linux
        #else
        let peak = Int(usage.ru_maxrss)  // bytes on macOS
        #endif
        return ChildRun(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, seconds: seconds, peakResidentBytes: peak)
    }

    /// Ends a process at once (`SIGKILL`), as a crash or the out-of-memory killer would; tests
    /// use it. False when the signal could not be sent.
    @discardableResult
    package static func killAtOnce(_ pid: Int32) -> Bool { kill(pid, SIGKILL) == 0 }

    /// True when this process runs under AddressSanitizer or ThreadSanitizer (their runtimes
    /// export `__asan_init` / `__tsan_init`): their memory overhead voids resident-memory bounds.
    package static var underSanitizer: Bool {
        #if canImport(Glibc)
        let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #else
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #endif
        return dlsym(everywhere, "__asan_init") != nil || dlsym(everywhere, "__tsan_init") != nil
    }

    // MARK: Threads

    /// A mutual-exclusion lock on a heap-allocated `pthread_mutex_t` (never moved, as POSIX
    /// requires), for state kept beside the lock rather than inside it.
    ///
    /// Why not the standard library's `Mutex` for such state: ThreadSanitizer does not see the
    /// ordering it gives once it is contended. Its fast path is an inlined atomic TSan sees,
    /// but its contended path hands the lock over through a futex in the Synchronization
    /// library, which is not built with TSan; an access under the lock then looks unordered
    /// with the previous holder's, and `make sanitize` printed 75 such false reports for
    /// `InOrderCommits` (every access inside the lock). TSan intercepts `pthread_mutex_lock`
    /// and `pthread_mutex_unlock`, so the ordering this lock gives is seen, and a report left
    /// is a real race.
    package final class Lock: @unchecked Sendable {
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>

        package init() {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let code = pthread_mutex_init(mutex, nil)
            precondition(code == 0, "pthread_mutex_init: \(Platform.describe(code))")
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            mutex.deallocate()
        }

        /// Runs `body` holding the lock (not reentrant: `body` must not take it again).
        @inline(__always)
        package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body()
        }
    }

    /// A number for the calling thread, the same for its whole life and different from every
    /// other running thread's (`pthread_self`; tests check which thread ran a pool's worker).
    package static func currentThread() -> UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    /// Starts a detached thread with a `stackSize`-byte stack that runs `body`.
    ///
    /// - Returns: nil when the thread runs, else why it could not be created (the error of
    ///   `pthread_create`: no memory for its stack, or the system's thread limit). Unlike
    ///   Foundation's `Thread.start()`, a failure is reported, so no one waits for a thread
    ///   that never existed.
    package static func startThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) -> String? {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
        var thread = pthread_t()
        let code = pthread_create(&thread, &attributes, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        #else
        var thread: pthread_t? = nil
        let code = pthread_create(&thread, &attributes, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, box)
        #endif
        guard code == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return describe(code)
        }
        return nil
    }

    /// Runs `handler` when the process exits normally (`atexit`): the tests remove their
    /// temporary folder this way.
    package static func atExit(_ handler: @escaping @convention(c) () -> Void) { atexit(handler) }

    /// Ends the process with `status`, without running anything further.
    package static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }

    /// The value of environment variable `name`, or nil when it is not set.
    package static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// Sets environment variable `name` for this process and the processes it starts from
    /// now on (nil: unsets it). Not thread-safe: for tools, before threads start.
    package static func setEnvironment(_ name: String, _ value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }

    /// Writes `text` to standard error at once (unbuffered, whole).
    package static func writeStandardError(_ text: String) { write(text, to: 2) }

    /// Writes `text` to standard output at once (unbuffered, whole).
    package static func writeStandardOutput(_ text: String) { write(text, to: 1) }

    private static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { _ = writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Flushes the C library's output streams (for tools that mix `print` and raw writes).
    package static func flushStandardStreams() { fflush(nil) }

    /// `strtod` of a NUL-terminated decimal: the correctly rounded value and the bytes it read.
    package static func parseDouble(_ text: UnsafePointer<CChar>) -> (value: Double, consumed: Int) {
        var end: UnsafeMutablePointer<CChar>? = nil
        let value = strtod(text, &end)
        return (value, end.map { $0 - UnsafeMutablePointer(mutating: text) } ?? 0)
    }

    /// The index of the first line break (0x0A) in `base[from ..< to]`, or `to` (`memchr`,
    /// which is vectorised: several times faster than a byte loop on 40-byte lines).
    @inline(__always)
    package static func firstLineBreak(in base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        guard let found = memchr(base + from, 0x0A, to - from) else { return to }
        return UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
    }

    /// Compares `count` bytes (`memcmp`): true when equal.
    @inline(__always)
    package static func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(a, b, count) == 0
    }

    /// Compares `count` bytes (`memcmp`): negative, zero or positive as `a` sorts before,
    /// equal to or after `b`.
    @inline(__always)
    package static func compareBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Int32 {
        memcmp(a, b, count)
    }
}

/// What a new thread runs (boxed to pass through `pthread_create`'s context pointer).
private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

extension Platform.FileStatus {
    init(_ st: stat) {
        let type = st.st_mode & S_IFMT
        kind = type == S_IFREG ? .regular : type == S_IFDIR ? .directory : .other
        size = Int(st.st_size)
        device = UInt64(truncatingIfNeeded: st.st_dev)
        inode = UInt64(truncatingIfNeeded: st.st_ino)
        func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) &* 1_000_000_000 &+ Int64(t.tv_nsec) }
        #if canImport(Glibc)
        modified = nanoseconds(st.st_mtim)
        changed = nanoseconds(st.st_ctim)
        #else
        modified = nanoseconds(st.st_mtimespec)
        changed = nanoseconds(st.st_ctimespec)
        #endif
    }
}

/// Compiled fence files that passed a full check, so opening one again while it is unchanged
/// can skip its checksums (``FenceSet/Verification/onceUntilChanged(recordsIn:)``).
///
/// Checking every section's digest reads every byte of the file: 45–75 ms for a million
/// fences (1.06 GB) on two cores, each time a command opens it. A record makes that cost
/// once per file, as git's index does for the files it has hashed.
///
/// One text file, `verified-fence-files`, in a folder the caller names. A line per verified
/// file: `device inode size modified changed contentHash` (times in nanoseconds, the hash in
/// hexadecimal). A file matches a line only when all six agree:
/// - a write to a file sets its change time, and no call sets that back (`touch -d` can
///   restore the modification time, not the change time; only moving the system clock back
///   can);
/// - a copy, or a file compiled again under the same name, is another inode;
/// - the content hash is the header's hash of the section table, which holds every
///   section's digest: a record names the bytes that were verified.
/// What a record cannot see: damage under the file system (a disk changing a block in place,
/// or a crash in the middle of a write), and a process that keeps writing through a shared
/// mapping it had already written through before the check (a page that stays dirty is not
/// stamped again). `geofence validate` checks in full every time.
///
/// The records are a cache, never an input that can fail a command: a line that does not
/// parse is ignored (its file is checked in full), a folder that cannot be written only means
/// no record. The file is rewritten atomically and keeps the newest ``capacity`` records.
package struct FenceFileRecords: Sendable {
    /// One verified file.
    package struct Entry: Equatable, Sendable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int
        package var modified: Int64
        package var changed: Int64
        package var contentHash: UInt64

        /// The entry of a file with this status (taken from the descriptor that was read) and
        /// the content hash in its header.
        package init(status: Platform.FileStatus, contentHash: UInt64) {
            device = status.device; inode = status.inode; size = status.size
            modified = status.modified; changed = status.changed
            self.contentHash = contentHash
        }

        var line: String {
            "\(device) \(inode) \(size) \(modified) \(changed) \(String(contentHash, radix: 16))"
        }

        init?(line: Substring) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 6, let device = UInt64(fields[0]), let inode = UInt64(fields[1]),
                let size = Int(fields[2]), let modified = Int64(fields[3]), let changed = Int64(fields[4]),
                let hash = UInt64(fields[5], radix: 16)
            else { return nil }
            self.device = device; self.inode = inode; self.size = size
            self.modified = modified; self.changed = changed; contentHash = hash
        }
    }

    /// The folder the records file lives in.
    package let folder: String
    package static let fileName = "verified-fence-files"
    /// Lines kept: the newest.
    package static let capacity = 256
    /// The first line; a file that does not start with it is not read.
    static let firstLine = "geofence verified fence files, format 1"
    /// A records file larger than this is not read (it is not ours, or damaged).
    static let maximumBytes = 64 << 10

    package init(folder: String) { self.folder = folder }

    /// The records file's path.
    package var path: String { folder.hasSuffix("/") ? folder + Self.fileName : folder + "/" + Self.fileName }

    /// The records, oldest first; [] when there are none or the file is not one.
    /// - Complexity: O(capacity).
    package func entries() -> [Entry] {
        guard let status = Platform.status(atPath: path), status.kind == .regular, status.size <= Self.maximumBytes,
            let bytes = try? FileBytes.read(path, maximumBytes: Self.maximumBytes)
        else { return [] }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.first == Substring(Self.firstLine) else { return [] }
        return lines.dropFirst().compactMap { Entry(line: $0) }
    }

    /// What an open of a file whose record would be `entry` (nil: bytes in memory) does: check
    /// the digests or not, and after a full check record the file where (nil: nowhere). With
    /// ``FenceSet/Verification/onceUntilChanged(recordsIn:)`` a recorded file skips the
    /// digests and another is recorded there; `recordIn` records after any full check. When it
    /// will record, it first waits for ``settleDelay(changed:now:)`` (at most 20 ms), or does
    /// not record.
    package static func plan(
        _ verification: FenceSet.Verification, recordIn: String?, entry: Entry?
    ) -> (checkDigests: Bool, recordIn: FenceFileRecords?) {
        guard verification != .structure else { return (false, nil) }
        var records = recordIn.map { FenceFileRecords(folder: $0) }
        if case .onceUntilChanged(let folder) = verification, let entry {
            let known = FenceFileRecords(folder: folder)
            if known.contains(entry) { return (false, nil) }
            records = records ?? known
        }
        guard let target = records, let entry else { return (true, nil) }
        guard let wait = settleDelay(changed: entry.changed, now: Platform.wallClockNanoseconds()) else { return (true, nil) }
        if wait > 0 { Platform.sleep(seconds: Double(wait) * 1e-9) }
        return (true, target)
    }

    /// True when `entry` was recorded.
    package func contains(_ entry: Entry) -> Bool { entries().contains(entry) }

    /// True when the compiled file at `path`, as it is now, is recorded.
    package func contains(file path: String) -> Bool {
        let fd = Platform.openForReading(path)
        guard fd >= 0 else { return false }
        defer { Platform.close(fd) }
        var header = [UInt8](repeating: 0, count: FenceFileFormat.headerSize)
        let n = header.withUnsafeMutableBytes { Platform.read(fd, into: $0.baseAddress!, count: $0.count) }
        guard n == header.count, let status = Platform.status(of: fd) else { return false }
        let hash = header.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 32, as: UInt64.self)) }
        return contains(Entry(status: status, contentHash: hash))
    }

    /// Records `entry`, the file at `verified` as its full check found it, as the newest,
    /// keeping ``capacity`` records. Made only if the file's status is still the one that was
    /// checked (a write during the check, in a later clock tick, changed it); the caller has
    /// waited for ``settleDelay(changed:now:)`` before the check. Best effort: false when the
    /// status changed or the folder or file cannot be written; nothing else changes then.
    @discardableResult
    package func add(_ entry: Entry, file verified: String) -> Bool {
        guard let now = Platform.status(atPath: verified), Entry(status: now, contentHash: entry.contentHash) == entry,
            Platform.makeFolders(folder)
        else { return false }
        var kept = entries().filter { $0 != entry }
        kept.append(entry)
        kept.removeFirst(Swift.max(0, kept.count - Self.capacity))
        let text = ([Self.firstLine] + kept.map(\.line)).joined(separator: "\n") + "\n"
        do {
            let writer = try AtomicFileWriter(path: path)
            try writer.write(Array(text.utf8))
            try writer.commit()
            return true
        } catch {
            return false
        }
    }

    /// How old a file's change time must be when its full check starts, for the check to be
    /// recorded: two ticks of the 10 ms clock file systems stamp times with.
    package static let settleNanoseconds: Int64 = 20_000_000

    /// Nanoseconds to wait, before a full check that is to be recorded, for the file's change
    /// time `changed` to lie ``settleNanoseconds`` behind the clock (0: it does), or nil when
    /// the check should not be recorded: its times are whole seconds (a file system with coarse
    /// times) and it changed less than two seconds ago, or it changed in the future (a file
    /// server whose clock runs ahead).
    ///
    /// File systems stamp times from a coarse clock, which lags the real one by up to a tick.
    /// A write in the same tick as the file's last one could leave its change time as it was;
    /// once the coarse clock has passed that time, every later write, one racing the check
    /// included, stamps a later one. As git does for its index, the check waits until then.
    package static func settleDelay(changed: Int64, now: Int64) -> Int64? {
        let settle = changed % 1_000_000_000 == 0 ? 2_000_000_000 : settleNanoseconds
        let wait = changed &+ settle &- now
        if wait <= 0 { return 0 }
        return wait <= settleNanoseconds ? wait : nil
    }

    /// Where the command line keeps its records: `$GEOFENCE_CACHE_DIR` (set but empty: none,
    /// so every open checks in full; a relative path is taken from the working folder), else
    /// `$XDG_CACHE_HOME/geofence` when that is an absolute path (the XDG rule), else
    /// `$HOME/.cache/geofence`; nil when none can be named.
    package static func commandLineFolder() -> String? {
        if let folder = Platform.environment("GEOFENCE_CACHE_DIR") { return folder.isEmpty ? nil : folder }
        if let cache = Platform.environment("XDG_CACHE_HOME"), cache.hasPrefix("/") { return cache + "/geofence" }
        if let home = Platform.environment("HOME"), !home.isEmpty { return home + "/.cache/geofence" }
        return nil
    }
}

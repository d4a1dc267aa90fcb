/// Opens a compiled fence file: header, section table, digests, structure; then the set's
/// buffers are views of the mapping (layout in `FenceFileFormat`).
enum FenceFileReader {
    /// One entry of the section table.
    struct Entry {
        var id: FenceSectionID
        var elementSize: Int
        var offset: Int
        var byteCount: Int
        var digest: UInt64
    }

    /// The set in `bytes`, whose memory `keeper` keeps alive (a ``MappedFile``, or a copy).
    ///
    /// - Parameters:
    ///   - name: the file's path, for messages.
    ///   - identity: what `fstat` said of the file the bytes are mapped from (nil for bytes
    ///     in memory): with `.onceUntilChanged` it is looked up in, and after a full check
    ///     added to, the records.
    ///   - recordIn: a records folder to add the file to after a full check, whatever
    ///     `verification` says (`geofence validate`).
    /// - Returns: the set, and whether the sections' digests were checked.
    /// - Throws: ``FileError`` naming the file and what is wrong: too short, not a compiled
    ///   file, another format version, a damaged header, table or section (checksums), or
    ///   content that breaks the layout's rules.
    /// - Complexity: O(size / threads) for the digests and checks; nothing is parsed or copied.
    static func read(
        _ bytes: UnsafeRawBufferPointer, keeper: AnyObject, name: String, verification: FenceSet.Verification = .full,
        identity: Platform.FileStatus? = nil, recordIn: String? = nil
    ) throws(FileError) -> (set: FenceSet, checkedDigests: Bool) {
        func fail(_ reason: String) -> FileError { FileError(path: name, reason: reason) }
        let headerSize = FenceFileFormat.headerSize
        guard FenceFileFormat.hasMagic(bytes) else {
            throw fail("not a compiled fence file (it does not start with the magic bytes \\x89GFS)")
        }
        guard bytes.count >= headerSize else {
            throw fail("truncated: \(bytes.count) bytes, shorter than the \(headerSize)-byte header of a compiled fence file")
        }
        func word32(_ at: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        func word64(_ at: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        var header = Array(bytes[0..<headerSize])
        header.replaceSubrange(40..<48, with: repeatElement(0, count: 8))
        let headerIntact = header.withUnsafeBytes { XXH64.hash($0) } == word64(40)
        let version = word32(8)
        if version != FenceFileFormat.version {
            let damaged = headerIntact ? "" : " (or its header is damaged)"
            throw fail("compiled fence file format version \(version)\(damaged); this build reads version \(FenceFileFormat.version): compile the fences again with this build (`geofence compile`)")
        }
        guard headerIntact else { throw fail("damaged: the header does not match its checksum") }
        let fileSize = word64(16)
        guard fileSize == UInt64(bytes.count) else {
            let what = fileSize > UInt64(bytes.count) ? "truncated" : "damaged (bytes added after its end)"
            throw fail("\(what): \(bytes.count) bytes, the header says \(fileSize)")
        }
        let sectionCount = Int(word32(12))
        let tableEnd = FenceFileFormat.padded(headerSize + sectionCount * FenceFileFormat.entrySize)
        guard sectionCount <= 4096, tableEnd <= bytes.count else {
            throw fail("damaged: the header's section count \(sectionCount) does not fit the file")
        }
        guard XXH64.hash(UnsafeRawBufferPointer(rebasing: bytes[headerSize..<tableEnd])) == word64(32) else {
            throw fail("damaged: the section table does not match the content hash")
        }
        var entries: [Entry] = []
        var end = tableEnd
        for k in 0..<sectionCount {
            let at = headerSize + k * FenceFileFormat.entrySize
            let entry = Entry(
                id: FenceSectionID(raw: word32(at)), elementSize: Int(word32(at + 4)),
                offset: Int(truncatingIfNeeded: word64(at + 8)), byteCount: Int(truncatingIfNeeded: word64(at + 16)),
                digest: word64(at + 24))
            guard entry.offset == end, entry.byteCount >= 0, entry.byteCount <= bytes.count - end,
                FenceFileFormat.elementSizes.contains(entry.elementSize), entry.byteCount % entry.elementSize == 0
            else { throw fail("damaged: section \(k) (\(entry.id)) is not where the layout puts it") }
            end += FenceFileFormat.padded(entry.byteCount)
            entries.append(entry)
        }
        guard end == bytes.count else { throw fail("damaged: the sections end at byte \(end), the file at \(bytes.count)") }
        // The table (and so every digest) is intact: a record of this file, if any, names it.
        let entry = identity.map { FenceFileRecords.Entry(status: $0, contentHash: word64(32)) }
        let (checkDigests, records) = FenceFileRecords.plan(verification, recordIn: recordIn, entry: entry)
        // META is read before the other sections' digests are checked: a damaged one is
        // reported as damaged, not as inconsistent numbers (its digest is one short block).
        if checkDigests, let entry = entries.first(where: { $0.id == FenceSectionID.meta }) {
            let padded = FenceFileFormat.padded(entry.byteCount)
            let region = FenceFileDigest.Region(
                payload: UnsafeRawBufferPointer(rebasing: bytes[entry.offset..<(entry.offset + padded)]), paddedLength: padded)
            guard FenceFileDigest.digests([region], threads: 1)[0] == entry.digest else {
                throw fail("damaged: section META does not match its checksum (the file was changed or corrupted)")
            }
        }
        let meta = try FenceFileLayout(entries: entries, bytes: bytes, keeper: keeper, name: name)
        guard UInt64(meta.meta.count) == word64(24) else {
            throw fail("inconsistent: the header counts \(word64(24)) fences, the META section \(meta.meta.count)")
        }
        // Digests and structure checks together, on every core.
        let checks = meta.checks()
        let problems = DisjointSlots<String?>(repeating: nil, count: checks.count)
        let regions = !checkDigests ? [] : entries.map {
            FenceFileDigest.Region(
                payload: UnsafeRawBufferPointer(rebasing: bytes[$0.offset..<($0.offset + FenceFileFormat.padded($0.byteCount))]),
                paddedLength: FenceFileFormat.padded($0.byteCount))
        }
        let digests = FenceFileDigest.digests(regions, threads: Platform.coreCount, extraCount: checks.count) { k in
            problems[k] = checks[k].run()
        }
        for (k, entry) in entries.enumerated() where k < digests.count && digests[k] != entry.digest {
            throw fail("damaged: section \(entry.id) does not match its checksum (the file was changed or corrupted)")
        }
        if let problem = problems.storage.lazy.compactMap({ $0 }).first { throw fail("inconsistent: \(problem)") }
        var recorded = false
        if let records, let entry { recorded = records.add(entry, file: name) }
        PhaseTrace.mark(
            checkDigests ? "compiled file: checksums and structure" + (recorded ? " (recorded)" : "")
                : "compiled file: structure (checksums skipped: unchanged since checked)")
        return (FenceSet(storage: meta.storage(), repairedCount: meta.meta.repairedCount), checkDigests)
    }
}

extension FenceSet {
    /// How much of a compiled fence file is checked when it is opened.
    public enum Verification: Sendable, Equatable {
        /// Everything: the header, the section table, every section's checksum (so a bit flipped
        /// anywhere is found) and the structure. Reads every byte of the file once, on every core.
        case full
        /// The header, the section table and the structure (what keeps every read in bounds), but
        /// not the sections' checksums: for a file already verified (say with `geofence validate`
        /// after it was copied), opened again and again. Reads the offset and index sections only.
        case structure
        /// ``full`` the first time, then ``structure`` while the file is unchanged: a file that
        /// passes a full check is recorded in the folder `recordsIn` (made when missing), and an
        /// open that finds it there, with the same device, inode, size, modification and change
        /// times and content hash, skips the checksums. A write to the file changes its change
        /// time, so a changed file is checked in full again; a copy is another file. What it does
        /// not see: damage under the file system (a disk changing a block in place, a crash in
        /// the middle of a write), and a process that keeps writing through a shared mapping it
        /// wrote through before the check. The command line opens with this, the records in
        /// `$GEOFENCE_CACHE_DIR` (empty: none), `$XDG_CACHE_HOME/geofence` or `~/.cache/geofence`.
        case onceUntilChanged(recordsIn: String)
    }
}

/// Memory that a compiled set read from bytes in memory (not a file) lives in.
final class OwnedBytes: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer

    /// A 64-byte-aligned copy of `source`.
    init(copying source: UnsafeRawBufferPointer) {
        let base = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, source.count), alignment: 64)
        if let from = source.baseAddress { base.copyMemory(from: from, byteCount: source.count) }
        bytes = UnsafeRawBufferPointer(start: base, count: source.count)
    }

    deinit { UnsafeMutableRawPointer(mutating: bytes.baseAddress!).deallocate() }
}

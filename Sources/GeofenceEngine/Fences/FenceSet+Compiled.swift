/// Compiled fence files: a set written once (`geofence compile`) and opened in milliseconds.
extension FenceSet {
    /// Writes the set as a compiled fence file, atomically (it appears complete or not at all).
    ///
    /// - Returns: the file's size in bytes.
    /// - Throws: ``FileError`` naming the path when it cannot be written.
    @discardableResult
    public func write(to path: String) throws(FileError) -> Int {
        try FenceFileWriter.write(self, to: path)
    }

    /// Writes the set as a compiled fence file, atomically, then reads it back with every
    /// checksum (as ``open(path:verification:)`` does with `.full`: what reached the file is
    /// what was meant) and records it in the folder `recordingIn`, so that opening it with
    /// ``FenceSet/Verification/onceUntilChanged(recordsIn:)`` skips the checksums until it
    /// changes. The record is best effort.
    ///
    /// - Returns: the file's size in bytes.
    /// - Throws: ``FileError`` naming the path when it cannot be written, or when what was
    ///   read back does not pass its checks.
    /// - Complexity: O(size), the digests twice (once written, once read back).
    @discardableResult
    public func write(to path: String, recordingIn records: String) throws(FileError) -> Int {
        let size = try FenceFileWriter.write(self, to: path)
        do {
            _ = try Self.openReporting(path: path, verification: .full, recordIn: records)
        } catch {
            throw FileError(path: path, reason: "written, but reading it back failed: \(error.reason)")
        }
        return size
    }

    /// Opens a compiled fence file: the set's arrays are read-only views of the mapped file, so
    /// nothing is parsed or copied; every section's checksum and the file's structure are
    /// checked first, on every core (`verification: .structure` skips the checksums, see
    /// ``FenceSet/Verification``).
    ///
    /// The file must not be changed while the set is in use (the pages are read from it).
    /// - Throws: ``FileError`` naming the file and what is wrong: unreadable, not a
    ///   compiled fence file, another format version, truncated, damaged (a checksum), or
    ///   inconsistent.
    /// - Complexity: O(size / cores) for the checks.
    public static func open(path: String, verification: FenceSet.Verification = .full) throws(FileError) -> FenceSet {
        try openReporting(path: path, verification: verification).set
    }

    /// ``open(path:verification:)`` that also says whether the checksums were checked (false
    /// for `.structure`, or a file its records know unchanged); `recordIn` adds the file to
    /// a records folder after a full check, whatever `verification` is (`geofence validate`).
    package static func openReporting(
        path: String, verification: FenceSet.Verification, recordIn: String? = nil
    ) throws(FileError) -> (set: FenceSet, checkedDigests: Bool) {
        let file: MappedFile
        do {
            file = try MappedFile(path: path)
        } catch {
            throw FileError(path: path, reason: error.reason)
        }
        // The set is read in place; what it allocates beside the mapping (tables by slot, the
        // evaluators' state) is asked for first, so a memory limit is an error, not a trap.
        if let problem = MemoryHeadroom.refusal(
            bytes: file.bytes.count / 8, for: "opening \(MemoryHeadroom.mebibytes(file.bytes.count)) MiB of compiled fences",
            advice: "raise the limit")
        {
            throw FileError(path: path, reason: problem)
        }
        return try FenceFileReader.read(
            file.bytes, keeper: file, name: path, verification: verification, identity: file.status, recordIn: recordIn)
    }

    /// A compiled fence file's set from bytes in memory (copied first): the entry point for
    /// tests and fuzzing of the reader. `name` stands for the file in messages.
    package static func open(bytes: UnsafeRawBufferPointer, name: String = "<bytes>") throws(FileError) -> FenceSet {
        let copy = OwnedBytes(copying: bytes)
        return try FenceFileReader.read(copy.bytes, keeper: copy, name: name).set
    }

    /// True when the file at `path` starts as a compiled fence file does (else it is taken
    /// for GeoJSON); false when it cannot be read.
    public static func isCompiled(path: String) -> Bool {
        let fd = Platform.openForReading(path)
        guard fd >= 0 else { return false }
        defer { Platform.close(fd) }
        var head = [UInt8](repeating: 0, count: FenceFileFormat.magic.count)
        let n = head.withUnsafeMutableBytes { Platform.read(fd, into: $0.baseAddress!, count: $0.count) }
        return n == head.count && head.withUnsafeBytes { FenceFileFormat.hasMagic($0) }
    }
}

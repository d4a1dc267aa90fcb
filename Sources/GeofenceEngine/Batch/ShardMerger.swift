import HeapModule

/// Merges the NDJSON event files of `--shard K/N` runs (or of hash-partitioned jobs) into the
/// one-process output.
///
/// Every shard's file is ordered by device id, and a device lives in exactly one shard, so
/// the merge takes whole runs of one device's lines, smallest device id first (UTF-8 byte
/// order of the unescaped id). The result equals the unsharded output byte for byte.
///
/// It streams on bytes: each file is read in blocks (mapped when it is a regular file), a
/// line's top-level `deviceId` is found by a short scan of the line's start (no JSON parse),
/// and a device's run is written as one contiguous range of the block. Blank lines are
/// dropped and a last line without a line break gets one, as when the lines are re-read.
package enum ShardMerger {
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    /// Merges `inputs` into `output`. Returns the number of lines written.
    ///
    /// - Throws: ``Failure`` when a line is not an event object (no top-level string
    ///   `deviceId`), a file is not ordered by device id, or one device appears in two files
    ///   (the files are not shards of one run); ``FileError`` when a file cannot be read
    ///   or the output written.
    /// - Complexity: O(B + D log k) for B bytes, D device runs and k files; memory is one
    ///   block per file (a view of the page cache for regular files).
    package static func merge(inputs: [String], output: OutputSink) throws -> Int {
        let written = try merge(inputs: inputs) { bytes in try output.write(bytes) }
        try output.flush()
        return written
    }

    /// Merges `inputs`, handing the output to `write` in ranges (a whole device's run of one
    /// block at a time; the bytes are valid only during the call).
    package static func merge(inputs: [String], write: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let cursors = try inputs.map { try EventLineCursor(path: $0) }
        var heap = Heap<HeapEntry>()
        for (i, cursor) in cursors.enumerated() where cursor.hasLine {
            heap.insert(HeapEntry(device: cursor.deviceKey(), input: i))
        }
        var written = 0
        var lastDevice: [UInt8]? = nil
        var lastInput = -1
        while let entry = heap.popMin() {
            if let last = lastDevice, last == entry.device, lastInput != entry.input {
                throw Failure(description: "device \(String(decoding: entry.device, as: UTF8.self)) appears in both \(inputs[lastInput]) and \(inputs[entry.input]): these are not shards of one run")
            }
            let cursor = cursors[entry.input]
            written += try cursor.copyRun(write: write)
            lastDevice = entry.device
            lastInput = entry.input
            if cursor.hasLine {
                let next = cursor.deviceKey()
                if !entry.device.lexicographicallyPrecedes(next) {
                    throw Failure(description: "\(inputs[entry.input]) line \(cursor.lineNumber): device ids are not in ascending order")
                }
                heap.insert(HeapEntry(device: next, input: entry.input))
            }
        }
        return written
    }

    struct HeapEntry: Comparable {
        /// The device id's UTF-8 bytes (unescaped).
        var device: [UInt8]
        var input: Int
        static func < (a: Self, b: Self) -> Bool {
            a.device != b.device ? a.device.lexicographicallyPrecedes(b.device) : a.input < b.input
        }
    }
}

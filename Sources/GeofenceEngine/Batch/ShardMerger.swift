import HeapModule

/// Merges the NDJSON event files of `--shard K/N` runs into the one-process output.
///
/// Every shard's file is ordered by device id, and a device lives in exactly one shard, so
/// the merge takes whole runs of one device's lines, smallest device id first (UTF-8 byte
/// order). The result equals the unsharded output byte for byte.
public enum ShardMerger {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Merges `inputs` into `output`. Returns the number of lines written.
    ///
    /// - Throws: ``Failure`` when a line is not an event object, a file is not ordered by
    ///   device id, or one device appears in two files (the files are not shards of one run).
    /// - Complexity: O(L log k) for L lines in k files; memory is one block per file.
    public static func merge(inputs: [String], output: OutputSink) throws -> Int {
        var cursors = try inputs.map { try Cursor(path: $0) }
        var heap = Heap<HeapEntry>()
        for (i, cursor) in cursors.enumerated() where cursor.device != nil {
            heap.insert(HeapEntry(device: cursor.device!, input: i))
        }
        var written = 0
        var lastDevice: [UInt8]? = nil
        var lastInput = -1
        while let entry = heap.popMin() {
            if let last = lastDevice, last == entry.device, lastInput != entry.input {
                throw Failure(description: "device \(String(decoding: entry.device, as: UTF8.self)) appears in both \(inputs[lastInput]) and \(inputs[entry.input]): these are not shards of one run")
            }
            // Copy this device's whole run from its file.
            let device = entry.device
            while let current = cursors[entry.input].device, current == device {
                try output.write(cursors[entry.input].line)
                written += 1
                try cursors[entry.input].advance()
            }
            lastDevice = device
            lastInput = entry.input
            if let next = cursors[entry.input].device {
                if !device.lexicographicallyPrecedes(next) {
                    throw Failure(description: "\(inputs[entry.input]) line \(cursors[entry.input].lineNumber): device ids are not in ascending order")
                }
                heap.insert(HeapEntry(device: next, input: entry.input))
            }
        }
        try output.flush()
        return written
    }

    struct HeapEntry: Comparable {
        var device: [UInt8]
        var input: Int
        static func < (a: Self, b: Self) -> Bool {
            a.device != b.device ? a.device.lexicographicallyPrecedes(b.device) : a.input < b.input
        }
    }

    /// One input file, positioned on a line (with its device id), or exhausted.
    struct Cursor {
        let path: String
        let reader: LineBlockReader
        var block: [[UInt8]] = []
        var position = 0
        var line: [UInt8] = []
        var device: [UInt8]? = nil
        var lineNumber = 0

        init(path: String) throws {
            self.path = path
            reader = try LineBlockReader(path: path, blockSize: 1 << 20)
            try advance()
        }

        mutating func advance() throws {
            while position >= block.count {
                guard let bytes = try reader.nextBlock() else {
                    device = nil
                    return
                }
                block = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map { Array($0) }
                position = 0
            }
            line = block[position] + [0x0A]
            position += 1
            lineNumber += 1
            guard case .object(let object)? = try? JSONParser.parse(Array(line.dropLast())),
                let id = object["deviceId"]?.stringValue
            else {
                throw Failure(description: "\(path) line \(lineNumber): not an event (a JSON object with a deviceId)")
            }
            device = Array(id.utf8)
        }
    }
}

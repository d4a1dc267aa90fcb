import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

@Suite("Line block reader")
struct LineBlockReaderTests {
    /// Lines come out as a plain split would give them, whatever the block size (including
    /// blocks smaller than a line, which must grow).
    @Test("lines equal a plain split for any block size", arguments: [64, 100, 1 << 20])
    func linesMatchSplit(blockSize: Int) throws {
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            var text = ""
            for _ in 0..<rng.int(0...400) {
                text += String(repeating: "x", count: rng.int(0...(rng.chance(0.05) ? 300 : 40)))
                text += rng.chance(0.1) ? "\r\n" : "\n"
            }
            if rng.chance(0.5) { text += "last line without break" }
            let url = TestFolders.root.appendingPathComponent("lines-\(seed)-\(blockSize)-\(UUID().uuidString).txt")
            try text.write(to: url, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: url) }
            var got: [String] = []
            var numbers: [Int] = []
            let reader = try LineBlockReader(path: url.path, blockSize: blockSize)
            try reader.forEachLine { base, start, end, n in
                got.append(String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self))
                numbers.append(n)
            }
            // Split on the byte 0x0A ("\r\n" is one Character in Swift, so not on Characters).
            var expected = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false)
                .map { String(decoding: $0, as: UTF8.self) }
            if expected.last == "" { expected.removeLast() }
            #expect(got.count == expected.count, "seed \(seed) block \(blockSize)")
            #expect(got == expected, "seed \(seed) block \(blockSize): first difference at line \((zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1) + 1)")
            #expect(numbers == Array(0..<expected.count).map { $0 + 1 }, "seed \(seed)")
        }
    }

    /// Reading ahead, a pipe is read into two buffers in turn: every block of lines is still intact after
    /// the next call (the caller reads ahead while it parses a block), lines and overlong
    /// lines come out as from the mapped file, whatever the block size (blocks smaller than a
    /// line grow; lines over the maximum are skipped and reported).
    @Test("a pipe's block stays intact through the next call; lines equal the file's", arguments: [64, 100, 4_096])
    func pipeKeepsPreviousBlock(blockSize: Int) throws {
        for seed in testSeeds(4) {
            var rng = SplitMix64(seed: seed)
            var text = ""
            for k in 0..<rng.int(50...600) {
                let long = rng.chance(0.04) ? rng.int(150...700) : rng.int(0...40)
                text += "\(k):" + String(repeating: Character(UnicodeScalar(UInt8(97 + k % 26))), count: long)
                text += rng.chance(0.1) ? "\r\n" : "\n"
            }
            if rng.chance(0.5) { text += "last line without break" }
            let url = TestFolders.root.appendingPathComponent("pipe-\(seed)-\(blockSize)-\(UUID().uuidString).txt")
            try text.write(to: url, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: url) }
            let maximum = 300
            func lines(_ reader: LineBlockReader) throws -> [String] {
                var out: [String] = []
                try reader.forEachLine({ base, start, end, n in
                    out.append("\(n) " + String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self))
                }, overlongLine: { n, _ in out.append("\(n) overlong") })
                return out
            }
            let expected = try lines(LineBlockReader(path: url.path, blockSize: blockSize, maximumLineBytes: maximum))
            let bytes = Data(text.utf8)
            for check in [false, true] {
                let fifo = url.path + ".fifo"
                defer { unlink(fifo) }
                try TestFIFO.feed(bytes, at: fifo)
                let reader = try LineBlockReader(path: fifo, blockSize: blockSize, maximumLineBytes: maximum, readsAhead: true)
                #expect(reader.fileSize == nil, "read as a pipe")
                if !check {
                    #expect(try lines(reader) == expected, "seed \(seed) block \(blockSize)")
                    continue
                }
                // Every block of lines compared with its copy after the next call returned.
                var previous: (UnsafeRawBufferPointer, [UInt8])? = nil
                var blocks = 0
                while true {
                    let chunk = try reader.nextChunk()
                    if let (bytes, copy) = previous {
                        #expect(Array(bytes) == copy, "seed \(seed) block \(blockSize): block \(blocks) changed by the next call")
                    }
                    guard let chunk else { break }
                    if case .lines(let bytes) = chunk {
                        previous = (bytes, Array(bytes))
                        blocks += 1
                    }
                }
                #expect(blocks > 1 || text.utf8.count <= blockSize, "seed \(seed)")
            }
        }
    }

    /// A line with no end (`/dev/zero`) is reported once as overlong, then skipped only up to
    /// ``LineBlockReader/maximumSkippedBytes``: an error naming the file, not a spin.
    @Test("an endless line is an error after the skipping bound, not a spin")
    func endlessLine() throws {
        let reader = try LineBlockReader(path: "/dev/zero", blockSize: 1 << 20, maximumLineBytes: 1_000, readsAhead: true)
        guard case .overlongLine(let bytes) = try reader.nextChunk() else {
            Issue.record("the first chunk is not an overlong line")
            return
        }
        #expect(bytes >= 1_000)
        do {
            _ = try reader.nextChunk()
            Issue.record("/dev/zero read past without end")
        } catch {
            #expect(error.description.contains("/dev/zero") && error.description.contains("without a line break"), "\(error)")
        }
        #expect(reader.bytesRead > LineBlockReader.maximumSkippedBytes && reader.bytesRead < LineBlockReader.maximumSkippedBytes + (4 << 20))
    }

    /// The resident size of the mapping that holds `address` (`Rss` in /proc/self/smaps), or
    /// nil where that cannot be read (not Linux).
    static func residentBytes(ofMappingAt address: UnsafeRawPointer) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
        defer { try? handle.close() }
        let target = UInt(bitPattern: address)
        var inside = false
        for line in String(decoding: handle.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, !range.hasSuffix(":") {
                let ends = range.split(separator: "-")
                if ends.count == 2, let low = UInt(ends[0], radix: 16), let high = UInt(ends[1], radix: 16) {
                    inside = low <= target && target < high
                    continue
                }
            }
            if inside && line.hasPrefix("Rss:"), fields.count >= 2, let kB = Int(fields[1]) { return kB << 10 }
        }
        return nil
    }

    /// A mapped file is read with about two blocks resident: the pages of the blocks before
    /// the previous one are dropped as it goes, each page once.
    @Test("a mapped file keeps about two blocks resident, however long")
    func mappedFileStaysSmall() throws {
        let block = 1 << 20, line = String(repeating: "x", count: 63) + "\n"
        let url = TestFolders.root.appendingPathComponent("resident-\(UUID().uuidString).txt")
        try String(repeating: line, count: 24 * block / line.utf8.count).write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let reader = try LineBlockReader(path: url.path, blockSize: block)
        var blocks = 0, largest = 0, checksum = 0
        while let bytes = try reader.nextBlock() {
            for b in bytes { checksum &+= Int(b) }  // every page of the block touched
            guard let resident = Self.residentBytes(ofMappingAt: bytes.baseAddress!) else { return }  // not Linux
            largest = max(largest, resident)
            blocks += 1
        }
        #expect(blocks >= 20 && checksum > 0)
        // Two blocks, and what the kernel maps around a fault: 64 KiB a side here, up to a
        // whole large folio (2 MiB) at each end of the kept range where the page cache has
        // them. Without the dropping the whole file, 24 MiB, would be resident.
        #expect(largest <= 6 * block, "\(largest >> 10) KiB resident of a 24 MiB file read in 1 MiB blocks")
    }

    @Test("a missing file is an error naming it")
    func missing() {
        do {
            _ = try LineBlockReader(path: "/nonexistent/fixes.csv")
            Issue.record("opened a missing file")
        } catch {
            #expect(error.description.contains("/nonexistent/fixes.csv"))
            #expect(error.description.contains("No such file"))
        }
    }
}

import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// `geofence contains` on several threads and blocks (``ContainsRun``) against its slow twin:
/// the file read line by line, each row through the full parser and one per-fix query.
@Suite("Contains run")
struct ContainsRunTests {
    /// A fix CSV with every kind of row: plain, ISO-8601 and quoted (the full parser), CRLF,
    /// blank lines, bad numbers, out-of-range coordinates, levels.
    static func csv(_ rng: inout SplitMix64, fences: [Fence], rows: Int) -> String {
        var text = "device_id,timestamp,lat,lon,level\n"
        let world = RandomWorld.city
        var worldRng = SeededGenerator(seed: rng.next())
        let points = world.queryPoints(count: rows, fences: fences, &worldRng)
        for (k, p) in points.enumerated() {
            let level = rng.chance(0.3) ? "\(rng.int(0...2))" : ""
            switch rng.int(0...19) {
            case 0: text += "\n"
            case 1: text += "d\(k),\(1_700_000_000_000 + k),\(p.latitude),\(p.longitude),\(level)\r\n"
            case 2: text += "\"d,\(k)\",2023-11-14T22:13:20Z,\(p.latitude),\(p.longitude),\(level)\n"
            case 3: text += "d\(k),\(k),not-a-number,\(p.longitude),\n"
            case 4: text += "d\(k),\(k),\(p.latitude + 200),\(p.longitude),\n"
            case 5: text += "d\(k),\(k),\(p.latitude)\n"
            default: text += "d\(k),\(1_700_000_000_000 + k),\(p.latitude),\(p.longitude),\(level)\n"
            }
        }
        return text
    }

    /// One row's answer in the twin: the ids of the fences holding it, or a rejection's text.
    enum RowAnswer: Equatable {
        case ids([String])
        case error(String)
    }

    /// The twin: line by line, the full parser, one query per row; its NDJSON.
    static func expected(_ text: String, set: FenceSet) throws -> (String, ContainsSummary) {
        let (rows, summary) = try expectedRows(text, set: set)
        return (render(rows, as: .ndjson), summary)
    }

    /// The twin's answers, row by row, and its counts.
    static func expectedRows(_ text: String, set: FenceSet) throws -> ([RowAnswer], ContainsSummary) {
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        // Split the bytes (a String splits "\r\n" as one character).
        var lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        let header = try lines[0].withUnsafeBytes { try FixCSVHeader(line: $0) }
        var answers: [RowAnswer] = [], summary = ContainsSummary(), row = FixCSVRow(), slots: [Int32] = []
        for (index, line) in lines.enumerated().dropFirst() {
            if line.isEmpty || line == [0x0D] { summary.blankLines += 1; continue }
            summary.read += 1
            let failure = line.withUnsafeBufferPointer { row.parse($0.baseAddress!, 0, line.count, header: header) }
            if let failure {
                summary.rejectedByReason["parse", default: 0] += 1
                answers.append(.error("parse: line \(index + 1): \(failure.reason)"))
            } else if let reason = Coordinate(latitude: row.latitude, longitude: row.longitude).invalidReason {
                summary.rejectedByReason["coordinate", default: 0] += 1
                answers.append(.error("coordinate: line \(index + 1): \(reason)"))
            } else {
                summary.answered += 1
                try evaluator.containing(
                    latitude: row.latitude, longitude: row.longitude, level: row.level == Int.min ? nil : row.level, into: &slots)
                answers.append(.ids(slots.map { set.geofenceID(at: Int($0)) }))
            }
        }
        return (answers, summary)
    }

    /// The twin's answers as `format` writes them, string by string.
    static func render(_ answers: [RowAnswer], as format: ContainsFormat) -> String {
        var out = format == .csv ? "row,geofenceId,error\n" : ""
        for (k, answer) in answers.enumerated() {
            let row = k + 1
            switch (format, answer) {
            case (.ndjson, .ids(let ids)):
                out += #"{"row":\#(row),"geofenceIds":[\#(ids.map(JSONWriter.quoted).joined(separator: ","))]}"# + "\n"
            case (.ndjson, .error(let text)):
                out += #"{"row":\#(row),"error":\#(JSONWriter.quoted(text))}"# + "\n"
            case (.csv, .ids(let ids)):
                for id in ids { out += "\(row),\(csvField(id)),\n" }
            case (.csv, .error(let text)):
                out += "\(row),,\(csvField(text))\n"
            }
        }
        return out
    }

    /// RFC 4180, plainly: quoted, quotes doubled, when the field holds a comma, a quote or a
    /// line break.
    static func csvField(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { ",\"\n\r".unicodeScalars.contains($0) }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A seeded city of `fences` fences and a CSV of `rows` rows of every kind over it; `id`
    /// may rename fence k (nil: its own id).
    static func world(
        seed: UInt64, fences count: Int, rows: Int, id: (Int) -> String? = { _ in nil }
    ) throws -> (FenceSet, String) {
        var rng = SplitMix64(seed: seed)
        var worldRng = SeededGenerator(seed: seed)
        var fences = RandomWorld.city.fences(count: count, &worldRng)
        for k in fences.indices { if let name = id(k) { fences[k].geofenceID = name } }
        return (try FenceSet(fences), csv(&rng, fences: fences, rows: rows))
    }

    /// Runs the file at `path` on 1–3 threads and each of `blockSizes`, and expects the twin's
    /// `expected` output and `counts` every time.
    static func expectEveryRun(
        _ set: FenceSet, _ path: String, format: ContainsFormat = .ndjson, blockSizes: [Int], expected: String,
        counts: ContainsSummary, seed: UInt64
    ) throws {
        for threads in [1, 2, 3] {
            for blockSize in blockSizes {
                var output: [UInt8] = []
                let summary = try ContainsRun.run(fenceSet: set, fixes: path, threads: threads, blockSize: blockSize, format: format) {
                    output += $0
                }
                #expect(String(decoding: output, as: UTF8.self) == expected, "seed \(seed) \(format) threads \(threads) block \(blockSize)")
                #expect(summary == counts, "seed \(seed) \(format) threads \(threads) block \(blockSize)")
            }
        }
    }

    /// A new temporary folder (the caller removes it).
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-contains-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `text` written to `fixes.csv` in `folder`; its path.
    static func file(_ text: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("fixes.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("any thread count and block size give the twin's output and counts", arguments: [1, 2] as [UInt64])
    func equalsTwin(seed: UInt64) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in testSeeds(1, base: seed) {
            let (set, text) = try Self.world(seed: seed, fences: 200, rows: 6_000)
            let path = try Self.file(text, in: folder)
            let (expected, counts) = try Self.expected(text, set: set)
            #expect(counts.rejected > 0 && counts.blankLines > 0, "seed \(seed): the file has rejections and blank lines")
            try Self.expectEveryRun(set, path, blockSizes: [4_096, 100_000, 8 << 20], expected: expected, counts: counts, seed: seed)
        }
    }

    /// CSV pairs: the twin's rows as pairs, for any thread count and block size, with ids that
    /// need quoting (commas, quotes, line breaks) and rejected rows' messages quoted where they
    /// hold a comma.
    @Test("CSV pairs: any thread count and block size give the twin's pairs and counts", arguments: [3, 4] as [UInt64])
    func csvEqualsTwin(seed: UInt64) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in testSeeds(1, base: seed) {
            // Every third id in need of quotes; the rest plain.
            let (set, text) = try Self.world(seed: seed, fences: 200, rows: 6_000) { k in
                k % 3 == 0 ? "f\(k),\"q\"" + (k % 2 == 0 ? "\nx" : "") : nil
            }
            let path = try Self.file(text, in: folder)
            let (answers, counts) = try Self.expectedRows(text, set: set)
            let expected = Self.render(answers, as: .csv)
            #expect(expected.contains("\"\"q\"\"") && expected.contains(",,"), "seed \(seed): quoted ids and rejected rows")
            try Self.expectEveryRun(set, path, format: .csv, blockSizes: [4_096, 8 << 20], expected: expected, counts: counts, seed: seed)
        }
    }

    /// A file with a header and no rows: the CSV header alone (the NDJSON is empty).
    @Test("a file without rows gives the CSV header alone")
    func csvHeaderOnly() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.file("device_id,timestamp,lat,lon\n\n", in: folder)
        let set = try FenceSet([])
        for (format, expected) in [(ContainsFormat.csv, "row,geofenceId,error\n"), (.ndjson, "")] {
            var output: [UInt8] = []
            let summary = try ContainsRun.run(fenceSet: set, fixes: path, threads: 2, format: format) { output += $0 }
            #expect(String(decoding: output, as: UTF8.self) == expected, "\(format)")
            #expect(summary.read == 0 && summary.blankLines == 1)
        }
    }

    /// From a pipe the next block is read into the reader's other buffer while the workers
    /// answer the current one: the output is the file's, byte for byte.
    @Test("fixes from a pipe give the twin's output", arguments: [1, 2, 3])
    func pipe(threads: Int) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (set, text) = try Self.world(seed: 11, fences: 150, rows: 5_000)
        let (expected, counts) = try Self.expected(text, set: set)
        let fifo = folder.appendingPathComponent("fixes.fifo").path
        let bytes = Data(text.utf8)
        for blockSize in [4_096, 100_000] {
            defer { unlink(fifo) }
            try TestFIFO.feed(bytes, at: fifo)
            var output: [UInt8] = []
            let summary = try ContainsRun.run(fenceSet: set, fixes: fifo, threads: threads, blockSize: blockSize) { output += $0 }
            #expect(String(decoding: output, as: UTF8.self) == expected, "threads \(threads) block \(blockSize)")
            #expect(summary == counts, "threads \(threads) block \(blockSize)")
        }
    }

    /// The first block of a pipe is read while the fences load: its writer finishes its
    /// first block (more than a pipe holds) while the load is still running, and the run from
    /// that input gives the twin's output.
    @Test("the first block is read while the fences load")
    func firstBlockDuringLoad() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (set, text) = try Self.world(seed: 13, fences: 150, rows: 40_000)
        let (expected, counts) = try Self.expected(text, set: set)
        let fifo = folder.appendingPathComponent("fixes.fifo").path
        defer { unlink(fifo) }
        let bytes = Data(text.utf8)
        #expect(bytes.count > 2 << 20 && bytes.count < 8 << 20, "\(bytes.count) bytes: more than a pipe holds, less than a block")
        let feeding = try TestFIFO.feed(bytes, at: fifo)
        // The load: done only when the writer is (2 s at most), which it can only be when the
        // pipe is read meanwhile.
        // (Whole lines wait up to 10 s for more: a writer held up on a busy machine does not cut
        // the first block short.)
        let (written, input) = try ContainsInput.opening(fixes: fifo, idleMilliseconds: 10_000) { feeding.waitUntilWritten(seconds: 2) }
        #expect(written, "the writer was still waiting when the load ended")
        var output: [UInt8] = []
        let summary = try ContainsRun.run(fenceSet: set, input: input, threads: 2) { output += $0 }
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(summary == counts)
    }

    /// A load that fails is reported at once, even when the fixes' pipe has not sent a line:
    /// the opening thread is not waited for.
    @Test("a failed load does not wait for the fixes")
    func failedLoadDoesNotWait() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("silent.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        struct LoadFailure: Error, Equatable {}
        // A writer that sends nothing (an empty file), 2.5 s from now: it lets the opening
        // thread finish, and a run that waited for it return (late: the test fails, not hangs).
        // A thread of its own: a dispatch queue's block may wait for a worker thread that the
        // test's waits hold.
        let closed = DispatchSemaphore(value: 0)
        Thread {
            Thread.sleep(forTimeInterval: 2.5)
            close(open(fifo, O_WRONLY | O_NONBLOCK))  // no reader: fails at once, never waits
            closed.signal()
        }.start()
        let start = Date()
        #expect(throws: LoadFailure()) {
            _ = try ContainsInput.opening(fixes: fifo) { () throws -> Int in throw LoadFailure() }
        }
        #expect(Date().timeIntervalSince(start) < 2, "the failed load waited for the fixes")
        closed.wait()
    }

    struct WriteFailure: Error, Equatable { var call: Int }

    /// A block's lines are written while the next block is parsed: a write that fails (a full
    /// disk) stops the run with its error at once, whichever block it was, after everything
    /// before it was written in order, and nothing after it.
    @Test("a failing write stops the run with its error; what was written is the output's start")
    func failingWrite() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (set, text) = try Self.world(seed: 7, fences: 100, rows: 4_000)
        let path = try Self.file(text, in: folder)
        let (expected, _) = try Self.expected(text, set: set)
        for threads in [1, 2] {
            for failAt in [1, 2, 5, 9] {
                var output: [UInt8] = [], calls = 0
                #expect(throws: WriteFailure(call: failAt), "threads \(threads)") {
                    _ = try ContainsRun.run(fenceSet: set, fixes: path, threads: threads, blockSize: 4_096) { bytes in
                        calls += 1
                        if calls == failAt { throw WriteFailure(call: calls) }
                        output += bytes
                    }
                }
                #expect(calls == failAt, "threads \(threads): no write after the failing one")
                #expect(!output.isEmpty || failAt == 1)
                #expect(expected.utf8.starts(with: output), "threads \(threads) fail at \(failAt): the output's start")
            }
        }
    }

    @Test("an empty file and a bad header are errors naming the file")
    func badFiles() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let set = try FenceSet([])
        for (content, words) in [("", "empty file"), ("a,b\n1,2\n", "line 1:")] {
            let path = folder.appendingPathComponent("f.csv").path
            try content.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: FileError.self) { try ContainsRun.run(fenceSet: set, fixes: path, threads: 2) { _ in } }
            do {
                _ = try ContainsRun.run(fenceSet: set, fixes: path, threads: 2) { _ in }
            } catch let error as FileError {
                #expect(error.path == path && error.reason.contains(words), "\(error)")
            }
        }
    }
}

import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// `geofence evaluate` opens its fixes and reads their first block while the fences load
/// (``InputOpening``, as `contains` does through ``ContainsInput``).
@Suite("Input opened while the fences load")
struct InputOpeningTests {
    /// The writer of a FIFO can finish its 4 MB (more than a pipe holds) only if the pipe is
    /// read while the load runs; the load waits for the writer (2 s at most). The events from
    /// that reader equal those from the file.
    @Test("evaluate's fixes: the first block is read during the load, the events are the file's")
    func evaluateReadsDuringLoad() throws {
        let fixture = BatchFixture.make(seed: 37, devices: 200, fixesPerDevice: 450).shuffled(seed: 37)
        let set = try FenceSet(fixture.fences)
        let text = fixture.csv()
        #expect(text.utf8.count > 2 << 20 && text.utf8.count < 8 << 20, "\(text.utf8.count) bytes: more than a pipe holds, less than a block")
        let path = try BatchFixture.write(text)
        let options = BatchOptions(threads: 2)
        let (fromFile, _) = try runBatch(set, path: path, options: options)
        let fifo = path + ".fifo"
        defer { unlink(fifo) }
        let feeding = try TestFIFO.feed(Data(text.utf8), at: fifo)
        // `openFixes(_:options:)` with whole lines waiting up to 10 s for more (a writer held up
        // on a busy machine does not cut the first block short).
        let (written, reader) = try InputOpening.opening(fifo, { () throws(FileError) in
            try FixFileReader(
                path: fifo, blockSize: options.blockSize, header: options.header, lineOffset: options.lineOffset,
                maximumLineBytes: options.maximumLineBytes, idleMilliseconds: 10_000)
        }) { feeding.waitUntilWritten(seconds: 2) }
        #expect(written, "the writer was still waiting when the load ended")
        let out = TestFolders.root.appendingPathComponent("events-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let sink = try OutputSink(path: out)
        let summary = try BatchEvaluator(fenceSet: set, options: options).run(reader, output: sink)
        try sink.commit()
        let fromPipe = try String(contentsOfFile: out, encoding: .utf8)
        #expect(fromPipe == fromFile, "\(firstDifference(fromPipe, fromFile))")
        #expect(summary.rowsRead == fixture.rows.count)
    }
}

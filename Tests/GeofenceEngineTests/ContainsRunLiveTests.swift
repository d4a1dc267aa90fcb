import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// `geofence contains` on a live feed: a pipe whose producer sends some rows and waits. The
/// rows that came are answered and written before the run waits for more.
@Suite("Contains run: live feeds")
struct ContainsRunLiveTests {
    /// The rows come in three parts; each next part is sent only once every row of the parts
    /// before has its line in the output (the writer gives up after 5 s and sends it anyway).
    /// A run that holds a block's lines until the next block comes makes the writer give up
    /// (and ends all the same); the output is the twin's either way.
    /// With `midLine`, each part ends five bytes into a line: the producer pauses inside a row.
    @Test("rows are answered before the next rows come", arguments: [1, 2], [false, true])
    func answeredAsTheyCome(threads: Int, midLine: Bool) throws {
        let folder = try ContainsRunTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (set, text) = try ContainsRunTests.world(seed: 17, fences: 150, rows: 300)
        let (expected, counts) = try ContainsRunTests.expected(text, set: set)
        // Parts at line breaks: the header and 60 lines, 120 more, the rest.
        // (Bytes, not characters: a String takes "\r\n" for one.)
        let lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { $0 + [0x0A] }
        #expect(lines.joined().elementsEqual(text.utf8))
        let bounds = [0, 61, 181, lines.count]
        let bytes = Array(lines.joined())
        let cuts = bounds.map { b in b == lines.count ? bytes.count : lines[0..<b].reduce(0) { $0 + $1.count } + (midLine && b > 0 ? 5 : 0) }
        let parts = (0..<3).map { k in Data(bytes[cuts[k]..<cuts[k + 1]]) }
        // Rows (not blank lines) up to the end of each part but the last.
        let rowsBefore = bounds[1...2].map { end in lines[1..<end].filter { $0 != [0x0A] && $0 != [0x0D, 0x0A] }.count }
        let fifo = folder.appendingPathComponent("live.fifo").path
        defer { unlink(fifo) }
        let feeding = try TestFIFO.feed(parts: parts, at: fifo, patience: 5)
        var output: [UInt8] = [], released = 0, waits = 0
        let input = try ContainsInput(fixes: fifo)
        let summary = try ContainsRun.run(
            fenceSet: set, input: input, threads: threads,
            write: { bytes in
                output += bytes
                let written = output.lazy.filter { $0 == 0x0A }.count
                while released < rowsBefore.count && written >= rowsBefore[released] {
                    released += 1
                    feeding.release()
                }
            },
            beforeWaiting: { waits += 1 })
        #expect(feeding.partsNotReleased == 0, "threads \(threads), mid-line \(midLine): the writer waited in vain for the answers to its rows")
        #expect(waits >= 2, "threads \(threads), mid-line \(midLine): the run waited \(waits) time(s) with its output not handed over")
        #expect(String(decoding: output, as: UTF8.self) == expected, "threads \(threads)")
        #expect(summary == counts, "threads \(threads)")
        #expect(feeding.waitUntilWritten(seconds: 5))
    }
}

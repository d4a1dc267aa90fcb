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

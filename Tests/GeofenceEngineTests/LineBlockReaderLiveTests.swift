import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

/// A pipe whose producer pauses (a live feed): the whole lines it sent are handed over once
/// it has been quiet for the idle time, not when a block fills or the pipe closes.
@Suite("Line block reader: live feeds")
struct LineBlockReaderLiveTests {
    /// `body` with a reader of a FIFO fed `parts` (``TestFIFO/feed(parts:at:patience:)``);
    /// the FIFO is removed after.
    static func withFIFO(
        _ parts: [String], patience: Double, _ body: (LineBlockReader, TestFIFO.Feeding) throws -> Void
    ) throws {
        let fifo = TestFolders.root.appendingPathComponent("live-\(UUID().uuidString).fifo").path
        defer { unlink(fifo) }
        let feeding = try TestFIFO.feed(parts: parts.map { Data($0.utf8) }, at: fifo, patience: patience)
        try body(try LineBlockReader(path: fifo, blockSize: 1 << 20, readsAhead: true), feeding)
        #expect(feeding.waitUntilWritten(seconds: 5))
    }

    static func blocks(_ reader: LineBlockReader, each: (String) -> Void = { _ in }) throws -> [String] {
        var out: [String] = []
        while let chunk = try reader.nextChunk() {
            guard case .lines(let bytes) = chunk else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            out.append(text)
            each(text)
        }
        return out
    }

    /// The writer sends two lines and half a third, then waits to be released: the first
    /// block is those two lines, returned while it waits (without the idle rule the read
    /// waits for the writer's patience to run out, and the block is the whole text).
    @Test("a quiet pipe hands over the whole lines it sent, and keeps the partial one")
    func quietPipe() throws {
        let parts = ["a1\nb22\npart", "ial\nlast\n"]
        try Self.withFIFO(parts, patience: 5) { reader, feeding in
            var released = false
            let blocks = try Self.blocks(reader) { _ in
                if !released { released = true; feeding.release() }
            }
            #expect(blocks.first == "a1\nb22\n", "\(blocks)")
            #expect(blocks.joined() == parts.joined())
            #expect(feeding.partsNotReleased == 0, "the first block came only after the writer gave up waiting")
        }
    }

    /// Random lines cut into random parts (lines split between parts too), each part written
    /// 300 ms after the one before: the blocks joined are the text, every block but the last
    /// ends at a line break, and the pauses cut it into several blocks although it fits in one.
    @Test("a feed with pauses: blocks end at line breaks and join to the text")
    func pausedFeed() throws {
        // A second of pauses a seed: one under `make test`.
        for seed in testSeeds(sized(full: 3, quick: 1)) {
            var rng = SplitMix64(seed: seed)
            var text = ""
            for k in 0..<rng.int(20...80) { text += "\(k)," + String(repeating: "x", count: rng.int(0...60)) + "\n" }
            let bytes = Array(text.utf8)
            // One cut just after the first line, so some part before the last ends a line.
            var cuts = (0..<rng.int(3...5)).map { _ in rng.int(1...(bytes.count - 1)) }
            cuts = Array(Set(cuts + [bytes.firstIndex(of: 0x0A)! + 1]).filter { $0 < bytes.count }).sorted()
            var parts: [Data] = []
            var from = 0
            for cut in cuts + [bytes.count] {
                parts.append(Data(bytes[from..<cut]))
                from = cut
            }
            let fifo = TestFolders.root.appendingPathComponent("live-\(seed)-\(UUID().uuidString).fifo").path
            defer { unlink(fifo) }
            // Nobody releases: each part follows the one before after the patience, 300 ms.
            let feeding = try TestFIFO.feed(parts: parts, at: fifo, patience: 0.3)
            let reader = try LineBlockReader(path: fifo, blockSize: 1 << 20, readsAhead: true)
            let blocks = try Self.blocks(reader)
            #expect(blocks.joined() == text, "seed \(seed)")
            #expect(blocks.dropLast().allSatisfy { $0.hasSuffix("\n") }, "seed \(seed): \(blocks.map(\.count))")
            #expect(blocks.count >= 2, "seed \(seed): \(parts.count) parts came as \(blocks.count) block(s)")
            #expect(feeding.waitUntilWritten(seconds: 5))
        }
    }

    /// A steady trickle (a line every 20 ms, never a pause of 100 ms) is handed over in blocks
    /// as it comes, each within about the idle time of its first line: with a rule that waits
    /// for a quiet pipe, the whole feed came as one block at its end.
    @Test("a steady trickle is handed over as it comes")
    func steadyTrickle() throws {
        let parts = (0..<60).map { "line \($0)\n" }
        try Self.withFIFO(parts, patience: 0.02) { reader, _ in
            let blocks = try Self.blocks(reader)
            #expect(blocks.joined() == parts.joined())
            #expect(blocks.count >= 3, "60 lines over 1.2 s came as \(blocks.count) block(s)")
        }
    }

    /// Asked not to wait past 300 ms for a whole line, the reader says so while the writer is
    /// in the middle of a line; the block handed out before stays as it was, and the partial
    /// line is the start of the next block.
    @Test("not yet: a partial line is kept, the block before stays intact")
    func notYet() throws {
        try Self.withFIFO(["l1\n", "ab", "c\nd\n"], patience: 10) { reader, feeding in
            guard case .lines(let first)? = try reader.nextChunk() else { Issue.record("no first block"); return }
            #expect(String(decoding: first, as: UTF8.self) == "l1\n")
            feeding.release()  // "ab"
            let arrival = try reader.nextChunk(orNotYetWithin: 300)
            guard case .notYet = arrival else {
                Issue.record("a block without a whole line: \(arrival)")
                feeding.release()
                return
            }
            #expect(String(decoding: first, as: UTF8.self) == "l1\n", "the block before changed")
            feeding.release()  // "c\nd\n", then the end
            #expect(try Self.blocks(reader).joined() == "abc\nd\n")
            #expect(feeding.partsNotReleased == 0)
        }
    }
}

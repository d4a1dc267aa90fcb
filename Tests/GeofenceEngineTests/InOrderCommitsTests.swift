@testable import GeofenceEngine
import GeofenceTestSupport
import Synchronization
import Testing

@Suite("In-order commits and scratch arrays")
struct InOrderCommitsTests {
    /// Items of uneven, seeded cost on several threads: every result is committed once, in
    /// item order, and recycled memory serves later items.
    @Test("each result committed once, in order", arguments: [1, 2, 3, 8])
    func inOrder(threads: Int) {
        for seed in testSeeds(4, base: 0xC0_11_17) {
            var rng = SplitMix64(seed: seed)
            let count = rng.int(0...600)
            let work = (0..<count).map { _ in rng.int(0...20_000) }
            let commits = InOrderCommits<Box>()
            let order = Mutex<[Int]>([])
            let made = Atomic<Int>(0)
            ParallelWorkers.run(count: count, threads: threads) { item, _ in
                let box: Box
                if let spare = commits.reused() {
                    box = spare
                } else {
                    box = Box()
                    made.add(1, ordering: .relaxed)
                }
                // Uneven work, so items finish out of order.
                var x = UInt64(item)
                for _ in 0..<work[item] { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                box.item = item
                box.noise = x
                commits.submit(item, box) { ready in
                    order.withLock { $0.append(ready.item) }
                    commits.recycle(ready)
                }
            }
            let committed = order.withLock { $0 }
            let firstWrong = committed.indices.first { committed[$0] != $0 }
            #expect(committed.count == count && firstWrong == nil,
                    "seed \(seed), \(threads) threads: \(committed.count) of \(count) committed, first out of order at \(firstWrong ?? -1)")
            // On one thread each result is committed as it is submitted, so one serves all.
            // (With more, a stalled item keeps those after it waiting: no fixed bound.)
            if threads == 1 {
                #expect(made.load(ordering: .relaxed) == Swift.min(count, 1), "seed \(seed): results were not reused")
            }
        }
    }

    final class Box: @unchecked Sendable {
        var item = -1
        var noise: UInt64 = 0
    }

    /// Growth keeps the elements, and `frozen()` hands exactly them over, for elements the C
    /// allocator aligns (grown by `realloc`) and for wider-aligned ones (grown by copying).
    @Test("scratch arrays grow, keep and hand over their elements")
    func scratchArrays() {
        for seed in testSeeds(3, base: 0x5C_A7) {
            var rng = SplitMix64(seed: seed)
            let n = rng.int(0...300_000)
            let words = ScratchArray<UInt32>(capacity: 1)
            let wide = ScratchArray<SIMD4<Double>>(capacity: 1)
            var twinWords: [UInt32] = [], twinWide: [SIMD4<Double>] = []
            for k in 0..<n {
                let v = UInt32(truncatingIfNeeded: rng.next())
                if k % 1000 == 999 {
                    // Now and then a block at once.
                    let block = [v, v &+ 1, v &+ 2]
                    block.withUnsafeBufferPointer { words.append($0.baseAddress!, count: 3) }
                    twinWords += block
                } else {
                    words.append(v)
                    twinWords.append(v)
                }
                if k % 7 == 0 {
                    let w = SIMD4<Double>(Double(k), Double(v), -1, 0.5)
                    wide.append(w)
                    twinWide.append(w)
                }
            }
            #expect(Array(UnsafeBufferPointer(start: words.base, count: words.count)) == twinWords, "seed \(seed)")
            let frozenWords = words.frozen(), frozenWide = wide.frozen()
            #expect(Array(frozenWords.buffer) == twinWords, "seed \(seed)")
            #expect(Array(frozenWide.buffer) == twinWide, "seed \(seed)")
            #expect(words.count == 0 && wide.count == 0, "seed \(seed): emptied")
            words.append(7)
            #expect(words[0] == 7 && frozenWords.count == twinWords.count, "seed \(seed): usable again, the frozen copy untouched")
        }
    }
}

import GeofenceEngine
import Testing

@Suite("Worker pools")
struct WorkerPoolTests {
    /// Every item runs exactly once, on a worker index in range, and pools made and dropped in
    /// quick succession (as `ParallelWorkers.run` does) shut their threads down cleanly.
    @Test("each item once; pools come and go", arguments: [1, 2, 4])
    func itemsOnce(threads: Int) {
        for round in 0..<200 {
            let count = round % 17
            let seen = DisjointSlots<Int>(repeating: 0, count: count)
            let workers = DisjointSlots<Int>(repeating: -1, count: count)
            ParallelWorkers.run(count: count, threads: threads) { item, worker in
                seen[item] += 1
                workers[item] = worker
            }
            #expect(seen.storage.allSatisfy { $0 == 1 }, "round \(round)")
            #expect(workers.storage.allSatisfy { $0 >= 0 && $0 < threads }, "round \(round)")
        }
        let pool = WorkerPool(threads: threads)
        for round in 0..<100 {
            let seen = DisjointSlots<Int>(repeating: 0, count: 50)
            pool.run(count: 50) { item, _ in seen[item] += 1 }
            #expect(seen.storage.allSatisfy { $0 == 1 }, "round \(round)")
        }
    }
}

@testable import GeofenceEngine
import Synchronization
import Testing

@Suite("Worker pools")
struct WorkerPoolTests {
    /// Every item runs exactly once, on a worker index in range, and pools made and dropped in
    /// quick succession (as `ParallelWorkers.run` does) shut their threads down cleanly.
    @Test("each item once; pools come and go", arguments: [1, 2, 4])
    func itemsOnce(threads: Int) throws {
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
        let pool = try WorkerPool(threads: threads)
        for round in 0..<100 {
            let seen = DisjointSlots<Int>(repeating: 0, count: 50)
            pool.run(count: 50) { item, _ in seen[item] += 1 }
            #expect(seen.storage.allSatisfy { $0 == 1 }, "round \(round)")
        }
    }

    /// Worker 0 is the calling thread and each other worker always the same thread of its own,
    /// over batches back to back and batches after a pause longer than the workers watch (so
    /// both the watching and the sleeping hand-over are used), with and without side work.
    @Test("worker 0 is the caller, every other worker its own thread", arguments: [2, 3])
    func workerThreads(threads: Int) throws {
        let pool = try WorkerPool(threads: threads)
        let caller = Platform.currentThread()
        var seen: [Int: UInt] = [:]
        for round in 0..<60 {
            let count = 2 + round % 9
            let ran = DisjointSlots<(Int, UInt)?>(repeating: nil, count: count)
            let body: @Sendable (Int, Int) -> Void = { item, worker in
                // Long enough for every worker to take some items in most rounds.
                let until = ContinuousClock.now + .microseconds(50)
                while ContinuousClock.now < until {}
                ran[item] = (worker, Platform.currentThread())
            }
            if round % 2 == 0 {
                pool.run(count: count, body)
            } else {
                pool.run(count: count, body, meanwhile: { () throws(Never) in })
            }
            for case let (worker, thread)? in ran.storage {
                #expect(worker >= 0 && worker < threads, "round \(round)")
                if worker == 0 { #expect(thread == caller, "round \(round): worker 0 is not the caller") }
                if worker > 0 { #expect(thread != caller, "round \(round): worker \(worker) is the caller") }
                if let before = seen[worker] { #expect(before == thread, "round \(round): worker \(worker) moved") }
                seen[worker] = thread
            }
            #expect(ran.storage.allSatisfy { $0 != nil }, "round \(round): an item did not run")
            if round % 10 == 9 { Platform.sleep(seconds: 0.002) }
        }
        #expect(seen.count >= 2, "only workers \(seen.keys.sorted()) took items")
    }

    /// Starts threads for real until the `failAt`-th (0-based), which the system "refuses".
    final class FailingStarter: @unchecked Sendable {
        let failAt: Int
        let started = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        init(failAt: Int) { self.failAt = failAt }

        func start(_ body: @escaping @Sendable () -> Void) -> String? {
            guard started.load(ordering: .relaxed) < failAt else { return "Resource temporarily unavailable" }
            started.add(1, ordering: .relaxed)
            return Platform.startThread(stackSize: 1 << 20) { [self] in
                body()
                finished.add(1, ordering: .relaxed)
            }
        }
    }

    /// The measured failure: a worker that never existed made `run` wait forever. Now the
    /// pool's creation fails, names the thread, and the threads that did start end.
    /// (Four workers are the caller and three threads.)
    @Test("a thread that cannot start is an error, and the started ones stop", arguments: [0, 1, 2])
    func threadStartFailure(failAt: Int) throws {
        let starter = FailingStarter(failAt: failAt)
        do {
            _ = try WorkerPool(threads: 4, start: starter.start)
            Issue.record("the pool started with a failing thread")
        } catch {
            #expect(error.thread == failAt + 1 && error.of == 3)
            #expect(error.description.contains("cannot start thread \(failAt + 1) of 3: Resource temporarily unavailable"))
        }
        // Every thread that started has returned from its loop (none waits for work forever).
        var waited = 0
        while starter.finished.load(ordering: .relaxed) < failAt && waited < 500 {
            Platform.sleep(seconds: 0.01)
            waited += 1
        }
        #expect(starter.finished.load(ordering: .relaxed) == failAt)
    }

    /// `ParallelWorkers.run` cannot throw (fence validation uses it): when its threads cannot
    /// start it runs every item on the calling thread, the same results.
    /// Workers grow their own slot in place, many times each and at once: every slot ends
    /// with exactly its own items, in order (a copy made per update, or a write to a
    /// neighbour's slot, would lose some).
    @Test("slots updated in place by their own workers keep every write")
    func slotsUpdatedInPlace() {
        let slots = DisjointSlots<[Int]>(repeating: [], count: 8)
        ParallelWorkers.run(count: 8, threads: 4) { k, _ in
            for j in 0..<10_000 { slots.update(k) { $0.append(k * 10_000 + j) } }
        }
        for k in 0..<8 { #expect(slots[k] == Array((k * 10_000)..<((k + 1) * 10_000)), "slot \(k)") }
        #expect(slots.update(3) { $0.count } == 10_000)
    }

    @Test("more threads than allowed are refused, and the one-shot runner caps them")
    func threadCap() throws {
        #expect(throws: Never.self) { _ = try WorkerPool(threads: WorkerPool.maximumThreads) }
        let seen = DisjointSlots<Int>(repeating: 0, count: 1000)
        ParallelWorkers.run(count: 1000, threads: 100_000) { item, worker in
            #expect(worker < WorkerPool.maximumThreads)
            seen[item] += 1
        }
        #expect(seen.storage.allSatisfy { $0 == 1 })
        #expect(BatchOptions(threads: 100_000).threads == WorkerPool.maximumThreads)
    }

    struct SideFailure: Error {}

    /// The caller's side work runs while the workers hold the batch (each item waits, with a
    /// deadline of 2 s so a serial pool fails rather than hangs, for a flag only `meanwhile` sets),
    /// and what it throws comes back only after every item ran.
    @Test("work meanwhile overlaps the batch; its error waits for the batch", arguments: [2, 3])
    func meanwhile(threads: Int) throws {
        let pool = try WorkerPool(threads: threads)
        for round in 0..<10 {
            let count = 1 + round % 7
            let released = Atomic<Bool>(false)
            let sawRelease = DisjointSlots<Bool>(repeating: false, count: count)
            let ran = DisjointSlots<Int>(repeating: 0, count: count)
            try pool.run(count: count, { item, _ in
                let deadline = ContinuousClock.now + .seconds(2)
                while !released.load(ordering: .acquiring) && ContinuousClock.now < deadline {}
                sawRelease[item] = released.load(ordering: .acquiring)
                ran[item] += 1
            }, meanwhile: { () throws(SideFailure) in released.store(true, ordering: .releasing) })
            #expect(sawRelease.storage.allSatisfy { $0 }, "round \(round): an item ran before the side work")
            #expect(ran.storage.allSatisfy { $0 == 1 }, "round \(round)")
        }
        // The side work fails while the items are still running: they all finish first.
        let finished = Atomic<Int>(0)
        #expect(throws: SideFailure.self) {
            try pool.run(count: 8, { _, _ in
                let until = ContinuousClock.now + .milliseconds(20)
                while ContinuousClock.now < until {}
                finished.add(1, ordering: .relaxed)
            }, meanwhile: { () throws(SideFailure) in throw SideFailure() })
        }
        #expect(finished.load(ordering: .relaxed) == 8)
        // The pool still serves batches.
        let seen = DisjointSlots<Int>(repeating: 0, count: 9)
        pool.run(count: 9) { item, _ in seen[item] += 1 }
        #expect(seen.storage.allSatisfy { $0 == 1 })
    }

    /// A pool of one thread has no worker to overlap with: the side work first, then the items.
    @Test("a one-thread pool does the side work first")
    func meanwhileSerial() throws {
        let pool = try WorkerPool(threads: 1)
        let order = DisjointSlots<[String]>(repeating: [], count: 1)
        pool.run(count: 3, { item, _ in order.update(0) { $0.append("item \(item)") } }, meanwhile: { () throws(Never) in
            order.update(0) { $0.append("side") }
        })
        #expect(order[0] == ["side", "item 0", "item 1", "item 2"])
    }
}

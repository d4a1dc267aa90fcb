
/// Runs work items on a fixed number of real threads.
///
/// Worker `w` (0 ..< threads) runs on one thread for the whole call, so per-worker state
/// indexed by `w` (a GEOS context, an evaluator) is only ever touched by one thread.
/// Items are handed out in index order from a shared counter.
package enum ParallelWorkers {
    /// Calls `body(item, worker)` once for every item in `0 ..< count`, on `threads` threads
    /// (at most ``WorkerPool/maximumThreads``), and returns when all are done. With one
    /// thread, or one item, it runs inline; so it does when the threads cannot be started
    /// (the same results, only later: never a wait for a thread that does not exist).
    ///
    /// - Complexity: O(count) calls; one atomic increment per item.
    package static func run(count: Int, threads: Int, _ body: @escaping @Sendable (_ item: Int, _ worker: Int) -> Void) {
        // A pool for this one call; long runs of small batches keep a ``WorkerPool`` instead.
        let wanted = max(1, min(threads, count, WorkerPool.maximumThreads))
        guard wanted > 1, let pool = try? WorkerPool(threads: wanted) else {
            for i in 0..<count { body(i, 0) }
            return
        }
        pool.run(count: count, body)
    }
}

/// A mutable buffer that workers write at disjoint indices (each index by one worker only),
/// read by the caller after ``ParallelWorkers/run(count:threads:_:)`` returns.
///
/// The elements live in memory this object allocates, written through a pointer: a Swift
/// array here would be moved out of the object for each write (`withUnsafeMutableBufferPointer`)
/// and lose the writes of a second thread writing at the same moment.
package final class DisjointSlots<Element>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Element>
    package let count: Int

    package init(repeating value: Element, count: Int) {
        self.count = count
        base = .allocate(capacity: Swift.max(1, count))
        base.initialize(repeating: value, count: count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Slot `i`. Callers guarantee that no two threads touch the same slot at once.
    package subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < count, "slot \(i) of \(count)")
            return base[i]
        }
        set {
            precondition(i >= 0 && i < count, "slot \(i) of \(count)")
            base[i] = newValue
        }
    }

    /// Runs `body` on slot `i` in place (no copy: a value with arrays stays uniquely held).
    /// Callers guarantee that no two threads touch the same slot at once.
    package func update<R, E: Error>(_ i: Int, _ body: (inout Element) throws(E) -> R) throws(E) -> R {
        precondition(i >= 0 && i < count, "slot \(i) of \(count)")
        return try body(&base[i])
    }

    /// A copy of every slot, for the caller once the workers are done.
    package var storage: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

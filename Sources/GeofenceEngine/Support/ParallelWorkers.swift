
/// Runs work items on a fixed number of real threads.
///
/// Worker `w` (0 ..< threads) runs on one thread for the whole call, so per-worker state
/// indexed by `w` (a GEOS context, an evaluator) is only ever touched by one thread.
/// Items are handed out in index order from a shared counter.
public enum ParallelWorkers {
    /// Calls `body(item, worker)` once for every item in `0 ..< count`, on `threads` threads,
    /// and returns when all are done. With one thread, or one item, it runs inline.
    ///
    /// - Complexity: O(count) calls; one atomic increment per item.
    public static func run(count: Int, threads: Int, _ body: @escaping @Sendable (_ item: Int, _ worker: Int) -> Void) {
        // A pool for this one call; long runs of small batches keep a ``WorkerPool`` instead.
        WorkerPool(threads: max(1, min(threads, count))).run(count: count, body)
    }
}

/// A mutable buffer that workers write at disjoint indices (each index by one worker only),
/// read by the caller after ``ParallelWorkers/run(count:threads:_:)`` returns.
public final class DisjointSlots<Element>: @unchecked Sendable {
    public private(set) var storage: [Element]

    public init(repeating value: Element, count: Int) { storage = Array(repeating: value, count: count) }

    /// Writes slot `i`. Callers guarantee that no two threads touch the same slot.
    public subscript(i: Int) -> Element {
        get { storage.withUnsafeBufferPointer { $0[i] } }
        set { storage.withUnsafeMutableBufferPointer { $0[i] = newValue } }
    }
}

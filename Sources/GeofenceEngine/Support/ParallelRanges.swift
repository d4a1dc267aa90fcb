/// Splitting loops over `0 ..< count` into ranges run on several threads, for the fence set
/// builder's per-fence passes.
enum ParallelRanges {
    /// Calls `body` with disjoint ranges covering `0 ..< count`, on up to `threads` threads
    /// (about eight ranges per thread, none shorter than `minimum` unless `count` is), and
    /// returns when all are done. The ranges come in order to each thread, not overall.
    static func forEach(count: Int, threads: Int, minimum: Int = 4096, _ body: @escaping @Sendable (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let parts = Swift.max(1, Swift.min(8 * threads, count / Swift.max(1, minimum)))
        ParallelWorkers.run(count: parts, threads: threads) { k, _ in
            body((count * k / parts)..<(count * (k + 1) / parts))
        }
    }

    /// Runs the tasks, each once, on up to `threads` threads.
    static func run(threads: Int, _ tasks: [@Sendable () -> Void]) {
        ParallelWorkers.run(count: tasks.count, threads: threads) { k, _ in tasks[k]() }
    }
}

/// A pointer to memory that several threads write at disjoint indices (the caller keeps the
/// memory alive and makes sure no index is written twice at once).
struct SharedPointer<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>

    init(_ base: UnsafeMutablePointer<Element>) { self.base = base }

    /// Memory for `count` elements (at least one), not initialised.
    static func allocate(_ count: Int) -> SharedPointer { SharedPointer(.allocate(capacity: Swift.max(1, count))) }

    @inline(__always)
    subscript(i: Int) -> Element {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }
}

/// A value computed by one task and read after `ParallelRanges.run` returns.
final class TaskResult<Value>: @unchecked Sendable {
    var value: Value?
    init() {}
}

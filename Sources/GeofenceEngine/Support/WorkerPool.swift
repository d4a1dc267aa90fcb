import Foundation
import Synchronization

/// A fixed set of threads that run batches of work items, kept alive between batches so a
/// long run of small batches (the batch evaluator's windows of devices) pays for thread
/// creation once.
///
/// Worker `w` is always the same thread, so per-worker state indexed by `w` is only touched
/// by one thread. Items of a batch are handed out in index order from a shared counter.
public final class WorkerPool: @unchecked Sendable {
    public let threads: Int
    /// What the worker threads share. They hold it, never the pool, so the pool's `deinit`
    /// runs as soon as its owner lets go, and there stops them and waits for them.
    private let shared: Shared
    private let lock = NSLock()

    public init(threads: Int) {
        self.threads = max(1, threads)
        shared = Shared(threads: self.threads)
        guard self.threads > 1 else { return }
        for w in 0..<self.threads {
            let shared = self.shared
            let thread = Thread { shared.loop(worker: w) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    deinit {
        if threads > 1 { shared.stop() }
    }

    /// Calls `body(item, worker)` for every item in `0 ..< count` and returns when all are done.
    /// One batch at a time (calls are serialised).
    public func run(count: Int, _ body: @escaping @Sendable (_ item: Int, _ worker: Int) -> Void) {
        if count == 0 { return }
        if threads == 1 || count == 1 {
            for i in 0..<count { body(i, 0) }
            return
        }
        lock.lock()
        defer { lock.unlock() }
        shared.run(count: count, body)
    }

    /// The state of one pool's threads.
    private final class Shared: @unchecked Sendable {
        let threads: Int
        let start: [DispatchSemaphore]
        let done = DispatchSemaphore(value: 0)
        let next = Atomic<Int>(0)
        // Written by `run` before the workers are released and read by them after: the
        // semaphores order those accesses.
        var count = 0
        var body: (@Sendable (Int, Int) -> Void)? = nil
        var stopping = false

        init(threads: Int) {
            self.threads = threads
            start = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        }

        func run(count: Int, _ body: @escaping @Sendable (Int, Int) -> Void) {
            self.count = count
            self.body = body
            next.store(0, ordering: .relaxed)
            for s in start { s.signal() }
            for _ in 0..<threads { done.wait() }
            self.body = nil
        }

        func stop() {
            stopping = true
            for s in start { s.signal() }
            for _ in 0..<threads { done.wait() }
        }

        func loop(worker: Int) {
            while true {
                start[worker].wait()
                if stopping {
                    done.signal()
                    return
                }
                let body = self.body!, count = self.count
                while true {
                    let item = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if item >= count { break }
                    body(item, worker)
                }
                done.signal()
            }
        }
    }
}

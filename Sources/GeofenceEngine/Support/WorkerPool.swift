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
    private let start: [DispatchSemaphore]
    private let done = DispatchSemaphore(value: 0)
    private let next = Atomic<Int>(0)
    private let lock = NSLock()
    // Written by `run` before the workers are released, read by them after: the semaphores
    // order those accesses.
    private var count = 0
    private var body: (@Sendable (Int, Int) -> Void)? = nil
    private var stopping = false

    public init(threads: Int) {
        self.threads = max(1, threads)
        start = (0..<max(1, threads)).map { _ in DispatchSemaphore(value: 0) }
        guard self.threads > 1 else { return }
        for w in 0..<self.threads {
            // unowned(unsafe): deinit waits for every worker to leave before the memory goes.
            let thread = Thread { [unowned(unsafe) self] in self.loop(worker: w) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    deinit {
        // Workers hold `self` unowned; they exit before the pool's memory goes away.
        if threads > 1 {
            stopping = true
            for s in start { s.signal() }
            for _ in 0..<threads { done.wait() }
        }
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
        self.count = count
        self.body = body
        next.store(0, ordering: .relaxed)
        for s in start { s.signal() }
        for _ in 0..<threads { done.wait() }
        self.body = nil
    }

    private func loop(worker: Int) {
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

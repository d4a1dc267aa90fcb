import Dispatch
import Synchronization

/// A thread that could not be started: the system refused its stack or its limit on threads
/// was reached.
public struct ThreadStartError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The 1-based number of the thread that failed, and how many threads the pool starts
    /// (one fewer than its workers: the calling thread is worker 0).
    public var thread: Int
    public var of: Int
    /// The system's reason (`pthread_create`'s error).
    public var reason: String
    public var description: String {
        "cannot start thread \(thread) of \(of): \(reason) (use fewer threads, or raise the memory or thread limit)"
    }
}

/// A fixed set of threads that run batches of work items, kept alive between batches so a
/// long run of small batches (the batch evaluator's windows of devices) pays for thread
/// creation once.
///
/// Worker 0 is the calling thread, which takes items with the others; workers 1 ..< threads
/// are the pool's own threads, each always the same one. Calls are serialised, so per-worker
/// state indexed by `w` is only touched by one thread at a time. Items of a batch are handed
/// out in index order from a shared counter.
///
/// A worker that finished a batch watches for the next for ``watchSeconds`` before it sleeps,
/// and so does the caller for the workers' end: a run of batches back to back (a parallel
/// query's answer, then its copies) then wakes no thread. Measured before, with the caller
/// waiting beside two workers on this 2-core VM: each wake took about 40 µs, the caller woke
/// on a worker's core and preempted it (25,000 involuntary switches of one worker in 4 s), and
/// a 50,000-fix batch on two threads took twice one thread's time.
///
/// The threads are created with ``Platform/startThread(stackSize:_:)``, which reports a
/// failure: a pool whose threads cannot all start stops the ones that did and throws, so no
/// batch ever waits for a thread that does not exist.
package final class WorkerPool: @unchecked Sendable {
    /// The most threads a pool (and `--threads`) may have. More than the cores gains nothing
    /// for this CPU-bound work; each thread costs an 8 MiB stack and, in the batch, a GEOS
    /// context and buffers.
    package static let maximumThreads = 256

    /// Each worker's stack: the evaluation of deep polygons recurses in GEOS. (Worker 0 runs
    /// on the caller's stack, as a one-thread query does.)
    package static let stackSize = 8 << 20

    /// Seconds a worker that finished a batch watches for the next, and the caller for the
    /// workers' end, before sleeping: several wakes' worth (about 40 µs each here).
    package static let watchSeconds = 200e-6

    /// The workers, the calling thread included.
    package let threads: Int
    /// What the worker threads share. They hold it, never the pool, so the pool's `deinit`
    /// runs as soon as its owner lets go, and there stops them and waits for them.
    private let shared: Shared
    /// Serialises the calls: the batch's `count` and `body` in ``Shared`` are written by each
    /// caller under it (the semaphores order them with the workers). A pthread mutex
    /// (`Platform.Lock`), not `Mutex(())`, so that ThreadSanitizer sees the ordering between
    /// two callers on different threads: it does not see `Mutex`'s once contended (a futex
    /// wait inside the Synchronization library, which TSan does not instrument), and would
    /// report those writes as a race (as it did, falsely, for `InOrderCommits`).
    private let lock = Platform.Lock()

    /// Starts `threads − 1` threads (1 runs every batch on the calling thread alone).
    /// - Throws: ``ThreadStartError`` when a thread cannot be created; the threads already
    ///   started are stopped first.
    /// - Precondition: `threads <= maximumThreads` (callers check their input).
    package convenience init(threads: Int) throws(ThreadStartError) {
        try self.init(threads: threads) { body in Platform.startThread(stackSize: Self.stackSize, body) }
    }

    /// As ``init(threads:)``, with the way threads are started given (tests make it fail).
    package init(threads: Int, start: (@escaping @Sendable () -> Void) -> String?) throws(ThreadStartError) {
        precondition(threads <= Self.maximumThreads, "at most \(Self.maximumThreads) threads")
        self.threads = max(1, threads)
        shared = Shared(threads: self.threads, watches: self.threads <= Platform.coreCount)
        for w in 1..<self.threads {
            let shared = self.shared
            if let reason = start({ shared.loop(worker: w) }) {
                // The pool is deinitialised as it throws: `deinit` stops the threads that run.
                throw ThreadStartError(thread: w, of: self.threads - 1, reason: reason)
            }
            shared.started = w
        }
    }

    deinit {
        shared.stop()
    }

    /// Calls `body(item, worker)` for every item in `0 ..< count` and returns when all are done.
    /// One batch at a time (calls are serialised).
    package func run(count: Int, _ body: @escaping @Sendable (_ item: Int, _ worker: Int) -> Void) {
        if count == 0 { return }
        if threads == 1 || count == 1 {
            for i in 0..<count { body(i, 0) }
            return
        }
        _ = lock.withLock { shared.batch(count: count, body) { () throws(Never) in } }
    }

    /// ``run(count:_:)`` with `meanwhile` called on the calling thread first, while the other
    /// workers start on the batch, so the caller's serial work (writing the previous batch's
    /// output) overlaps it; then the caller takes items too. Returns once both are done. What
    /// `meanwhile` throws is rethrown only after the batch finished, so no item outlives the
    /// caller's buffers. A pool of one thread calls `meanwhile` first, then runs the batch
    /// (not at all when `meanwhile` throws). `meanwhile` must not use this pool (one batch at a
    /// time: it would wait for itself).
    package func run<E: Error>(
        count: Int, _ body: @escaping @Sendable (_ item: Int, _ worker: Int) -> Void, meanwhile: () throws(E) -> Void
    ) throws(E) {
        guard threads > 1, count > 0 else {
            try meanwhile()
            run(count: count, body)
            return
        }
        if let failure = lock.withLock({ shared.batch(count: count, body, meanwhile: meanwhile) }) { throw failure }
    }

    /// The state of one pool's threads.
    private final class Shared: @unchecked Sendable {
        let threads: Int
        /// Whether the workers and the caller watch before they sleep (not when there are
        /// more threads than cores: a watching thread would hold a core another needs).
        let watches: Bool
        /// One per worker thread (index w − 1 for worker w).
        let start: [DispatchSemaphore]
        let done = DispatchSemaphore(value: 0)
        let next = Atomic<Int>(0)
        /// Batches released so far: a worker that finished one watches it for the next.
        let epoch = Atomic<Int>(0)
        /// Worker threads still on the batch: the caller watches it for the end.
        let busy = Atomic<Int>(0)
        // Written by `begin` before the workers are released and read by them after: the
        // semaphores order those accesses.
        var count = 0
        var body: (@Sendable (Int, Int) -> Void)? = nil
        var stopping = false
        /// Worker threads that run (all of them once the pool is made).
        var started = 0

        init(threads: Int, watches: Bool) {
            self.threads = threads
            self.watches = watches
            start = (1..<max(1, threads)).map { _ in DispatchSemaphore(value: 0) }
        }

        /// Releases the worker threads on a batch (``finish()`` waits for them).
        func begin(count: Int, _ body: @escaping @Sendable (Int, Int) -> Void) {
            self.count = count
            self.body = body
            next.store(0, ordering: .relaxed)
            busy.store(threads - 1, ordering: .relaxed)
            for s in start { s.signal() }
            epoch.add(1, ordering: .releasing)
        }

        /// One batch: the worker threads released, `meanwhile` on the calling thread, then the
        /// caller's items as worker 0, then the wait for the threads. Returns what `meanwhile`
        /// threw, once the batch is done.
        func batch<E: Error>(
            count: Int, _ body: @escaping @Sendable (Int, Int) -> Void, meanwhile: () throws(E) -> Void
        ) -> E? {
            begin(count: count, body)
            var failure: E? = nil
            do throws(E) { try meanwhile() } catch { failure = error }
            take(worker: 0)
            finish()
            return failure
        }

        /// Runs items of the batch as `worker` until none is left.
        func take(worker: Int) {
            let body = self.body!, count = self.count
            while true {
                let item = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if item >= count { break }
                body(item, worker)
            }
        }

        /// Waits until every worker thread is done with the batch ``begin(count:_:)`` released.
        func finish() {
            if watches { watch { busy.load(ordering: .acquiring) == 0 } }
            for _ in 1..<threads { done.wait() }
            self.body = nil
        }

        /// Spins until `ready` or ``WorkerPool/watchSeconds`` have passed. Waking is left to
        /// the semaphores either way (their waits then return at once), so watching changes
        /// no ordering.
        func watch(until ready: () -> Bool) {
            let deadline = Platform.monotonicSeconds() + WorkerPool.watchSeconds
            var k = 0
            while !ready() {
                k &+= 1
                if k & 255 == 0 && Platform.monotonicSeconds() > deadline { return }
            }
        }

        /// Stops the worker threads that were started (the others never ran) and waits for them.
        func stop() {
            guard !stopping else { return }
            stopping = true
            for s in start.prefix(started) { s.signal() }
            epoch.add(1, ordering: .releasing)
            for _ in 0..<started { done.wait() }
        }

        func loop(worker: Int) {
            var seen = 0
            while true {
                if watches { watch { epoch.load(ordering: .relaxed) != seen } }
                start[worker - 1].wait()
                // Each batch (and the stop) adds one to the epoch, after its signals: counted
                // here, not read, since the caller may not have added it yet.
                seen &+= 1
                if stopping {
                    done.signal()
                    return
                }
                take(worker: worker)
                busy.subtract(1, ordering: .releasing)
                done.signal()
            }
        }
    }
}

import Dispatch
import Synchronization

/// A thread that could not be started: the system refused its stack or its limit on threads
/// was reached.
public struct ThreadStartError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The 1-based number of the thread that failed, and how many were asked for.
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
/// Worker `w` is always the same thread, so per-worker state indexed by `w` is only touched
/// by one thread. Items of a batch are handed out in index order from a shared counter.
///
/// The threads are created with ``Platform/startThread(stackSize:_:)``, which reports a
/// failure: a pool whose threads cannot all start stops the ones that did and throws, so no
/// batch ever waits for a thread that does not exist.
package final class WorkerPool: @unchecked Sendable {
    /// The most threads a pool (and `--threads`) may have. More than the cores gains nothing
    /// for this CPU-bound work; each thread costs an 8 MiB stack and, in the batch, a GEOS
    /// context and buffers.
    package static let maximumThreads = 256

    /// Each worker's stack: the evaluation of deep polygons recurses in GEOS.
    package static let stackSize = 8 << 20

    package let threads: Int
    /// What the worker threads share. They hold it, never the pool, so the pool's `deinit`
    /// runs as soon as its owner lets go, and there stops them and waits for them.
    private let shared: Shared
    private let lock = Mutex(())

    /// Starts `threads` threads (1 runs every batch on the calling thread).
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
        shared = Shared(threads: self.threads)
        guard self.threads > 1 else { return }
        for w in 0..<self.threads {
            let shared = self.shared
            if let reason = start({ shared.loop(worker: w) }) {
                // The pool is deinitialised as it throws: `deinit` stops the `w` threads
                // that run.
                throw ThreadStartError(thread: w + 1, of: self.threads, reason: reason)
            }
            shared.started = w + 1
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
        lock.withLock { _ in shared.run(count: count, body) }
    }

    /// ``run(count:_:)`` with `meanwhile` called on the calling thread while the workers run
    /// the batch, so the caller's serial work (writing the previous batch's output) overlaps
    /// it. Returns once both are done. What `meanwhile` throws is rethrown only after the
    /// batch finished, so no item outlives the caller's buffers. A pool of one thread calls
    /// `meanwhile` first, then runs the batch (not at all when `meanwhile` throws). `meanwhile` must not use this pool (one batch
    /// at a time: it would wait for itself).
    package func run<E: Error>(
        count: Int, _ body: @escaping @Sendable (_ item: Int, _ worker: Int) -> Void, meanwhile: () throws(E) -> Void
    ) throws(E) {
        guard threads > 1, count > 0 else {
            try meanwhile()
            run(count: count, body)
            return
        }
        let failure: E? = lock.withLock { _ in
            shared.begin(count: count, body)
            var failure: E? = nil
            do throws(E) { try meanwhile() } catch { failure = error }
            shared.finish()
            return failure
        }
        if let failure { throw failure }
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
        /// Workers whose threads run (all of them once the pool is made).
        var started = 0

        init(threads: Int) {
            self.threads = threads
            start = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        }

        func run(count: Int, _ body: @escaping @Sendable (Int, Int) -> Void) {
            begin(count: count, body)
            finish()
        }

        /// Releases the workers on a batch (``finish()`` waits for it).
        func begin(count: Int, _ body: @escaping @Sendable (Int, Int) -> Void) {
            self.count = count
            self.body = body
            next.store(0, ordering: .relaxed)
            for s in start { s.signal() }
        }

        /// Waits until every worker is done with the batch ``begin(count:_:)`` released.
        func finish() {
            for _ in 0..<threads { done.wait() }
            self.body = nil
        }

        /// Stops the workers that were started (the others never ran) and waits for them.
        func stop() {
            guard !stopping else { return }
            stopping = true
            for s in start.prefix(started) { s.signal() }
            for _ in 0..<started { done.wait() }
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

/// Commits the results of parallel work items in item order, as soon as each is ready, one
/// commit at a time: workers that hand out items in index order (``ParallelWorkers``) append
/// their results to one output in the one-thread order, without holding every result until
/// the end.
///
/// A worker submits its result; whichever worker finds the next result in order ready
/// commits it, and any ready after it, outside the lock, while the others go on working. A
/// result waits only for those before it, so with items taken in order few wait at once,
/// and the memory of a committed result can serve the next item (``recycle(_:)``).
final class InOrderCommits<Output>: @unchecked Sendable {
    private struct State {
        var waiting: [Int: Output] = [:]
        var next = 0
        var committing = false
        var spare: [Output] = []
    }
    // The state is a plain property read and written only inside `lock` (a `Mutex` holding
    // it would have to send results across isolation domains, which they are not). The lock
    // is a pthread mutex (`Platform.Lock`), not the standard library's `Mutex(())`: with
    // that, ThreadSanitizer reported 75 races here (`submit`, `recycle`, `reused`), all false:
    // every access is inside the lock, but TSan does not see the ordering `Mutex` gives once
    // contended (it then waits on a futex inside the Synchronization library, which TSan does
    // not instrument). TSan intercepts pthread mutexes, so it sees this one's.
    private let lock = Platform.Lock()
    private var s = State()

    init() {}

    /// Hands in item `index`'s result; `commit` is called for it, and for the results after
    /// it that are ready, on this thread or on the one committing when this is called.
    /// Every result is committed exactly once, in index order, by the time all items are
    /// submitted and every `submit` has returned.
    func submit(_ index: Int, _ result: Output, commit: (Output) -> Void) {
        var current: Output? = lock.withLock {
            s.waiting[index] = result
            guard !s.committing, let ready = s.waiting.removeValue(forKey: s.next) else { return nil }
            s.committing = true
            s.next += 1
            return ready
        }
        while let ready = current {
            commit(ready)
            current = lock.withLock {
                guard let following = s.waiting.removeValue(forKey: s.next) else {
                    s.committing = false
                    return nil
                }
                s.next += 1
                return following
            }
        }
    }

    /// Keeps a committed result's memory for reuse (``reused()``).
    func recycle(_ result: Output) { lock.withLock { s.spare.append(result) } }

    /// A recycled result, or nil when none is spare.
    func reused() -> Output? { lock.withLock { s.spare.popLast() } }
}

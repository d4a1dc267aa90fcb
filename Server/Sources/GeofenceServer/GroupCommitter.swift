import Foundation
import Logging
import Synchronization

/// Commits write sets in the order they were handed in, each batch of everything waiting in
/// one transaction: requests that arrive while a commit (and its fsync) runs share the next
/// one, so throughput does not depend on one fsync per request.
///
/// The engine hands in a set while it still holds its isolation (``enqueue(_:)`` is
/// synchronous), so sets are committed in the order their sequence numbers were given.
///
/// A commit that fails stops the process: the engine's memory is then ahead of the
/// database, and only a restart (which reads the database) makes them agree again. Nothing
/// that failed was acknowledged.
final class GroupCommitter: Sendable {
    private struct State {
        var pending: [Store.WriteSet] = []
        var tickets: [CommitTicket] = []
        var running = false
    }

    private let store: Store
    private let logger: Logger
    private let metrics: ServerMetrics
    private let feed: EventFeed
    private let state = Mutex(State())

    init(store: Store, logger: Logger, metrics: ServerMetrics, feed: EventFeed) {
        self.feed = feed
        self.store = store
        self.logger = logger
        self.metrics = metrics
    }

    /// Queues `set`; the ticket completes once it is durable.
    func enqueue(_ set: Store.WriteSet) -> CommitTicket {
        let ticket = CommitTicket()
        let start = state.withLock { state in
            state.pending.append(set)
            state.tickets.append(ticket)
            defer { state.running = true }
            return !state.running
        }
        if start { Task.detached { await self.drain() } }
        return ticket
    }

    /// Waits until everything queued so far is durable (at shutdown).
    func flush() async {
        await enqueue(Store.WriteSet()).wait()
    }

    /// Commits batches until nothing waits.
    private func drain() async {
        while true {
            let batch: ([Store.WriteSet], [CommitTicket])? = state.withLock { state in
                if state.pending.isEmpty {
                    state.running = false
                    return nil
                }
                defer { state.pending.removeAll(); state.tickets.removeAll() }
                return (state.pending, state.tickets)
            }
            guard let batch else { return }
            let (sets, tickets) = batch
            let clock = ContinuousClock()
            let start = clock.now
            do {
                try await store.commit(sets)
            } catch {
                logger.critical("commit failed, stopping so that a restart reloads the durable state: \(error)")
                exit(70)
            }
            metrics.commitDuration.record(clock.now - start)
            metrics.commitSets.record(Double(sets.count))
            logger.trace("group commit: \(sets.count) write sets")
            for ticket in tickets { ticket.complete() }
            if let last = sets.lazy.compactMap({ $0.events.last?.seq }).max() { feed.committed(upTo: last) }
        }
    }
}

/// Completes once a write set is durable; any number of tasks may wait for it.
final class CommitTicket: Sendable {
    private struct State {
        var done = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A ticket that is already durable (a request that changed nothing).
    static var done: CommitTicket {
        let ticket = CommitTicket()
        ticket.complete()
        return ticket
    }

    func complete() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

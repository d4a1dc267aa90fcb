import ServiceLifecycle
import Synchronization

/// Tells Server-Sent Events subscribers that events were committed: each subscriber's
/// stream yields the latest committed sequence number (only the newest is kept: a
/// subscriber reads the log from its cursor anyway, so it never misses one).
///
/// Closed at shutdown, before the HTTP server drains, so open streams end and do not hold
/// the exit back.
final class EventFeed: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Int64>.Continuation] = [:]
        var nextID = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// A stream of committed sequence numbers, and its id for ``unsubscribe(_:)``. Subscribe
    /// before reading the log, so that no commit falls between the read and the wait.
    func subscribe() -> (stream: AsyncStream<Int64>, id: Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> Int in
            if state.closed {
                continuation.finish()
                return -1
            }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        return (stream, id)
    }

    func unsubscribe(_ id: Int) {
        let removed = state.withLock { state in state.subscribers.removeValue(forKey: id) }
        removed?.finish()
    }

    /// Events up to `seq` are durable.
    func committed(upTo seq: Int64) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(seq) }
    }

    /// The value a keep-alive wakes subscribers with (no sequence number is negative).
    static let keepAlive: Int64 = -1

    /// Wakes every subscriber with ``keepAlive``.
    func ping() { committed(upTo: Self.keepAlive) }

    /// Ends every stream, now and for later subscribers.
    func close() {
        let subscribers = state.withLock { state in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}

/// Pings the feed every `--keep-alive` seconds: idle event streams write a comment.
struct EventFeedKeepAlive: Service {
    let feed: EventFeed
    let interval: Duration

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            feed.ping()
        }
    }
}

/// Closes the feed when the service group starts its graceful shutdown. Listed after the
/// HTTP server, so it is shut down first (a service group stops its services in reverse).
struct EventFeedCloser: Service {
    let feed: EventFeed

    func run() async throws {
        try? await gracefulShutdown()
        feed.close()
    }
}

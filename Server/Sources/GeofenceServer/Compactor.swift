import Logging
import ServiceLifecycle

/// `--retain-events`: every tenth of the retention (at least a second, at most a minute),
/// deletes the events and idempotency records older than the retention by the server's
/// clock, then checkpoints the WAL so that the freed pages are reused rather than the files
/// growing.
struct Compactor: Service {
    let store: Store
    let engine: Engine
    /// Seconds kept.
    let retain: Double
    let metrics: ServerMetrics
    let logger: Logger

    var interval: Duration { .milliseconds(Int64(min(max(retain / 10, 1), 60) * 1000)) }

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            let cutoff = await engine.currentTime - Int64(retain * 1000)
            do {
                let deleted = try await store.deleteOlder(than: cutoff)
                guard deleted.events + deleted.requests > 0 else { continue }
                metrics.eventsDeleted.increment(by: Int64(deleted.events))
                metrics.requestsDeleted.increment(by: Int64(deleted.requests))
                logger.debug("--retain-events: deleted \(deleted.events) events and \(deleted.requests) idempotency records made before \(cutoff)")
                try store.checkpoint()
            } catch {
                logger.warning("--retain-events: deletion failed, retried at the next interval: \(error)")
            }
        }
    }
}

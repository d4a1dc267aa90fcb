import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Starts a server from its options and runs it until SIGTERM or SIGINT.
///
/// Order at start: the data folder's lock, the database, the engine (fences and devices as
/// the database left them), then the listening socket; its address is printed on standard
/// output as `geofence-server listening on http://HOST:PORT` once it accepts connections.
/// At SIGTERM the server stops accepting, finishes the requests in flight (each answered only
/// once durable), commits what is queued, checkpoints the WAL and returns.
public enum GeofenceServerRunner {
    /// Longest wait for requests in flight at shutdown, within the 5 s a supervisor allows.
    static let drainSeconds = 4

    /// - Throws: ``ServerError`` for a problem found before listening (options, token file,
    ///   fences, a data folder in use); other errors when the socket cannot be bound.
    public static func run(_ options: ServerOptions, logger: Logger) async throws {
        if let problem = options.problem { throw ServerError(problem) }
        Allocator.limitArenas(to: 2)
        let tokens = try options.tokenFile.map { path throws(ServerError) in try TokenStore.read(path: path) }
        do {
            try FileManager.default.createDirectory(atPath: options.dataPath, withIntermediateDirectories: true)
        } catch {
            throw ServerError("--data \(options.dataPath): cannot create it: \(error.localizedDescription)")
        }
        let lock = try DataLock(folder: options.dataPath)
        let store: Store
        do {
            store = try Store(folder: options.dataPath, synchronousFull: options.fsync == .always)
        } catch {
            throw ServerError("--data \(options.dataPath): cannot open the database: \(error)")
        }
        let metrics = ServerMetrics()
        metrics.bootstrapMetricsSystem()
        let feed = EventFeed()
        let committer = GroupCommitter(store: store, logger: logger, metrics: metrics, feed: feed)
        let engine: Engine
        do {
            engine = try Engine.open(options: options, store: store, committer: committer, logger: logger, metrics: metrics)
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError("cannot start: \(error)")
        }
        let router = Router()
        router.addMiddleware { MetricsMiddleware() }
        Routes(
            engine: engine, store: store, metrics: metrics, feed: feed, tokens: tokens, maximumBodyBytes: options.maximumBodyBytes,
            maximumLines: options.maximumLines
        ).register(on: router)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "geofence-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                // The one line on standard output: scripts and tests read the port from it.
                FileHandle.standardOutput.write(Data("geofence-server listening on http://\(host):\(port)\n".utf8))
            },
            logger: logger)
        // Stopped in reverse order: the feed closes first, ending event streams, then the
        // HTTP server drains.
        var services: [any Service] = [app, EventFeedCloser(feed: feed), EventFeedKeepAlive(feed: feed, interval: .milliseconds(Int64(options.keepAlive * 1000)))]
        if options.fsync == .interval { services.append(Checkpointer(store: store, seconds: options.fsyncInterval, logger: logger)) }
        if options.clock == .wall { services.append(ClockService(engine: engine)) }
        if let retain = options.retainEvents {
            services.append(Compactor(store: store, engine: engine, retain: retain, metrics: metrics, logger: logger))
        }
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(drainSeconds)
        try await ServiceGroup(configuration: configuration).run()
        await committer.flush()
        do { try store.checkpoint() } catch { logger.warning("checkpoint at shutdown failed: \(error)") }
        withExtendedLifetime(lock) {}
        logger.info("stopped")
    }
}

/// `--fsync interval`: checkpoints the WAL every few seconds, which syncs it to disk.
struct Checkpointer: Service {
    let store: Store
    let seconds: Double
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            // Woken by a graceful shutdown, so a long interval never delays the exit.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(seconds)) }
            do { try store.checkpoint() } catch { logger.warning("checkpoint failed: \(error)") }
        }
    }
}

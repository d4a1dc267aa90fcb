import ServiceLifecycle

/// `--clock wall`: ticks the engine's clock every ``interval``, to the wall clock less
/// `--clock-delay`, so that events due without a new fix fire within about a tick of
/// their time (and of the delay). With `--clock data` the requests move the clock and this
/// service is not started.
struct ClockService: Service {
    let engine: Engine
    static let interval = Duration.milliseconds(100)

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            // Woken by a graceful shutdown, so a tick never delays the exit.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            await engine.tick()
        }
    }
}

/// Wall-clock marks of a process's phases, printed to standard error when the environment
/// variable `GEOFENCE_TRACE` is set: where a whole command's time goes, for profiling.
package enum PhaseTrace {
    /// Whether tracing is on (read once).
    package static let isEnabled: Bool = Platform.environment("GEOFENCE_TRACE") != nil
    nonisolated(unsafe) private static var last = Platform.monotonicSeconds()

    /// Prints the time since the previous mark, named `phase`.
    package static func mark(_ phase: @autoclosure () -> String) {
        guard isEnabled else { return }
        let now = Platform.monotonicSeconds()
        Platform.writeStandardError("trace \(phase()): \(Int(((now - last) * 1e6).rounded())) µs\n")
        last = now
    }
}

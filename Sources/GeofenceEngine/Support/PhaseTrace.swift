/// Wall-clock marks of a process's phases, with the CPU time each took (all threads) and the
/// memory each faulted in, printed to standard error when the environment variable
/// `GEOFENCE_TRACE` is set: where a whole command's time goes, for profiling.
package enum PhaseTrace {
    /// Whether tracing is on (read once).
    package static let isEnabled: Bool = Platform.environment("GEOFENCE_TRACE") != nil
    nonisolated(unsafe) private static var last = Platform.monotonicSeconds()
    nonisolated(unsafe) private static var lastFaults = Platform.minorPageFaults()
    nonisolated(unsafe) private static var lastCPU = Platform.processorSeconds()

    /// Prints `text` (a size, a count) without ending a phase.
    package static func note(_ text: @autoclosure () -> String) {
        guard isEnabled else { return }
        Platform.writeStandardError("trace note: \(text())\n")
    }

    /// Prints the time since the previous mark, named `phase`.
    package static func mark(_ phase: @autoclosure () -> String) {
        guard isEnabled else { return }
        let now = Platform.monotonicSeconds(), faults = Platform.minorPageFaults(), cpu = Platform.processorSeconds()
        // A fault is a fresh 4 KiB page (the kernel clears it: about 0.5 ms per MB on this VM).
        Platform.writeStandardError(
            "trace \(phase()): \(Int(((now - last) * 1e6).rounded())) µs, CPU \(Int(((cpu - lastCPU) * 1e6).rounded())) µs, "
                + "\(((faults - lastFaults) * 4096) >> 20) MiB faulted\n")
        last = now
        lastFaults = faults
        lastCPU = cpu
    }
}

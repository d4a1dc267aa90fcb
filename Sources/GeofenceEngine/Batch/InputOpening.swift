import Dispatch

/// A fixes' file opened, its header and first block read, on a thread of its own while the
/// calling thread loads the fences (`geofence contains` and `geofence evaluate`).
///
/// A pipe's producer (`gzip -dc … |`) then works through the load instead of waiting for it,
/// its first block in our buffer and the next megabyte in the pipe. A regular file is mapped
/// after the load, as without it: there is nothing to wait for.
package enum InputOpening {
    /// Runs `open` on a thread of its own while `meanwhile` (the fences' load) runs on the
    /// calling thread, and returns both results once both are done. When `meanwhile` throws,
    /// its error is thrown at once, without waiting for the file (a pipe may not have sent a
    /// line yet), and the thread finishes on its own: for a command about to exit. When the
    /// thread cannot start, or `path` is a regular file, `open` runs after `meanwhile`.
    /// - Throws: what `meanwhile` throws, else what `open` throws.
    package static func opening<Input, T>(
        _ path: String, _ open: @escaping @Sendable () throws(FileError) -> Input, while meanwhile: () throws -> T
    ) throws -> (T, Input) {
        if Platform.status(atPath: path)?.kind == .regular {
            let value = try meanwhile()
            return (value, try open())
        }
        let handoff = Handoff<Input>()
        let refused = Platform.startThread(stackSize: 1 << 20) {
            handoff.result = Result { () throws(FileError) in try open() }
            handoff.done.signal()
        }
        let value = try meanwhile()
        guard refused == nil else { return (value, try open()) }
        handoff.done.wait()
        return (value, try handoff.result!.get())
    }

    /// The opening thread's result, read by the caller after `done` is signalled (the input
    /// is made on one thread and handed to the other once, never used by both).
    private final class Handoff<Input>: @unchecked Sendable {
        var result: Result<Input, FileError>? = nil
        let done = DispatchSemaphore(value: 0)
    }
}

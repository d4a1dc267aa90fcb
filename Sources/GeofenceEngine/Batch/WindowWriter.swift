import Dispatch
import Synchronization

/// Writes the batch's windows of device results on its own thread, in submission order,
/// while the workers evaluate the next window.
///
/// One window is written while the next is evaluated; a third waits in ``submit(_:)``, so
/// the events of at most two windows are held (a window's lines can be tens of megabytes when
/// fixes make several events each, as on the Austin data).
/// The first write error stops the writing and is thrown by the next call.
///
/// The thread is the writer's own, started with ``Platform/startThread(stackSize:_:)`` (a
/// failure is an error, not a wait), and needs no memory to take a window: a queue of
/// blocks (libdispatch) would need some, and spins when the system refuses it.
final class WindowWriter {
    private let state: State

    /// Starts the writing thread.
    /// - Throws: ``ThreadStartError`` when it cannot be started.
    init(_ output: OutputSink) throws(ThreadStartError) {
        let state = State(output)
        if let reason = Platform.startThread(stackSize: 1 << 20, { state.loop() }) {
            throw ThreadStartError(thread: 1, of: 1, reason: "the output writer: \(reason)")
        }
        self.state = state
    }

    deinit { state.stop() }

    /// Queues a window's lines (waits while the previous one is still being written).
    /// - Throws: the error of an earlier write.
    func submit(_ results: [DeviceResult]) throws(FileError) {
        try state.check()
        state.room.wait()
        state.pending = results
        state.ready.signal()
    }

    /// Waits until every queued window is written. - Throws: the first write error.
    func drain() throws(FileError) {
        state.room.wait()
        state.room.signal()
        try state.check()
    }

    /// Drains, then flushes the output. - Throws: the first write error.
    func finish() throws(FileError) {
        try drain()
        try state.output.flush()
    }

    /// What the writing thread shares with the writer. The thread holds this, not the
    /// writer, so the writer's `deinit` runs when its owner lets go, and stops the thread.
    private final class State: @unchecked Sendable {
        let output: OutputSink
        /// Signalled when no window is being written (one permit: one window in flight).
        let room = DispatchSemaphore(value: 1)
        /// Signalled when `pending` holds a window, or when the thread is to stop.
        let ready = DispatchSemaphore(value: 0)
        // Handed over under the semaphores: written by `submit` before `ready` is signalled,
        // read by the thread after it waited for `ready`.
        var pending: [DeviceResult]? = nil
        let failure = Mutex<FileError?>(nil)

        init(_ output: OutputSink) { self.output = output }

        func loop() {
            while true {
                ready.wait()
                guard let results = pending else {
                    // Stopping: give back the permit `stop` took (a semaphore must end with
                    // its initial value), then end the thread.
                    room.signal()
                    return
                }
                pending = nil
                if failure.withLock({ $0 }) == nil {
                    // Raw ranges: a device's lines of 64 KiB or more go out without a copy
                    // into the sink's buffer.
                    for result in results {
                        do throws(FileError) {
                            try output.write(result.lines.bytes)
                        } catch {
                            failure.withLock { $0 = error }
                            break
                        }
                    }
                }
                room.signal()
            }
        }

        /// Waits for the window in flight, then ends the thread.
        func stop() {
            room.wait()
            pending = nil
            ready.signal()
        }

        func check() throws(FileError) {
            if let error = failure.withLock({ $0 }) { throw error }
        }
    }
}

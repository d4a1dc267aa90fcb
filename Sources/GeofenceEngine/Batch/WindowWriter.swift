import Dispatch
import Synchronization

/// Writes the batch's windows of device results on its own thread, in submission order,
/// while the workers evaluate the next window.
///
/// One window is written while the next is evaluated; a third waits in ``submit(_:)``, so
/// the events of at most two windows are held (a window's lines can be tens of megabytes when
/// fixes make several events each, as on the Austin data).
/// The first write error stops the writing and is thrown by the next call.
final class WindowWriter: @unchecked Sendable {
    private let output: OutputSink
    private let queue = DispatchQueue(label: "geofence-engine.window-writer")
    private let room = DispatchSemaphore(value: 1)
    private let failure = Mutex<FileReadError?>(nil)

    init(_ output: OutputSink) { self.output = output }

    /// Queues a window's lines (waits while the previous one is still being written).
    /// - Throws: the error of an earlier write.
    func submit(_ results: [DeviceResult]) throws(FileReadError) {
        try check()
        room.wait()
        queue.async { [self] in
            defer { room.signal() }
            guard failure.withLock({ $0 }) == nil else { return }
            do throws(FileReadError) {
                for result in results { try output.write(result.bytes) }
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    /// Waits until every queued window is written. - Throws: the first write error.
    func drain() throws(FileReadError) {
        queue.sync {}
        try check()
    }

    /// Drains, then flushes the output. - Throws: the first write error.
    func finish() throws(FileReadError) {
        try drain()
        try output.flush()
    }

    private func check() throws(FileReadError) {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

import Foundation

/// A named pipe fed by a thread: the way tests give a reader a pipe (no mapping, blocks read
/// as they arrive) with known contents.
public enum TestFIFO {
    /// Makes a FIFO at `path` and starts a thread that writes `bytes` into it and closes it.
    /// The writer's open waits for a reader, so open `path` next (and read it to the end);
    /// the caller removes `path` (`unlink`).
    /// Returns what tells when every byte was written (taken by a reader: a pipe holds less).
    /// - Throws: when the FIFO cannot be made.
    @discardableResult
    public static func feed(_ bytes: Data, at path: String) throws -> Feeding {
        guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        // A reader that stops early (a failing test) makes the write fail, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let feeding = Feeding()
        let writer = Thread {
            defer { feeding.written.signal() }
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            try? handle.write(contentsOf: bytes)
            try? handle.close()
        }
        writer.start()
        return feeding
    }

    /// The end of one ``feed(_:at:)``.
    public final class Feeding: @unchecked Sendable {
        fileprivate let written = DispatchSemaphore(value: 0)

        /// Waits up to `seconds` for the writer to have written every byte and closed the pipe;
        /// false when it has not.
        public func waitUntilWritten(seconds: Double) -> Bool {
            written.wait(timeout: .now() + seconds) == .success
        }
    }
}

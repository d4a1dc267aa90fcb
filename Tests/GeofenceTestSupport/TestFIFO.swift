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
        try feed(parts: [bytes], at: path)
    }

    /// Makes a FIFO at `path` and starts a thread that writes `parts` into it one by one,
    /// like a live feed: the first at once, each next one when ``Feeding/release()`` is called
    /// (or `patience` seconds after the one before, so a reader that never asks still ends);
    /// then it closes the pipe. The caller opens and reads `path`, and removes it.
    /// - Throws: when the FIFO cannot be made.
    @discardableResult
    public static func feed(parts: [Data], at path: String, patience: Double = 10) throws -> Feeding {
        guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        // A reader that stops early (a failing test) makes the write fail, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        let feeding = Feeding()
        let writer = Thread {
            defer { feeding.written.signal() }
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            for (k, part) in parts.enumerated() {
                if k > 0 && feeding.next.wait(timeout: .now() + patience) == .timedOut { feeding.noteTimeout() }
                try? handle.write(contentsOf: part)
            }
            try? handle.close()
        }
        writer.start()
        return feeding
    }

    /// The writer of one ``feed(_:at:)`` or ``feed(parts:at:patience:)``.
    public final class Feeding: @unchecked Sendable {
        fileprivate let next = DispatchSemaphore(value: 0)
        fileprivate let written = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var timeouts = 0

        /// Lets the writer write its next part.
        public func release() { next.signal() }

        /// Parts the writer wrote because nobody released them in time.
        public var partsNotReleased: Int { lock.withLock { timeouts } }

        fileprivate func noteTimeout() { lock.withLock { timeouts += 1 } }

        /// Waits up to `seconds` for the writer to have written every part and closed the pipe;
        /// false when it has not.
        public func waitUntilWritten(seconds: Double) -> Bool {
            written.wait(timeout: .now() + seconds) == .success
        }

        /// Ends the writer after its reader has gone (a run that failed before it opened the
        /// FIFO at `path`, or stopped reading): while the writer has not finished, opens the
        /// FIFO and reads it to its end, which frees a writer waiting in its open or its write.
        /// A writer that has not reached its open yet is caught on the next round.
        /// - Returns: true when the writer ended within `seconds`.
        @discardableResult
        public func drain(_ path: String, seconds: Double = 30) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !waitUntilWritten(seconds: 0.02) {
                guard Date() < deadline else { return false }
                let fd = open(path, O_RDONLY | O_NONBLOCK)
                guard fd >= 0 else { continue }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                _ = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
            }
            return true
        }
    }
}

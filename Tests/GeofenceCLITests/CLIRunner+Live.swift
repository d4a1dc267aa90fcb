import Foundation

/// A `geofence` process fed through its standard input while it runs, like a live feed: the
/// test sends text, waits for output lines, sends more, then closes the input.
final class LiveCLI: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe(), output = Pipe()
    private let lock = NSLock()
    private var bytes = Data()
    private let finished = DispatchSemaphore(value: 0)
    private let errorFile: URL

    /// What the process wrote to standard error so far (for failure messages).
    var stderr: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Starts `geofence arguments` (``CLIRunner/environment(_:removing:)``), its standard output
    /// read on a thread of its own.
    init(_ arguments: [String]) throws {
        process.executableURL = CLIRunner.executable
        process.arguments = arguments
        process.environment = CLIRunner.environment()
        process.standardInput = input
        process.standardOutput = output
        errorFile = try CLIRunner.temporaryDirectory().appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        // A process that ended early makes `send` fail, not kill the tests.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        let reader = Thread { [self] in
            while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
                lock.withLock { self.bytes.append(data) }
            }
            finished.signal()
        }
        reader.start()
    }

    /// Writes `text` to the process's standard input (which stays open).
    func send(_ text: String) throws { try input.fileHandleForWriting.write(contentsOf: Data(text.utf8)) }

    /// The whole lines of output so far.
    var lines: [String] {
        let text = lock.withLock { String(decoding: bytes, as: UTF8.self) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The output's lines once there are `count`, or after `seconds`, whichever comes first.
    func lines(atLeast count: Int, within seconds: Double) -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while lines.count < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return lines
    }

    /// Closes the input and waits for the process and its output (up to `seconds`); the exit
    /// status, or nil when the output did not end in time.
    func finish(within seconds: Double = 10) throws -> Int32? {
        try input.fileHandleForWriting.close()
        guard finished.wait(timeout: .now() + seconds) == .success else {
            process.terminate()
            return nil
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

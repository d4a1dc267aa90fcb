import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `geofence-server` child process on a free loopback port (`--port 0`; the port is read
/// from the line it prints once it listens). Its standard output and error go to files in
/// the test's folder.
final class ServerProcess {
    let process = Process()
    let port: Int
    let stderrPath: String

    /// The directory of the test binary, which also holds the package's executables.
    static var executable: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = testBinary.deletingLastPathComponent()
        // On some runners argv[0] is inside the .xctest bundle.
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("geofence-server").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("geofence-server")
    }

    /// Starts a server and waits until it listens.
    /// - Throws: when it exits first (``ServerExit`` with its status and standard error), or
    ///   does not listen within 30 s.
    init(arguments: [String], folder: URL, name: String = "server", environment: [String: String] = [:]) throws {
        let out = folder.appendingPathComponent("\(name).\(UUID().uuidString.prefix(8)).out")
        stderrPath = out.path + ".err"
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = Self.executable
        // The tests post fixes of past days: the wall clock would fire every pending event at
        // once. They run on the data clock unless they name a clock.
        process.arguments = arguments + ["--port", "0"] + (arguments.contains("--clock") ? [] : ["--clock", "data"])
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var found: Int? = nil
        while found == nil && Date() < deadline {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix(while: \.isNumber)
                found = Int(digits)
                break
            }
            if !process.isRunning {
                process.waitUntilExit()
                throw ServerExit(status: process.terminationStatus, stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
            }
            usleep(20_000)
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ServerExit(status: -1, stderr: "did not listen within 30 s")
        }
        port = found
    }

    /// A server that exited before listening: its status and what it printed on standard error.
    struct ServerExit: Error, CustomStringConvertible {
        var status: Int32
        var stderr: String
        var description: String { "exit \(status): \(stderr)" }
    }

    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data()) throws -> HTTPResult {
        try HTTPTestClient.request(port: port, method, path, headers: headers, body: body)
    }

    /// `kill -9`: no chance to flush or clean up.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then the exit status and the seconds the exit took (the server is killed
    /// after `limit` seconds, and the status is then -1).
    func terminate(limit: Double = 10) -> (status: Int32, seconds: Double) {
        let start = Date()
        kill(process.processIdentifier, SIGTERM)
        while process.isRunning && Date().timeIntervalSince(start) < limit { usleep(10_000) }
        if process.isRunning {
            kill9()
            return (-1, limit)
        }
        process.waitUntilExit()
        return (process.terminationStatus, Date().timeIntervalSince(start))
    }

    deinit {
        if process.isRunning { kill9() }
    }
}

/// A temporary folder for one test, removed when the test ends.
final class TestFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-server-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

import Foundation
import GeofenceTestSupport

/// Runs the built `geofence` executable (a dependency of this test target, so SwiftPM
/// builds it first) and captures what it prints.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String

    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
}

enum CLIRunner {
    /// The directory holding the test bundle, which also holds the package's executables.
    static var productsDirectory: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = testBinary.deletingLastPathComponent()
        // On some runners argv[0] is inside the .xctest bundle.
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("geofence").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }

    static var executable: URL { productsDirectory.appendingPathComponent("geofence") }

    /// This process's environment for a child `geofence`, with `GEOFENCE_CACHE_DIR` set to
    /// nothing (no records of verified compiled files: tests never write in the user's cache)
    /// unless `extra` names it, `extra` added and the variables `removing` taken out.
    static func environment(_ extra: [String: String] = [:], removing: [String] = []) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOFENCE_CACHE_DIR"] = ""
        environment.merge(extra) { $1 }
        for name in removing { environment[name] = nil }
        return environment
    }

    /// Runs `geofence` with `arguments`, in `directory` when given, with
    /// ``environment(_:removing:)``.
    static func run(
        _ arguments: [String], directory: URL? = nil, environment extra: [String: String] = [:], removing: [String] = []
    ) throws -> CLIResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment(extra, removing: removing)
        if let directory { process.currentDirectoryURL = directory }
        // Capture into files: no pipe can fill up and block the child.
        let dir = try temporaryDirectory()
        let outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        try? FileManager.default.removeItem(at: dir)
        return CLIResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh temporary directory for one test (inside the test process's folder, which is
    /// removed when the process ends: ``TestFolders``).
    static func temporaryDirectory() throws -> URL { try TestFolders.make("geofence-cli") }

    /// The repository's root (for the committed data in data/).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

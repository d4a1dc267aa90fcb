import Foundation
import GeofenceEngine

/// Runs `geofence evaluate` as a child process (so each run's peak memory is its own) and
/// reads the summary it writes.
enum EvaluateRunner {
    struct Result {
        var seconds: Double
        var rowsRead: Int
        var events: Int
        var peakRSSMiB: Double
        /// Process wall time, fence loading included.
        var wallSeconds: Double
    }

    /// The `geofence` executable next to this one.
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("geofence").path
    }

    static func run(fences: String, fixes: String, threads: Int, extra: [String] = []) throws -> Result {
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("bench-summary-\(UUID().uuidString).json").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["evaluate", "--fences", fences, "--fixes", fixes, "--threads", "\(threads)", "--quiet",
                             "--output", "/dev/null", "--summary", summary] + extra
        let start = Measure.now()
        try process.run()
        process.waitUntilExit()
        let wall = Measure.now() - start
        guard process.terminationStatus == 0 else {
            throw BenchError("geofence evaluate failed (status \(process.terminationStatus)) on \(fixes); is `swift build -c release --product geofence` done?")
        }
        let value = try JSONParser.parse(try FileBytes.read(summary))
        try? FileManager.default.removeItem(atPath: summary)
        guard let o = value.objectValue else { throw BenchError("unreadable summary") }
        return Result(
            seconds: o["seconds"]?.doubleValue ?? .nan, rowsRead: o["rowsRead"]?.intValue ?? 0,
            events: o["events"]?.intValue ?? 0, peakRSSMiB: Double(o["peakResidentBytes"]?.intValue ?? 0) / 1_048_576,
            wallSeconds: wall)
    }
}

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
        /// Peak resident memory of the whole process (`wait4`'s), fences included.
        var processPeakMiB: Double
        /// The summary's `fenceLoadSeconds`.
        var fenceLoadSeconds: Double
    }

    /// The `geofence` executable next to this one.
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("geofence").path
    }

    /// Runs `geofence evaluate` (its events to `output`) and reads its summary; the wall time and peak
    /// memory are the child's own (`Platform.runAndWait`: no Foundation `Process`, which added
    /// tens of milliseconds to a run).
    static func run(
        fences: String, fixes: String, threads: Int, extra: [String] = [], summary: String? = nil, output: String = "/dev/null"
    ) throws -> Result {
        let summary = summary ?? FileManager.default.temporaryDirectory.appendingPathComponent("bench-summary-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: summary) }
        let arguments = [executable, "evaluate", "--fences", fences, "--fixes", fixes, "--threads", "\(threads)", "--quiet",
                         "--output", output, "--summary", summary] + extra
        guard let child = Platform.runAndWait(arguments) else { throw BenchError("cannot start \(executable)") }
        guard child.status == 0 else {
            throw BenchError("geofence evaluate failed (status \(child.status)) on \(fixes); is `make build` (or `swift build -c release --static-swift-stdlib --product geofence`) done?")
        }
        let value = try JSONParser.parse(try FileBytes.read(summary))
        guard let o = value.objectValue else { throw BenchError("unreadable summary") }
        return Result(
            seconds: o["seconds"]?.doubleValue ?? .nan, rowsRead: o["rowsRead"]?.intValue ?? 0,
            events: o["events"]?.intValue ?? 0, peakRSSMiB: Double(o["peakResidentBytes"]?.intValue ?? 0) / 1_048_576,
            wallSeconds: child.seconds, processPeakMiB: Double(child.peakResidentBytes) / 1_048_576,
            fenceLoadSeconds: o["fenceLoadSeconds"]?.doubleValue ?? .nan)
    }
}

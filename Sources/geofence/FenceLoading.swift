import GeofenceEngine
import GeofenceGEOS

/// Fence loading for the subcommands, with every failure turned into a one-line message.
enum FenceLoading {
    /// Loads a fence file; invalid features end the command with status 2 after listing them.
    static func load(path: String, repair: Bool) throws(CLIError) -> FenceSet {
        let report = try inspect(path: path, repair: repair)
        if !report.problems.isEmpty {
            for problem in report.problems { FileHandleText.standardError("\(path): \(problem)\n") }
            let hint = repair ? "" : " (run `geofence validate --fences \(path)`, or add --repair for invalid polygons)"
            throw CLIError("\(path): \(report.problems.count) invalid feature(s)\(hint)")
        }
        do {
            return try FenceSet(report.fences, repair: false)
        } catch {
            throw CLIError("\(path): \(error)")
        }
    }

    /// Reads and checks a fence file, keeping every problem.
    static func inspect(path: String, repair: Bool) throws(CLIError) -> FenceFileReport {
        do {
            return try FenceSet.inspect(path: path, repair: repair)
        } catch let error as FenceFileError {
            throw CLIError(error.description)
        } catch let error as GEOSError {
            throw CLIError("\(path): \(error)")
        } catch {
            throw CLIError("\(path): \(error)")
        }
    }
}

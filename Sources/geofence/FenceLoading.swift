import GeofenceEngine
import GeofenceGEOS

/// Fence loading for the subcommands, with every failure turned into a one-line message.
enum FenceLoading {
    /// Loads a fence file; invalid features end the command with status 2 after listing them.
    ///
    /// Through ``FenceSet/load(path:repair:)``: the features are validated once, and what
    /// loading freed goes back to the system before the command's own work.
    static func load(path: String, repair: Bool) throws(CLIError) -> FenceSet {
        do {
            return try FenceSet.load(path: path, repair: repair)
        } catch let error as FenceValidationError {
            for problem in error.problems { FileHandleText.standardError("\(path): \(problem)\n") }
            let hint = repair ? "" : " (run `geofence validate --fences \(path)`, or add --repair for invalid polygons)"
            throw CLIError("\(path): \(error.problems.count) invalid feature(s)\(hint)")
        } catch let error as FenceFileError {
            throw CLIError(error.description)
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

import GeofenceEngine
import GeofenceGEOS

/// Fence loading for the subcommands, with every failure turned into a one-line message.
enum FenceLoading {
    /// Loads a fence file; invalid features end the command with status 2 after listing them.
    ///
    /// Through ``FenceSet/load(path:repair:verification:)``: the features are validated once,
    /// and what loading freed goes back to the system before the command's own work. A
    /// compiled file is checked in full the first time and whenever it changed
    /// (``verification``).
    static func load(path: String, repair: Bool, purpose: FenceSet.Purpose = .everything) throws(CLIError) -> FenceSet {
        do {
            return try FenceSet.load(path: path, repair: repair, verification: verification, purpose: purpose)
        } catch let error as FenceValidationError {
            for problem in error.problems { FileHandleText.standardError("\(path): \(problem)\n") }
            let hint = repair ? "" : " (run `geofence validate --fences \(path)`, or add --repair for invalid polygons)"
            throw CLIError("\(path): \(error.problems.count) invalid feature(s)\(hint)")
        } catch let error as FileError {
            throw CLIError(error.description)
        } catch {
            throw CLIError("\(path): \(error)")
        }
    }

    /// How the commands open compiled fence files: every checksum on the first open and
    /// whenever the file changed, recorded in ``FenceFileRecords/commandLineFolder()``; every
    /// checksum every time when no records folder can be named (`GEOFENCE_CACHE_DIR=`).
    static var verification: FenceSet.Verification {
        FenceFileRecords.commandLineFolder().map { .onceUntilChanged(recordsIn: $0) } ?? .full
    }

    /// Reads and checks a fence file, keeping every problem.
    static func inspect(path: String, repair: Bool) throws(CLIError) -> FenceFileReport {
        do {
            return try FenceSet.inspect(path: path, repair: repair)
        } catch let error as FileError {
            throw CLIError(error.description)
        } catch let error as GEOSError {
            throw CLIError("\(path): \(error)")
        } catch {
            throw CLIError("\(path): \(error)")
        }
    }
}

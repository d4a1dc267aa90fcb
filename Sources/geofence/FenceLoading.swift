import GeofenceEngine
import GeofenceGEOS

/// Fence loading for the subcommands, with every failure turned into a one-line message.
enum FenceLoading {
    /// Loads a fence file; invalid features end the command with status 2 after listing them.
    ///
    /// What loading freed (the GeoJSON tree, GEOS's validation geometries) goes back to the
    /// system before the set is returned (``CHeap/returnFreedMemory()``): the command's work
    /// then takes fresh pages, and its peak resident size is the larger of loading and that
    /// work, not their sum. A part of loading, timed with it (about 5 ms at 10k fences).
    static func load(path: String, repair: Bool) throws(CLIError) -> FenceSet {
        let set = try build(path: path, repair: repair)
        CHeap.returnFreedMemory()
        return set
    }

    /// The set, with the report (and its JSON tree) released on return.
    private static func build(path: String, repair: Bool) throws(CLIError) -> FenceSet {
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

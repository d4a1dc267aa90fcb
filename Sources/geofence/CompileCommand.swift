import ArgumentParser
import GeofenceEngine

/// `geofence compile`: fences validated once, written as a compiled fence file that every
/// command opens in milliseconds.
struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Validate fences once and write them as a compiled fence file (opened without parsing).",
        discussion: """
            The output holds the validated set as the engine keeps it in memory: ids, shapes, \
            properties, levels, the R-tree, the cell directory and the polygon edge runs, in \
            checksummed sections (docs/compiled-fence-file.md). Every command that takes \
            --fences accepts it in place of the GeoJSON; opening it maps the file and checks it, \
            with no parsing. The file appears complete or not at all. Exit status 2 for bad or \
            invalid input (each invalid feature is listed), or an output that cannot be written.

            Commands check a compiled file's checksums (every byte) the first time and again \
            whenever the file changes: a file that passed (compile reads the file it wrote back) \
            is recorded in verified-fence-files under $GEOFENCE_CACHE_DIR (else \
            $XDG_CACHE_HOME/geofence, else ~/.cache/geofence) with its device, inode, size, \
            modification and change times and content hash; while those match, only its \
            structure is checked. GEOFENCE_CACHE_DIR= (empty) checks every checksum every \
            time; `geofence validate` always does.
            """
    )

    @Option(name: .long, help: "Fences: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file.")
    var fences: String

    @Option(name: .long, help: "The compiled fence file to write (e.g. fences.fences).")
    var output: String

    @Flag(name: .long, help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    func run() throws {
        try OutputFiles.refuseOverlap(outputs: [("--output", output)], inputs: [("--fences", fences)])
        let start = Platform.monotonicSeconds()
        let (count, repaired, size) = try compile()
        // Read back with every checksum and recorded, so the commands that use it skip them:
        // after the set in memory is gone, so the two are never resident together.
        if let records = FenceFileRecords.commandLineFolder() {
            _ = try CLIError.reporting { try FenceSet.openReporting(path: output, verification: .full, recordIn: records) }
        }
        let seconds = Platform.monotonicSeconds() - start
        var line = "\(fences): \(count) fence(s)"
        if repaired > 0 { line += ", \(repaired) repaired by MakeValid" }
        line += "; wrote \(output) (\(size) bytes) in \((seconds * 1000).rounded() / 1000) s\n"
        FileHandleText.standardError(line)
    }

    /// Loads the fences and writes the compiled file: its fence count, how many were repaired,
    /// its size.
    private func compile() throws -> (count: Int, repaired: Int, size: Int) {
        let fenceSet = try FenceLoading.load(path: fences, repair: repair)
        let size = try CLIError.reporting { try fenceSet.write(to: output) }
        return (fenceSet.count, fenceSet.repairedCount, size)
    }
}

import ArgumentParser
import GeofenceEngine

/// `geofence contains`: for each fix row, the ids of the fences that contain it.
struct ContainsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contains",
        abstract: "For each fix of a CSV file, list the fences that contain it (NDJSON or CSV pairs, input order).",
        discussion: """
            Fixes: CSV with a header naming at least device_id,timestamp,lat,lon (optional \
            accuracy, level), in any order; timestamp as epoch milliseconds or ISO-8601 with a \
            zone. Output (the default, --format ndjson): one line per data row, \
            {"row":N,"geofenceIds":[...]} with ids sorted ascending, or {"row":N,"error":"<reason>"} for a rejected row (N counts data rows \
            from 1; reasons parse, coordinate, lineLength for a line longer than 1 MiB). Blank \
            lines are not rows; the summary on standard error counts them. With --format csv: \
            a header row,geofenceId,error, then a line N,<id>, for each fence that contains row \
            N (ids ascending), none for a row no fence contains, and N,,<reason>: ... for a \
            rejected row; fields are quoted as RFC 4180 asks. The rows are \
            answered on --threads threads (the batch containment query); the output is the \
            same, byte for byte, for any thread count. From a pipe that goes quiet (a live \
            feed: --fixes /dev/stdin), the rows that came are answered and written \
            within about 0.1 s, not held until more arrive.
            """
    )

    @Option(name: .long, help: "Fences: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file.")
    var fences: String

    @Option(name: .long, help: "CSV file of fixes.")
    var fixes: String

    @Option(name: .long, help: "Write the output here instead of standard output.")
    var output: String?

    @Option(name: .long, help: "Output: ndjson (a line per row) or csv (a line per row and fence that contains it).")
    var format: ContainsFormat = .ndjson

    @Flag(name: .long, help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    @Option(name: .long, parsing: .unconditional, help: "Worker threads, 1 to 256 (default: the cores this process may use: its CPU affinity, or fewer under a cgroup CPU quota).")
    var threads: Int?

    func validate() throws {
        try ArgumentCheck.threads(threads)
    }

    func run() throws {
        try OutputFiles.refuseOverlap(outputs: [("--output", output)], inputs: [("--fences", fences), ("--fixes", fixes)])
        // Built for containment alone: no enclosing circles, event fragments or R-tree. The
        // fixes' first block is read meanwhile (a pipe's producer need not wait for the load).
        let (fenceSet, input) = try CLIError.reporting {
            try ContainsInput.opening(fixes: fixes) {
                try FenceLoading.load(path: fences, repair: repair, purpose: .containment)
            }
        }
        if fenceSet.repairedCount > 0 {
            FileHandleText.standardError("\(fences): repaired \(fenceSet.repairedCount) invalid polygon(s) with MakeValid\n")
        }
        // The output opens once the header was read and is good (a bad input leaves an
        // existing output as it was), and appears complete at the end.
        var out: OutputSink? = nil
        func sink() throws -> OutputSink {
            if let out { return out }
            let opened = try output.map { try OutputSink(path: $0) } ?? .standardOutput()
            out = opened
            return opened
        }
        let summary = try CLIError.reporting {
            // A live feed's answers reach the output before the run waits for more rows.
            let summary = try ContainsRun.run(
                fenceSet: fenceSet, input: input, threads: threads ?? Platform.coreCount, format: format,
                write: { bytes in try sink().write(bytes) }, beforeWaiting: { try out?.flush() })
            try sink().commit()
            return summary
        }
        FileHandleText.standardError(summary.line(file: fixes) + "\n")
    }
}

extension ContainsFormat: ExpressibleByArgument {}

/// Row counts for a summary: read = answered + rejected, always.
struct RowTally {
    var read = 0
    var answered = 0
    var blankLines = 0
    var rejectedByReason: [String: Int] = [:]

    var rejected: Int { rejectedByReason.values.reduce(0, +) }

    mutating func reject(_ reason: String) { rejectedByReason[reason, default: 0] += 1 }

    func summary(file: String) -> String {
        let reasons = rejectedByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var text = "\(file): \(read) row(s) read, \(answered) answered, \(rejected) rejected"
        if !reasons.isEmpty { text += " (\(reasons))" }
        if blankLines > 0 { text += "; \(blankLines) blank line(s) skipped" }
        return text
    }
}

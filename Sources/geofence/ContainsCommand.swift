import ArgumentParser
import GeofenceEngine

/// `geofence contains`: for each fix row, the ids of the fences that contain it.
struct ContainsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contains",
        abstract: "For each fix of a CSV file, list the fences that contain it (NDJSON, input order).",
        discussion: """
            Fixes: CSV with a header naming at least device_id,timestamp,lat,lon (optional \
            accuracy, level), in any order; timestamp as epoch milliseconds or ISO-8601 with a \
            zone. Output: one line per data row, {"row":N,"geofenceIds":[...]} with ids sorted \
            ascending, or {"row":N,"error":"<reason>"} for a rejected row (N counts data rows \
            from 1; reasons parse, coordinate, lineLength for a line longer than 1 MiB). Blank \
            lines are not rows; the summary on standard error counts them.
            """
    )

    @Option(name: .long, help: "Fences: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file.")
    var fences: String

    @Option(name: .long, help: "CSV file of fixes.")
    var fixes: String

    @Option(name: .long, help: "Write the NDJSON here instead of standard output.")
    var output: String?

    @Flag(name: .long, help: "Repair invalid polygons with GEOS MakeValid instead of failing.")
    var repair = false

    func run() throws {
        try OutputFiles.refuseOverlap(outputs: [("--output", output)], inputs: [("--fences", fences), ("--fixes", fixes)])
        let fenceSet = try FenceLoading.load(path: fences, repair: repair)
        if fenceSet.repairedCount > 0 {
            FileHandleText.standardError("\(fences): repaired \(fenceSet.repairedCount) invalid polygon(s) with MakeValid\n")
        }
        let evaluator = try CLIError.reporting { try ContainmentEvaluator(fenceSet: fenceSet) }
        let reader = try CLIError.reporting { try LineBlockReader(path: fixes) }
        // Opened once the header line is read and good.
        var out: OutputSink? = nil

        var header: FixCSVHeader? = nil
        var tally = RowTally()
        var row = FixCSVRow()
        var line: [UInt8] = []
        var slots: [Int32] = []
        try CLIError.reporting {
            try reader.forEachLine({ base, start, end, lineNumber in
                guard let columns = header else {
                    do {
                        header = try FixCSVHeader(line: UnsafeRawBufferPointer(start: base + start, count: end - start))
                    } catch let problem as FixCSVHeader.Problem {
                        throw CLIError("\(fixes): line 1: \(problem.reason)")
                    }
                    out = try output.map { try OutputSink(path: $0) } ?? .standardOutput()
                    return
                }
                if end - start == 0 || (end - start == 1 && base[start] == 0x0D) {
                    tally.blankLines += 1
                    return
                }
                tally.read += 1
                line.removeAll(keepingCapacity: true)
                line.append(contentsOf: "{\"row\":\(tally.read),".utf8)
                if let failure = row.parse(base, start, end, header: columns) {
                    tally.reject("parse")
                    line.append(contentsOf: "\"error\":".utf8)
                    JSONWriter.writeString("parse: line \(lineNumber): \(failure.reason)", to: &line)
                } else if let reason = Coordinate(latitude: row.latitude, longitude: row.longitude).invalidReason {
                    tally.reject("coordinate")
                    line.append(contentsOf: "\"error\":".utf8)
                    JSONWriter.writeString("coordinate: line \(lineNumber): \(reason)", to: &line)
                } else {
                    let level = row.level == Int.min ? nil : row.level
                    try evaluator.containing(latitude: row.latitude, longitude: row.longitude, level: level, into: &slots)
                    tally.answered += 1
                    line.append(contentsOf: "\"geofenceIds\":[".utf8)
                    for (k, slot) in slots.enumerated() {
                        if k > 0 { line.append(UInt8(ascii: ",")) }
                        JSONWriter.writeString(bytes: fenceSet.idBytes(at: Int(slot)), to: &line)
                    }
                    line.append(UInt8(ascii: "]"))
                }
                line.append(contentsOf: "}\n".utf8)
                try out!.write(line)
            }, overlongLine: { lineNumber, bytes in
                guard header != nil else {
                    throw CLIError("\(fixes): line 1: the header line has \(bytes) bytes or more, longer than the maximum of \(reader.maximumLineBytes) (is this a CSV text file?)")
                }
                tally.read += 1
                tally.reject("lineLength")
                line.removeAll(keepingCapacity: true)
                line.append(contentsOf: "{\"row\":\(tally.read),\"error\":".utf8)
                JSONWriter.writeString("lineLength: line \(lineNumber): \(bytes) bytes or more, longer than the maximum of \(reader.maximumLineBytes)", to: &line)
                line.append(contentsOf: "}\n".utf8)
                try out!.write(line)
            })
            if header == nil {
                throw CLIError("\(fixes): empty file (expected a header line naming at least device_id,timestamp,lat,lon)")
            }
            try out!.commit()
        }
        FileHandleText.standardError(tally.summary(file: fixes) + "\n")
    }
}

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

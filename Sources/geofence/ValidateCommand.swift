import ArgumentParser
import GeofenceEngine

/// `geofence validate`: one line per problem, a summary, exit status 1 while a problem remains.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a GeoJSON fence file; optionally repair invalid polygons with GEOS MakeValid.",
        discussion: """
            Prints `feature <index> (<id>): <reason>` for each problem (index 0-based in the \
            FeatureCollection), then a summary line. Exit status 0 when no problem remains, \
            1 when one does, 2 when the file cannot be read as a FeatureCollection.
            """
    )

    @Option(name: .long, help: "GeoJSON FeatureCollection of fences.")
    var fences: String

    @Flag(name: .long, help: "Repair invalid polygons with GEOS MakeValid.")
    var repair = false

    @Option(name: .long, help: "With --repair: write the valid and repaired features here as GeoJSON.")
    var output: String?

    func validate() throws {
        if output != nil && !repair { throw ValidationError("--output needs --repair") }
    }

    func run() throws {
        try OutputFiles.refuseOverlap(outputs: [("--output", output)], inputs: [("--fences", fences)])
        let report = try FenceLoading.inspect(path: fences, repair: repair)
        let out = OutputSink.standardOutput()
        for repaired in report.repairs {
            try out.write("feature \(repaired.featureIndex) (\(repaired.id ?? "no id")): repaired by MakeValid (was: \(repaired.reason))\n")
        }
        for problem in report.problems { try out.write("\(problem)\n") }
        var summary = "\(fences): \(report.featureCount) feature(s), \(report.fences.count) valid, \(report.problems.count) problem(s)"
        if repair { summary += ", \(report.repairedCount) repaired by MakeValid" }
        try out.write(summary + "\n")
        if let output {
            try writeRepaired(report, to: output)
            try out.write("wrote \(report.fences.count) feature(s) to \(output)\n")
        }
        try out.flush()
        if !report.problems.isEmpty { throw ExitCode(1) }
    }

    /// The original features that are valid now, with repaired geometries swapped in.
    private func writeRepaired(_ report: FenceFileReport, to path: String) throws {
        guard case .object(var root) = report.document,
            let features = root["features"]?.arrayValue
        else { throw CLIError("\(fences): not a FeatureCollection") }
        let fixed = Dictionary(uniqueKeysWithValues: report.fences.map { ($0.featureIndex, $0) })
        var kept: [JSONValue] = []
        for (index, feature) in features.enumerated() {
            guard let fence = fixed[index], case .object(var object) = feature else { continue }
            if let g = object.members.firstIndex(where: { $0.key == "geometry" }) {
                object.members[g].value = GeoJSONFenceEncoder.geometry(fence.shape)
            }
            kept.append(.object(object))
        }
        if let f = root.members.firstIndex(where: { $0.key == "features" }) { root.members[f].value = .array(kept) }
        do {
            let sink = try OutputSink(path: path)
            var bytes: [UInt8] = []
            JSONWriter.write(.object(root), to: &bytes)
            bytes.append(0x0A)
            try sink.write(bytes)
            try sink.commit()
        } catch {
            throw CLIError("\(error)")
        }
    }
}

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
            1 when one does, 2 when the file cannot be read as a FeatureCollection. A compiled \
            fence file has every checksum and its structure checked, whatever the records of \
            verified files say, and is recorded there afterwards (see `geofence compile --help`).
            """
    )

    @Option(name: .long, help: "Fences: GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file (its integrity is checked).")
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
        if FenceSet.isCompiled(path: fences) {
            // Validated when it was compiled: check its integrity.
            if repair { throw CLIError("\(fences): a compiled fence file holds validated fences; --repair applies to GeoJSON") }
            // Every checksum, whatever the records say; recorded after, so commands skip them
            // until the file changes.
            let set = try CLIError.reporting {
                try FenceSet.openReporting(path: fences, verification: .full, recordIn: FenceFileRecords.commandLineFolder()).set
            }
            FileHandleText.standardOutput("\(fences): compiled fence file, \(set.count) fence(s), checksums and structure verified\n")
            return
        }
        let report = try FenceLoading.inspect(path: fences, repair: repair)
        let out = OutputSink.standardOutput()
        for repaired in report.repairs {
            try out.write("feature \(repaired.featureIndex) (\(repaired.id ?? "no id")): repaired by MakeValid (was: \(repaired.reason))\n")
        }
        for problem in report.problems { try out.write("\(problem)\n") }
        var summary = "\(fences): \(report.featureCount) feature(s), \(report.validCount) valid, \(report.problems.count) problem(s)"
        if repair { summary += ", \(report.repairedCount) repaired by MakeValid" }
        try out.write(summary + "\n")
        if let output {
            try writeRepaired(report, to: output)
            try out.write("wrote \(report.validCount) feature(s) to \(output)\n")
        }
        try out.flush()
        if !report.problems.isEmpty { throw ExitCode(1) }
    }

    /// The original features that are valid now, with every kept fence's geometry written
    /// from its shape (repaired ones repaired). A FeatureCollection stays one; a GeoJSONSeq
    /// file gives one feature per line.
    private func writeRepaired(_ report: FenceFileReport, to path: String) throws {
        let shapes = report.shapesByFeature
        let text = try CLIError.reporting { try FileBytes.read(fences) }
        func fixed(_ feature: JSONValue, _ index: Int) -> JSONValue? {
            guard let shape = shapes[index], case .object(var object) = feature else { return nil }
            if let g = object.members.firstIndex(where: { $0.key == "geometry" }) {
                object.members[g].value = GeoJSONFenceEncoder.geometry(shape)
            }
            return .object(object)
        }
        var bytes: [UInt8] = []
        if report.isSequence {
            let records = text.withUnsafeBytes { GeoJSONFenceReader.sequenceRecords($0) }
            for (index, record) in records.enumerated() {
                guard let feature = try? JSONParser.parse(Array(text[record])), let kept = fixed(feature, index) else { continue }
                JSONWriter.write(kept, to: &bytes)
                bytes.append(0x0A)
            }
        } else {
            guard case .object(var root)? = try? JSONParser.parse(text), let features = root["features"]?.arrayValue
            else { throw CLIError("\(fences): not a FeatureCollection") }
            let kept = features.enumerated().compactMap { fixed($0.element, $0.offset) }
            if let f = root.members.firstIndex(where: { $0.key == "features" }) { root.members[f].value = .array(kept) }
            JSONWriter.write(.object(root), to: &bytes)
            bytes.append(0x0A)
        }
        do {
            let sink = try OutputSink(path: path)
            try sink.write(bytes)
            try sink.commit()
        } catch {
            throw CLIError("\(error)")
        }
    }
}

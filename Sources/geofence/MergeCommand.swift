import ArgumentParser
import GeofenceEngine

/// `geofence merge`: the outputs of `geofence evaluate --shard K/N`, merged into the
/// one-process output.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the event files of `evaluate --shard K/N` runs (byte-identical to one unsharded run).",
        discussion: """
            Each shard's events are ordered by device id and a device lives in one shard only, \
            so the merge interleaves whole devices in ascending id order (UTF-8 byte order). \
            It fails, naming the file, when an input is not ordered or two inputs share a \
            device; --output then keeps its previous file.
            """
    )

    @Argument(help: "NDJSON event files, one per shard.")
    var inputs: [String]

    @Option(name: .long, help: "Write here instead of standard output.")
    var output: String?

    func run() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one event file") }
        try OutputFiles.refuseOverlap(outputs: [("--output", output)], inputs: inputs.map { ("input", $0) })
        try CLIError.reporting {
            // Every input opens before the output does; the output appears only when the
            // merge is complete (a failed merge leaves the path as it was).
            for input in inputs { _ = try LineBlockReader(path: input, blockSize: 1 << 16) }
            let sink = try output.map { try OutputSink(path: $0) } ?? .standardOutput()
            let lines = try ShardMerger.merge(inputs: inputs, output: sink)
            try sink.commit()
            FileHandleText.standardError("merged \(lines) event(s) from \(inputs.count) file(s)\n")
        }
    }
}

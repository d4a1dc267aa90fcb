import ArgumentParser
import Foundation
import GeofenceEngine

/// `geofence-bench load`: how long fences take to become a ready `FenceSet`.
struct LoadBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Fence loading, whole process: GeoJSON, GeoJSONSeq and compiled, beside Python's json.load.",
        discussion: """
            For each fence count: `geofence evaluate` on a one-row CSV with the world's \
            FeatureCollection, the same features as GeoJSONSeq, and the compiled file (the last \
            two, and the 1M world — the world's 100k tiled 10 times, 0.6° apart, unique ids — are \
            made in --work when missing), interleaved with `python3 -c 'json.load(open(F))'` of \
            the FeatureCollection. The compiled file is opened twice per round: checked in full \
            (no records), and as commands open it once it was checked (records in --work: \
            checksums skipped while it is unchanged). Reports median wall time, peak RSS and the \
            ratio to Python. \
            With file arguments instead: loads them in this process, --repeats times each.
            """)

    @Argument(help: "Fence files to load in this process (any form); none: the whole-process benchmark.")
    var files: [String] = []

    @Option(help: "The world's folder, written by Benchmarks/peers/gen_world.py.")
    var peersData = PeerRunner.defaultWorld

    @Option(parsing: .upToNextOption, help: "Fence counts.")
    var fences: [Int] = [10_000, 100_000, 1_000_000]

    @Option(help: "Where derived inputs are made and kept (an ignored folder of the clone).")
    var work = ".build-peers/load-bench"

    @Option(help: "Python executable for the json.load baseline.")
    var python = "python3"

    @Option(help: "Rounds (each runs every form once).")
    var repeats = 3

    @Option(help: "Threads for geofence.")
    var threads = 2

    @Flag(help: "In-process mode: open compiled files without their checksums (structure checks only).")
    var structureOnly = false

    @Option(help: "Write the records as JSON here.")
    var json: String?

    func run() throws {
        guard files.isEmpty else { return try inProcess() }
        let bench = LoadBench(
            peers: peersData, work: work,
            python: python, repeats: repeats, threads: threads)
        var report = BenchReport()
        report.context = [("date", ISO8601DateFormatter().string(from: Date())), ("load1", RTreeBench.fixed(Measure.loadAverage(), 2))]
        for n in fences {
            report.records += try bench.measure(fences: n)
            print(report.records.suffix(5).map { record in
                let state = record.method.hasPrefix("compiled") ? " (\(record.note.components(separatedBy: "; ").suffix(2).joined(separator: "; ")))" : ""
                return "load \(record.method) F=\(record.fences): \(RTreeBench.fixed(record.seconds, 3)) s, \(Int(record.peakRSSMiB)) MiB \(record.ratios.map { "×\(RTreeBench.fixed($0.1, 1)) vs python" }.joined())" + state
            }.joined(separator: "\n"))
            Platform.flushStandardStreams()
        }
        report.context.append(("load1 at end", RTreeBench.fixed(Measure.loadAverage(), 2)))
        print("\n" + report.context.map { "\($0.0): \($0.1)" }.joined(separator: ", "))
        print(report.table)
        if let json { try report.write(json: json) }
    }

    /// Each file loaded `repeats` times here: seconds of each, the median, this process's peak RSS.
    func inProcess() throws {
        for file in files {
            var seconds: [Double] = []
            var count = 0
            for _ in 0..<repeats {
                var set: FenceSet? = nil
                seconds.append(try Measure.time {
                    set = structureOnly && FenceSet.isCompiled(path: file)
                        ? try FenceSet.open(path: file, verification: .structure) : try FenceSet.load(path: file)
                })
                count = set?.count ?? 0
            }
            let times = seconds.map { RTreeBench.fixed($0, 4) }.joined(separator: ",")
            print(#"{"file":"\#(file)","fences":\#(count),"seconds":[\#(times)],"median":\#(RTreeBench.fixed(Measure.median(seconds), 4)),"peakRSSMiB":\#(Int(Measure.peakRSSMiB())),"load1":\#(RTreeBench.fixed(Measure.loadAverage(), 2))}"#)
        }
    }
}

import ArgumentParser
import Foundation
import GeofenceEngine

/// `geofence-bench load`: how long a fence file takes to become a ready `FenceSet`.
struct LoadBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Time loading fence files (GeoJSON, GeoJSONSeq, compiled) in this process.",
        discussion: "Prints one JSON line per file: seconds of each repeat, the median, and this process's peak RSS.")

    @Argument(help: "Fence files (any form).")
    var files: [String]

    @Option(help: "Loads per file.")
    var repeats = 5

    func run() throws {
        for file in files {
            var seconds: [Double] = []
            var count = 0
            for _ in 0..<repeats {
                var set: FenceSet? = nil
                seconds.append(try Measure.time { set = try FenceSet.load(path: file) })
                count = set?.count ?? 0
            }
            let times = seconds.map { String(format: "%.4f", $0) }.joined(separator: ",")
            print(#"{"file":"\#(file)","fences":\#(count),"seconds":[\#(times)],"median":\#(String(format: "%.4f", Measure.median(seconds))),"peakRSSMiB":\#(Int(Measure.peakRSSMiB())),"load1":\#(Measure.loadAverage())}"#)
        }
    }
}

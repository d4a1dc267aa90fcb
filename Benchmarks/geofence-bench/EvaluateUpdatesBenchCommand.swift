import ArgumentParser
import Foundation
import GeofenceEngine

/// `geofence-bench evaluate-updates`: the whole `geofence evaluate` command with two
/// `--fence-update`s against the same command without them, interleaved, wall clock.
struct EvaluateUpdatesBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate-updates",
        abstract: "Time geofence evaluate with two fence updates against a plain run.",
        discussion: """
            Writes two republished catalogs of --fences (GeoJSON), each drawn from it with its own \
            seed: --fraction of the fences removed, as many circles grown by 60 %, 1 % added. \
            The updates fall at a third and two thirds of the fixes' time span. Then runs \
            `geofence evaluate` (next to this executable; build both with -c release) with and \
            without the two --fence-update options, alternating which goes first, each writing \
            its events to a file as `make run` does, and prints each round, the medians and their \
            ratio (the target: at most 1.2 on the Austin traces).
            """
    )

    @Option(help: "Fence file (GeoJSON FeatureCollection).") var fences = "data/austin/fences.geojson"
    @Option(help: "Fixes (CSV with a timestamp column).") var fixes = "data/austin/capmetro_avl_traces.csv"
    @Option(help: "Fraction of the fences each update removes (and as many it changes).") var fraction = 0.1
    @Option(help: "Rounds, each one run of either command.") var rounds = 11
    @Option(help: "Threads of geofence evaluate (default: every core).") var threads: Int?
    @Option(help: "Seed of the republished catalogs.") var seed: UInt64 = 7
    @Option(help: "Folder for the catalogs and the events, kept (default: a temporary folder, removed).") var folder: String?

    func run() throws {
        let folder = self.folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("bench-updates-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if self.folder == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let (first, last) = try Self.timeSpan(fixes)
        var updates: [String] = []
        for k in 1...2 {
            let path = "\(folder)/update\(k).geojson"
            try Self.republish(fences, to: path, fraction: fraction, seed: seed &+ UInt64(k))
            updates += ["--fence-update", "\(first + (last - first) * Int64(k) / 3)=\(path)"]
        }
        let threads = threads ?? Platform.coreCount
        print("geofence evaluate on \(fixes), \(threads) threads; updates at \(updates[1].prefix(13)) and \(updates[3].prefix(13)) ms")
        var plain: [Double] = [], updated: [Double] = []
        for round in 0..<rounds {
            for withUpdates in round % 2 == 0 ? [false, true] : [true, false] {
                let r = try EvaluateRunner.run(
                    fences: fences, fixes: fixes, threads: threads, extra: withUpdates ? updates : [], output: "\(folder)/events.ndjson")
                if withUpdates { updated.append(r.wallSeconds) } else { plain.append(r.wallSeconds) }
            }
            print(String(format: "round %2d: plain %.3f s, with updates %.3f s", round + 1, plain.last!, updated.last!))
        }
        let p = Measure.median(plain), u = Measure.median(updated)
        print(String(format: "median: plain %.3f s, with updates %.3f s, ratio %.3f (load average %.2f)", p, u, u / p, Measure.loadAverage()))
    }

    /// The first and last timestamp (epoch ms) of the fixes' `timestamp` column.
    static func timeSpan(_ path: String) throws -> (Int64, Int64) {
        let text = String(decoding: try FileBytes.read(path), as: UTF8.self)
        var lines = text.split(separator: "\n")[...]
        guard let header = lines.popFirst(), let column = header.split(separator: ",").firstIndex(of: "timestamp") else {
            throw BenchError("\(path): no timestamp column in the header")
        }
        var first = Int64.max, last = Int64.min
        for line in lines {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard column < fields.count, case .success(let t) = TimestampParser.parse(String(fields[column])) else { continue }
            first = min(first, t)
            last = max(last, t)
        }
        guard first < last else { throw BenchError("\(path): fewer than two distinct timestamps") }
        return (first, last)
    }

    /// Writes `source` with a `fraction` of its features removed, as many circles grown by
    /// 60 % (changed), and 1 % copies under new ids (added).
    static func republish(_ source: String, to path: String, fraction: Double, seed: UInt64) throws {
        guard let collection = try JSONParser.parse(try FileBytes.read(source)).objectValue,
              let features = collection["features"]?.arrayValue
        else { throw BenchError("\(source): not a GeoJSON FeatureCollection") }
        var rng = IndexBenchRandom(seed: seed)
        var out: [JSONValue] = []
        for feature in features {
            let roll = rng.unit()
            if roll < fraction { continue }
            guard roll < 2 * fraction, var object = feature.objectValue, var properties = object["properties"]?.objectValue,
                  let radius = properties["radius"]?.doubleValue, let grown = JSONValue.double(radius * 1.6)
            else {
                out.append(feature)
                continue
            }
            properties.members.removeAll { $0.key == "radius" }
            properties.members.append(.init(key: "radius", value: grown))
            object.members.removeAll { $0.key == "properties" }
            object.members.append(.init(key: "properties", value: .object(properties)))
            out.append(.object(object))
        }
        for (k, feature) in features.prefix(features.count / 100).enumerated() {
            guard var object = feature.objectValue, var properties = object["properties"]?.objectValue else { continue }
            properties.members.removeAll { $0.key == "id" }
            properties.members.append(.init(key: "id", value: .string("added-\(k)")))
            object.members.removeAll { $0.key == "properties" }
            object.members.append(.init(key: "properties", value: .object(properties)))
            out.append(.object(object))
        }
        var bytes: [UInt8] = []
        JSONWriter.write(.object(JSONObject(members: [.init(key: "type", value: .string("FeatureCollection")), .init(key: "features", value: .array(out))])), to: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

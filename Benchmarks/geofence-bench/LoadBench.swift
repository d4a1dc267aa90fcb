import Foundation
import GeofenceEngine

/// Whole-process fence loading: `geofence evaluate` on a one-row CSV (so the process is the
/// load: start, read or open the fences, build the set, exit), for a FeatureCollection, the
/// same features as GeoJSONSeq and the compiled file; beside `python3 -c 'json.load(…)'` of
/// the FeatureCollection, the first step a Shapely user takes. Runs are interleaved.
struct LoadBench {
    /// Folder of gen_world.py's world (fences_N.geojson).
    var peers: String
    /// Where the derived files (GeoJSONSeq, compiled, the 1M world) are made and kept.
    var work: String
    var python = "python3"
    var repeats = 3
    var threads: Int

    /// One file of one form; `state` says how the page cache holds it when that matters.
    /// `records`: the `GEOFENCE_CACHE_DIR` of its runs (nil: none, so a compiled file is
    /// checked in full every time).
    struct Input {
        var form: String
        var path: String
        var state = ""
        var records: String? = nil
    }

    /// The inputs of `n` fences, made when missing or stale (``isStale(_:madeFrom:)``): the
    /// FeatureCollection (the peers' file, or the 1M world tiled from their 100k), the
    /// GeoJSONSeq and the compiled file.
    func inputs(fences n: Int) throws -> [Input] {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let tiles = n > 100_000 ? n / 100_000 : 1
        let source = "\(peers)/fences_\(n > 100_000 ? 100_000 : n).geojson"
        let collection = tiles > 1 ? "\(work)/fences_\(n).geojson" : source
        let sequence = "\(work)/fences_\(n).geojsonl"
        let compiled = "\(work)/fences_\(n).fences"
        if Self.isStale(sequence, madeFrom: [source]) || Self.isStale(collection, madeFrom: [source]) {
            let world = try WorldCommand.parse(["--fences", source, "--tiles", "\(tiles)", "--output", tiles > 1 ? collection : "\(work)/.unused.geojson", "--seq", sequence])
            try world.run()
        }
        // A compiled file opens at the speed its page cache allows: one written just now is
        // cached as its writer wrote it (small folios here), one read back in large folios
        // (README, "A compiled file opens at the speed its page cache allows"). Say which.
        var state = "compiled earlier: cached as it was last read or written"
        // The engine is an input too: a rebuilt one may lay the file out differently, and a
        // file from an older build would measure that build's layout.
        let records = "\(work)/records"
        if Self.isStale(compiled, madeFrom: [collection, EvaluateRunner.executable]) {
            Platform.setEnvironment("GEOFENCE_CACHE_DIR", records)
            _ = try Self.run([EvaluateRunner.executable, "compile", "--fences", collection, "--output", compiled])
            state = "compiled just now: cached as written"
        }
        // The second compiled row opens it as a command does once it has been checked in full
        // (compile records what it wrote; a file compiled earlier is recorded here if needed).
        if FenceSet.isCompiled(path: compiled) {
            Platform.setEnvironment("GEOFENCE_CACHE_DIR", records)
            _ = try EvaluateRunner.run(fences: compiled, fixes: try oneFix(), threads: threads)
        }
        // Said as it is: a file system with whole-second times, or a clock behind the file's,
        // gives no record, and the row then measures full checks.
        let skipped = FenceFileRecords(folder: records).contains(file: compiled)
            ? "checksums skipped: unchanged since checked" : "not recorded, so checksums checked"
        return [
            Input(form: "geojson", path: collection), Input(form: "geojsonseq", path: sequence),
            Input(form: "compiled", path: compiled, state: state + "; checksums checked"),
            Input(form: "compiled, verified before", path: compiled, state: state + "; " + skipped, records: records),
        ]
    }

    /// A one-row fix file, so a run of `geofence evaluate` is its load.
    func oneFix() throws -> String {
        let fixes = "\(work)/.one-fix.csv"
        try "device_id,timestamp,lat,lon\nd,0,0,0\n".write(toFile: fixes, atomically: true, encoding: .utf8)
        return fixes
    }

    /// True when `path` is missing or older than any of `sources` (a source that cannot be
    /// read counts as new, so the file is made again).
    static func isStale(_ path: String, madeFrom sources: [String]) -> Bool {
        func modified(_ p: String) -> Date? { (try? FileManager.default.attributesOfItem(atPath: p))?[.modificationDate] as? Date }
        guard let made = modified(path) else { return true }
        return sources.contains { source in modified(source).map { $0 > made } ?? true }
    }

    /// Wall seconds and peak resident MiB of a child process (output discarded; see
    /// `Platform.runAndWait`).
    static func run(_ arguments: [String]) throws -> (seconds: Double, peakMiB: Double) {
        guard let child = Platform.runAndWait(arguments) else { throw BenchError("cannot start \(arguments[0])") }
        guard child.status == 0 else { throw BenchError("\(arguments.joined(separator: " ")) failed (\(child.status))") }
        return (child.seconds, Double(child.peakResidentBytes) / 1_048_576)
    }

    /// Whole-process wall time and peak RSS (MiB) of loading `path` with `geofence`, and the
    /// load's own seconds from its summary.
    func engine(_ path: String, fixes: String) throws -> (seconds: Double, peakMiB: Double, loadSeconds: Double) {
        let r = try EvaluateRunner.run(fences: path, fixes: fixes, threads: threads, summary: "\(work)/.summary.json")
        return (r.wallSeconds, r.processPeakMiB, r.fenceLoadSeconds)
    }

    /// Whole-process wall time and peak RSS (MiB) of `json.load` of `path` in Python.
    func pythonLoad(_ path: String) throws -> (seconds: Double, peakMiB: Double) {
        let script = "import json;json.load(open(\(Self.pythonString(path))))"
        let pythonPath = python.hasPrefix("/") ? python : "/usr/bin/env"
        return try Self.run(python.hasPrefix("/") ? [pythonPath, "-c", script] : [pythonPath, python, "-c", script])
    }

    static func pythonString(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "\\'") + "'" }

    /// The records of `n` fences: median wall and peak RSS per form; ratios against Python
    /// are medians of per-round ratios (each round runs every form once, in turn).
    func measure(fences n: Int) throws -> [BenchRecord] {
        // Each run's records folder is set in this process's environment for the child; the
        // caller's value comes back afterwards.
        let caller = Platform.environment("GEOFENCE_CACHE_DIR")
        defer { Platform.setEnvironment("GEOFENCE_CACHE_DIR", caller) }
        let inputs = try inputs(fences: n)
        let fixes = try oneFix()
        var engineRuns = [String: [(seconds: Double, peakMiB: Double, loadSeconds: Double)]]()
        var pythonRuns: [(seconds: Double, peakMiB: Double)] = []
        for _ in 0..<repeats {
            pythonRuns.append(try pythonLoad(inputs[0].path))
            for input in inputs {
                Platform.setEnvironment("GEOFENCE_CACHE_DIR", input.records ?? "")
                engineRuns[input.form, default: []].append(try engine(input.path, fixes: fixes))
            }
        }
        let pythonSeconds = Measure.median(pythonRuns.map(\.seconds))
        var records = [BenchRecord(
            benchCase: "load", method: "python json.load", fences: n, fixes: 0, threads: 1, seconds: pythonSeconds,
            rate: Double(n) / pythonSeconds, peakRSSMiB: Measure.median(pythonRuns.map(\.peakMiB)), note: "FeatureCollection, whole process")]
        for input in inputs {
            let runs = engineRuns[input.form]!
            let seconds = Measure.median(runs.map(\.seconds))
            let ratio = Measure.median(zip(pythonRuns, runs).map { $0.seconds / $1.seconds })
            let size = (try? FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int) ?? 0
            records.append(BenchRecord(
                benchCase: "load", method: input.form, fences: n, fixes: 0, threads: threads, seconds: seconds,
                rate: Double(n) / seconds, peakRSSMiB: Measure.median(runs.map(\.peakMiB)), ratios: [("python json.load", ratio)],
                note: "whole process; in-process load \(RTreeBench.fixed(Measure.median(runs.map(\.loadSeconds)), 3)) s; file \(size / 1_000_000) MB"
                    + (input.state.isEmpty ? "" : "; \(input.state)")))
        }
        return records
    }
}

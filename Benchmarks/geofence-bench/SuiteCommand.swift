import ArgumentParser
import Foundation
import GeofenceEngine
import GeofenceGEOS

/// `geofence-bench suite` (the default): every case, with its baselines, in one run.
struct SuiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suite",
        abstract: "All cases in one run: index build, containment (1 and all threads, both APIs, with the peers), nearest-10, evaluate, fence loading, the whole contains command.",
        discussion: """
            Workload: the world Benchmarks/peers/gen_world.py wrote when --peers-data names its \
            folder (fences_F.geojson and .bin, fixes_N.f64; fixes_N.csv is made from them for \
            evaluate and whole), else a world generated here in Swift (seeded; scalable to 1M \
            fences and 100M fixes). Each containment case runs beside its baselines in the same \
            process: brute force (the scan twin, on a prefix of the fixes) and the naive GEOS \
            C-API path. Pair counts and checksums are those of Benchmarks/peers/world.h; a \
            checksum that differs from a baseline's on the same fixes fails the run. With --peers \
            (Benchmarks/peers, its C peers built in --peers-bin, its Python ones run by --python) \
            the containment case also runs the C grid, the GEOS C API loop, Shapely and DuckDB \
            spatial in the same minutes, the ratios are taken against them and their checksums \
            must equal the engine's; the whole case times `geofence contains` on the world's CSV \
            (GeoJSON and compiled fences) against `duckdb_peer.py --mode whole`, whole processes \
            timed as /usr/bin/time -v does, to /dev/null and then writing their pairs to a file \
            (--format csv), whose checksums must agree. `make bench` runs all of it.
            """
    )

    @Option(help: "The world's folder, written by Benchmarks/peers/gen_world.py (make bench: .build-peers/world; none: a world generated in Swift).")
    var peersData: String?

    @Option(parsing: .upToNextOption, help: "Fence counts.")
    var fences: [Int] = [1_000, 10_000, 100_000]

    @Option(help: "Fixes per containment case.")
    var fixes = 1_000_000

    @Option(help: "Threads for the all-threads cases, 1 to 256 (default: the number of cores).")
    var threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)

    func validate() throws {
        guard threads >= 1, threads <= WorkerPool.maximumThreads else {
            throw ValidationError("--threads must be 1 to \(WorkerPool.maximumThreads), found \(threads)")
        }
        guard rounds >= 1, rounds <= 100, repeats >= 1, repeats <= 1_000, wholeRounds >= 1, wholeRounds <= 100 else {
            throw ValidationError("--rounds and --whole-rounds must be 1 to 100, --repeats 1 to 1000")
        }
    }

    @Option(help: "Timed repeats of each containment case (median reported).")
    var repeats = 3

    @Flag(help: "Skip the evaluate cases.")
    var noEvaluate = false

    @Option(parsing: .upToNextOption, help: "Cases to run: build, contains, nearest, evaluate, load, whole.")
    var cases: [String] = ["build", "contains", "nearest", "evaluate", "load"]

    @Option(help: "The peers' folder to compare with, Benchmarks/peers (its world: --peers-data; default: no peers).")
    var peers: String?

    @Option(help: "The built C peers (grid, geos_loop).")
    var peersBin = PeerRunner.defaultBin

    @Option(help: "Python for the Shapely and DuckDB peers (default: .bench-venv/bin/python when present, else python3).")
    var python: String?

    @Option(help: "Rounds of the containment case: each round measures the engine and the peers in turn; a ratio is the median of the rounds' ratios.")
    var rounds = 3

    @Option(help: "Rounds of the whole-command case (engine and DuckDB in turn; medians reported).")
    var wholeRounds = 3

    @Option(help: "The Austin data folder (evaluate on real traces).")
    var austin = "data/austin"

    @Option(help: "Write the results as JSON here.")
    var json: String?

    @Option(help: "Write a chart (fixes/s against fence count, log scale) as SVG here.")
    var svg: String?

    func run() throws {
        var report = BenchReport()
        report.context = [
            ("date", ISO8601DateFormatter().string(from: Date())), ("load1", RTreeBench.fixed(Measure.loadAverage(), 2)),
            ("cores", "\(ProcessInfo.processInfo.activeProcessorCount)"), ("geos", GEOSContext.runtimeVersion),
            ("workload", peersFolder == nil ? "Swift-generated world (seed 42)" : "gen_world.py world in \(peersFolder!)"),
        ]
        if peers != nil && peersFolder == nil {
            throw BenchError("--peers needs --peers-data: the peers and the engine must read one world")
        }
        if let peer = peerRunner {
            try peer.check(fences: fences, fixes: fixes)
            report.context.append(("python", peer.python))
        }
        for f in fences {
            let needsWorld = cases.contains { ["build", "contains", "nearest"].contains($0) }
            if needsWorld {
                let world = try loadWorld(fences: f)
                if cases.contains("build") { build(world, fences: f, report: &report) }
                if cases.contains("contains") { try containment(world, fences: f, report: &report) }
                if cases.contains("nearest") { try nearest(world, fences: f, report: &report) }
            }
            if evaluating, let folder = peersFolder { try evaluate(folder: folder, fences: f, report: &report) }
            if cases.contains("load"), let folder = peersFolder {
                let bench = LoadBench(peers: folder, work: "\(folder)/load-bench", python: peerRunner?.python ?? "python3", repeats: repeats, threads: threads)
                report.records += try bench.measure(fences: f)
            }
            if cases.contains("whole"), let folder = peersFolder { try whole(folder: folder, fences: f, report: &report) }
            print(report.records.suffix(8).map { "\($0.benchCase) \($0.method) F=\($0.fences) T=\($0.threads): \(RTreeBench.rate($0.rate))/s" }.joined(separator: "\n"))
            Platform.flushStandardStreams()
        }
        if evaluating, FileManager.default.fileExists(atPath: austin + "/fences.geojson") {
            for t in Set([1, threads]).sorted() {
                let r = try EvaluateRunner.run(fences: austin + "/fences.geojson", fixes: austin + "/capmetro_avl_traces.csv", threads: t)
                report.records.append(BenchRecord(
                    benchCase: "evaluate", method: "austin", fences: 2727, fixes: r.rowsRead, threads: t, seconds: r.seconds,
                    rate: Double(r.rowsRead) / r.seconds, peakRSSMiB: r.peakRSSMiB, note: "\(r.events) events; wall \(RTreeBench.fixed(r.wallSeconds, 2)) s"))
            }
        }
        print("\n" + report.context.map { "\($0.0): \($0.1)" }.joined(separator: ", "))
        print(report.table)
        if let json { try report.write(json: json) }
        if let svg { try chart(report).write(toFile: svg, atomically: true, encoding: .utf8) }
    }

    var evaluating: Bool { !noEvaluate && cases.contains("evaluate") }

    var peersFolder: String? { peersData }

    var peerRunner: PeerRunner? {
        guard let peers, let world = peersFolder else { return nil }
        return PeerRunner(folder: peers, bin: peersBin, python: python ?? PeerRunner.defaultPython, world: world)
    }

    func loadWorld(fences f: Int) throws -> PeerWorld {
        guard let folder = peersFolder else { return try SwiftWorld.world(fences: f, fixes: fixes) }
        return try PeerWorld.load(fences: "\(folder)/fences_\(f).geojson", fixes: "\(folder)/fixes_\(fixes).f64")
    }

    /// The whole `geofence contains` command on the world's CSV, GeoJSON and compiled fences,
    /// against DuckDB's whole command (`duckdb_peer.py --mode whole`), all on `threads`
    /// threads, in turn for `wholeRounds` rounds; medians of wall time, and of the per-round
    /// ratios. Output to /dev/null; then both again writing their pairs to a new file in the
    /// scratch folder (`--format csv`: the pairs DuckDB's `COPY` writes; ours synced and
    /// renamed into place, as every output of the command is), whose checksums must agree.
    func whole(folder: String, fences f: Int, report: inout BenchReport) throws {
        guard let peer = peerRunner else { throw BenchError("the whole case needs --peers and --peers-data") }
        let csv = "\(folder)/fixes_\(fixes).csv"
        if !FileManager.default.fileExists(atPath: csv) {
            try PeerCSVCommand.parse(["--fixes", "\(folder)/fixes_\(fixes).f64", "--output", csv]).run()
        }
        let geojson = "\(folder)/fences_\(f).geojson"
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-whole-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let compiled = scratch.appendingPathComponent("fences_\(f).fences").path
        // Compiled and recorded as `geofence compile` does, the records in the scratch folder
        // (set for the children, the caller's value restored): the file opens as it does for
        // a command once compiled, and no record is left in the user's cache.
        let records = scratch.appendingPathComponent("records").path
        try FenceSet.load(path: geojson).write(to: compiled, recordingIn: records)
        let caller = Platform.environment("GEOFENCE_CACHE_DIR")
        Platform.setEnvironment("GEOFENCE_CACHE_DIR", records)
        defer { Platform.setEnvironment("GEOFENCE_CACHE_DIR", caller) }
        let engine = EvaluateRunner.executable
        func contains(_ fences: String, _ extra: [String] = ["--output", "/dev/null"]) -> [String] {
            [engine, "contains", "--fences", fences, "--fixes", csv, "--threads", "\(threads)"] + extra
        }
        let ourFile = scratch.appendingPathComponent("pairs-engine.csv").path, duckFile = scratch.appendingPathComponent("pairs-duckdb.csv").path
        let commands = [
            contains(compiled), contains(geojson), peer.duckDBWhole(fences: f, csv: csv, threads: threads),
            contains(geojson, ["--format", "csv", "--output", ourFile]), peer.duckDBWhole(fences: f, csv: csv, threads: threads, out: duckFile),
        ]
        let files = [3: ourFile, 4: duckFile]
        var runs: [[WholeProcess.Result]] = Array(repeating: [], count: commands.count)
        var checksums: [Int: PairChecksum] = [:]
        for round in 0..<wholeRounds {
            for (k, command) in commands.enumerated() {
                // Each run writes a new file, as a user's first run does.
                if let file = files[k] { try? FileManager.default.removeItem(atPath: file) }
                runs[k].append(try WholeProcess.time(command))
                // The pairs each wrote, checked once (untimed): the same answers, or the run fails.
                if round == 0, let file = files[k] { checksums[k] = try PairChecksum.ofPairFile(file) }
            }
        }
        guard let ours = checksums[3], let theirs = checksums[4], ours == theirs else {
            throw BenchError("F=\(f): the whole commands' pairs differ: geofence contains \(checksums[3].map { "\($0.pairs) \($0.hex)" } ?? "-"), "
                + "DuckDB \(checksums[4].map { "\($0.pairs) \($0.hex)" } ?? "-")")
        }
        let names = [
            "geofence contains (compiled fences)", "geofence contains (GeoJSON fences)", "duckdb spatial whole (peer)",
            "geofence contains --format csv to a file (GeoJSON fences)", "duckdb spatial whole to a file (peer)",
        ]
        // Each engine run against its DuckDB run: to /dev/null, and to a file.
        let peerOf = [0: 2, 1: 2, 3: 4]
        for k in 0..<commands.count {
            let wall = Measure.median(runs[k].map(\.wallSeconds))
            var ratios: [(String, Double)] = []
            if let d = peerOf[k] {
                ratios.append((d == 2 ? "duckdb whole" : "duckdb whole to a file", Measure.median(zip(runs[d], runs[k]).map { $0.wallSeconds / $1.wallSeconds })))
            }
            let written = files[k].flatMap { _ in checksums[k] }
            report.records.append(BenchRecord(
                benchCase: "whole", method: names[k], fences: f, fixes: fixes, threads: threads, seconds: wall,
                rate: Double(fixes) / wall, pairs: written?.pairs, checksum: written?.hex,
                peakRSSMiB: Measure.median(runs[k].map(\.peakRSSMiB)), ratios: ratios,
                note: "wall " + runs[k].map { RTreeBench.fixed($0.wallSeconds, 2) }.joined(separator: ", ") + " s"))
        }
    }

    /// Index build: the packed R-tree's bulk load and the grid directory, median of 3.
    func build(_ world: PeerWorld, fences f: Int, report: inout BenchReport) {
        let set = world.fenceSet
        var boxes: [BoundingBox] = [], values: [Int32] = []
        for slot in 0..<set.count {
            for box in set.boundingBoxes(at: slot) { boxes.append(box); values.append(Int32(slot)) }
        }
        var times: [Double] = []
        for _ in 0..<3 {
            times.append(Measure.time { _ = PackedRTree(boxes: boxes, values: values) })
        }
        let t = Measure.median(times)
        report.records.append(BenchRecord(
            benchCase: "build", method: "packed R-tree", fences: f, fixes: boxes.count, threads: 1, seconds: t,
            rate: Double(boxes.count) / t, peakRSSMiB: Measure.peakRSSMiB(),
            note: "tree \(RTreeBench.fixed(Double(set.index.memoryBytes) / 1_048_576, 2)) MiB, directory \(RTreeBench.fixed(Double(set.directory.memoryBytes) / 1_048_576, 2)) MiB"))
    }

    func fenceSetSorted(_ world: PeerWorld) -> Bool {
        world.fenceSet.hotBytes >= ContainmentEvaluator.sortingThreshold
    }

    /// Nearest-10 per second on the tree and by scan, checked equal.
    func nearest(_ world: PeerWorld, fences f: Int, report: inout BenchReport) throws {
        let evaluator = try ContainmentEvaluator(fenceSet: world.fenceSet)
        let queries = (0..<min(world.fixCount, 20_000)).map { Coordinate(latitude: world.fixes[2 * $0], longitude: world.fixes[2 * $0 + 1]) }
        let r = try IndexBenchCommand.nearestQueries(evaluator, queries, seconds: 1)
        report.records.append(BenchRecord(
            benchCase: "nearest10", method: "engine", fences: f, fixes: queries.count, threads: 1, seconds: Double(queries.count) / r.tree,
            rate: r.tree, peakRSSMiB: Measure.peakRSSMiB(), ratios: [("brute", r.tree / r.brute)], note: "\(r.checked) queries checked against the scan"))
    }

    /// `geofence evaluate` on the peers' CSV (made from the binary fixes when missing).
    func evaluate(folder: String, fences f: Int, report: inout BenchReport) throws {
        let csv = "\(folder)/fixes_\(fixes).csv"
        if !FileManager.default.fileExists(atPath: csv) {
            let make = try PeerCSVCommand.parse(["--fixes", "\(folder)/fixes_\(fixes).f64", "--output", csv])
            try make.run()
        }
        for t in Set([1, threads]).sorted() {
            let r = try EvaluateRunner.run(fences: "\(folder)/fences_\(f).geojson", fixes: csv, threads: t)
            report.records.append(BenchRecord(
                benchCase: "evaluate", method: "peers-csv", fences: f, fixes: r.rowsRead, threads: t, seconds: r.seconds,
                rate: Double(r.rowsRead) / r.seconds, peakRSSMiB: r.peakRSSMiB,
                note: "\(r.events) events; wall \(RTreeBench.fixed(r.wallSeconds, 2)) s with fence loading"))
        }
    }

    func chart(_ report: BenchReport) -> String {
        var series: [String: [(Double, Double)]] = [:]
        var order: [String] = []
        for r in report.records where r.benchCase != "build" && (r.benchCase != "evaluate" || r.method == "peers-csv") {
            let name = "\(r.benchCase) \(r.method) \(r.threads)T"
            if series[name] == nil { order.append(name) }
            series[name, default: []].append((Double(r.fences), r.rate))
        }
        return BenchChart.svg(
            title: "geofence-engine: throughput against fence count",
            series: order.map { BenchChart.Series(name: $0, points: series[$0]!.map { (fences: $0.0, rate: $0.1) }) })
    }
}

import Foundation
import GeofenceEngine

/// Runs the repository's own peers (`Benchmarks/peers`: the C grid, the GEOS C API loop,
/// Shapely and DuckDB spatial) as child processes in the same run as the engine, on the
/// world `Benchmarks/peers/gen_world.py` wrote, and reads the JSON line each prints.
struct PeerRunner {
    /// The peers' sources: `shapely_peer.py`, `duckdb_peer.py` (and `peerlib.py`).
    let folder: String
    /// The built C peers: `grid`, `geos_loop` (`make -C Benchmarks/peers`).
    let bin: String
    /// The Python that has the pinned shapely, duckdb and duckdb-extension-spatial.
    let python: String
    /// The world: `fences_F.bin`, `fences_F.geojson`, `fixes_N.f64`.
    let world: String

    /// The defaults `make bench` uses, all inside the clone (paths relative to its root).
    static let defaultFolder = "Benchmarks/peers"
    static let defaultBin = ".build-peers/bin"
    static let defaultWorld = ".build-peers/world"
    static let defaultVenvPython = ".bench-venv/bin/python"

    /// `.bench-venv/bin/python` when that venv exists, else `python3` from `PATH`.
    static var defaultPython: String {
        FileManager.default.isExecutableFile(atPath: defaultVenvPython) ? defaultVenvPython : "python3"
    }

    /// One peer measurement: fixes per second, pairs and the peers' checksum.
    struct Result {
        var name: String
        var threads: Int
        var fixesPerSecond: Double
        var pairs: Int
        var checksum: String
        var peakRSSMiB: Double
    }

    func fences(_ f: Int, _ suffix: String) -> String { "\(world)/fences_\(f).\(suffix)" }
    func fixes(_ n: Int) -> String { "\(world)/fixes_\(n).f64" }

    /// Fails early, naming what is missing, when a peer's program or the world is not there.
    func check(fences counts: [Int], fixes n: Int) throws {
        for program in ["grid", "geos_loop"] where !FileManager.default.isExecutableFile(atPath: "\(bin)/\(program)") {
            throw BenchError("\(bin)/\(program) is missing: build the C peers with `make bench-peers` (or `make -C \(folder) BUILD=$PWD/\(bin)`)")
        }
        for f in counts {
            for path in [fences(f, "bin"), fences(f, "geojson")] where !FileManager.default.fileExists(atPath: path) {
                throw BenchError("\(path) is missing: generate the world with `python3 \(folder)/gen_world.py --out \(world) --fences \(counts.map(String.init).joined(separator: " ")) --fixes \(n)`")
            }
        }
        guard FileManager.default.fileExists(atPath: fixes(n)) else { throw BenchError("\(fixes(n)) is missing: generate the world with \(folder)/gen_world.py") }
        // The Python peers' own check: each exits with the missing module's name and how to get it.
        _ = try run([python, "\(folder)/peerlib.py"])
    }

    /// `grid FENCES.bin FIXES.f64 REPEATS`: the plain C grid, one thread.
    func cGrid(fences f: Int, fixes n: Int, repeats: Int) throws -> Result {
        try parse(run(["\(bin)/grid", fences(f, "bin"), fixes(n), "\(repeats)"]), name: "c-grid", threads: 1)
    }

    /// `geos_loop FENCES.bin FIXES.f64 REPEATS`: GEOS's C API, prepared polygons in an STRtree, one thread.
    func geosLoop(fences f: Int, fixes n: Int, repeats: Int) throws -> Result {
        try parse(run(["\(bin)/geos_loop", fences(f, "bin"), fixes(n), "\(repeats)"]), name: "geos-loop", threads: 1)
    }

    /// `shapely_peer.py`: Shapely 2's vectorised STRtree queries, one thread.
    func shapely(fences f: Int, fixes n: Int, repeats: Int) throws -> Result {
        let out = try run([python, "\(folder)/shapely_peer.py", "--fences", fences(f, "geojson"), "--fixes", fixes(n),
                           "--repeats", "\(repeats)"])
        return try parse(out, name: "shapely", threads: 1)
    }

    /// `duckdb_peer.py --mode join` in process (fences loaded, fixes in a table, the join timed).
    func duckDB(fences f: Int, fixes n: Int, threads: Int, repeats: Int) throws -> Result {
        let out = try run([python, "\(folder)/duckdb_peer.py", "--mode", "join", "--fences", fences(f, "geojson"), "--fixes", fixes(n),
                           "--threads", "\(threads)", "--repeats", "\(repeats)"])
        return try parse(out, name: "duckdb spatial", threads: threads)
    }

    /// `duckdb_peer.py --mode whole`: the command a DuckDB user runs on the fixes CSV.
    func duckDBWhole(fences f: Int, csv: String, threads: Int, out: String? = nil) -> [String] {
        [python, "\(folder)/duckdb_peer.py", "--mode", "whole", "--fences", fences(f, "geojson"), "--fixes-csv", csv,
         "--threads", "\(threads)"] + (out.map { ["--out", $0] } ?? [])
    }

    /// Runs `arguments` and returns its standard output; throws with its standard error when it fails.
    func run(_ arguments: [String]) throws -> String {
        let r = try Self.spawn(arguments)
        guard r.status == 0 else {
            throw BenchError("\(arguments.joined(separator: " ")) failed (status \(r.status)): \(r.stderr.suffix(400))")
        }
        return r.stdout
    }

    /// The last line of `output` that is a JSON object, as the peers print it.
    func parse(_ output: String, name: String, threads: Int) throws -> Result {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let o = try JSONParser.parse(Array(line.utf8)).objectValue
        else { throw BenchError("\(name): no JSON line in its output") }
        return Result(
            name: name, threads: threads, fixesPerSecond: o["fixes_per_s"]?.doubleValue ?? .nan,
            pairs: o["pairs"]?.intValue ?? 0, checksum: o["checksum"]?.stringValue ?? "",
            peakRSSMiB: o["peak_rss_mb"]?.doubleValue ?? .nan)
    }

    /// Runs a process to its end, capturing both streams (into files: no pipe can fill up).
    static func spawn(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bench-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// A whole process timed from spawn to exit: wall time and peak resident memory, what
/// `/usr/bin/time -v` reports (both come from `wait4`), with the wall time to the microsecond
/// rather than to its hundredth of a second (a whole `contains` at 10k fences takes 0.1 s).
enum WholeProcess {
    struct Result {
        var wallSeconds: Double
        var peakRSSMiB: Double
    }

    /// Runs `arguments` (the program looked up in `PATH` by `/usr/bin/env`, for every command
    /// alike), its output discarded.
    static func time(_ arguments: [String]) throws -> Result {
        guard let child = Platform.runAndWait(["/usr/bin/env"] + arguments) else {
            throw BenchError("cannot start \(arguments[0])")
        }
        guard child.status == 0 else {
            throw BenchError("\(arguments.joined(separator: " ")) failed (status \(child.status)); run it alone to see its message")
        }
        return Result(wallSeconds: child.seconds, peakRSSMiB: Double(child.peakResidentBytes) / 1_048_576)
    }
}

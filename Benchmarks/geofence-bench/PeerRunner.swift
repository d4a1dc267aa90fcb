import Foundation
import GeofenceEngine

/// Runs the peers of `../shared/peers` (the C grid, Shapely, DuckDB spatial) as child
/// processes in the same run as the engine, and reads the JSON line each prints.
struct PeerRunner {
    /// The peers' folder: `build/flat`, `shapely_bench.py`, `duckdb_bench.py`, `data/`.
    let folder: String

    /// One peer measurement: fixes per second, pairs and the peers' checksum.
    struct Result {
        var name: String
        var threads: Int
        var fixesPerSecond: Double
        var pairs: Int
        var checksum: String
        var peakRSSMiB: Double
    }

    /// `build/flat grid F N repeats`: the plain C grid (250 m cells), one thread.
    func cGrid(fences f: Int, fixes n: Int, repeats: Int) throws -> Result {
        try parse(run(["\(folder)/build/flat", "grid", "\(f)", "\(n)", "\(repeats)"]), name: "c-grid", threads: 1)
    }

    /// `shapely_bench.py --variant bbox_prepared`: STRtree on boxes, prepared polygons, NumPy haversine.
    func shapely(fences f: Int, fixes n: Int, repeats: Int) throws -> Result {
        let out = try run(["python3", "\(folder)/shapely_bench.py", "--variant", "bbox_prepared", "--F", "\(f)", "--N", "\(n)",
                           "--repeats", "\(repeats)"])
        return try parse(out, name: "shapely bbox_prepared", threads: 1)
    }

    /// `duckdb_bench.py --mode grid|spatial` in process (fences loaded, fixes read, the join timed).
    func duckDB(fences f: Int, fixes n: Int, threads: Int, repeats: Int, mode: String) throws -> Result {
        let out = try run(["python3", "\(folder)/duckdb_bench.py", "--F", "\(f)", "--N", "\(n)", "--threads", "\(threads)",
                           "--repeats", "\(repeats)", "--mode", mode])
        return try parse(out, name: "duckdb \(mode)", threads: threads)
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

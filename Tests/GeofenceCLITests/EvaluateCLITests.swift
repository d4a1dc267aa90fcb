import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

@Suite("geofence evaluate and merge")
struct EvaluateCLITests {
    static let fences = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"home","radius":200,"note":"x"},"geometry":{"type":"Point","coordinates":[-73.98,40.75]}},{"type":"Feature","properties":{"id":"office","level":3},"geometry":{"type":"Polygon","coordinates":[[[-73.99,40.76],[-73.98,40.76],[-73.98,40.77],[-73.99,40.77],[-73.99,40.76]]]}}]}"#

    func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("events, summary file, summary line; due events at the end of a device")
    func events() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = try write(Self.fences, "f.geojson", in: dir)
        let fixes = try write("""
            timestamp,device_id,lat,lon,level
            0,b,40.75,-73.98,
            2016-11-24T06:00:00Z,a,40.765,-73.985,3
            60000,b,40.75,-73.98,
            2016-11-24T06:01:00Z,a,40.765,-73.985,2
            61000,b,41,-73,
            bad,b,1,2,
            """, "x.csv", in: dir)
        let summary = dir.appendingPathComponent("s.json").path
        let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--summary", summary, "--threads", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == [
            #"{"eventType":"entrance","timestamp":1479967200000,"deviceId":"a","geofenceId":"office","lat":40.765,"lng":-73.985,"radius":\#(Self.officeRadius(r.stdoutLines)),"level":3,"geofenceProperties":{}}"#,
            #"{"eventType":"exit","timestamp":1479967260000,"deviceId":"a","geofenceId":"office","lat":40.765,"lng":-73.985,"radius":\#(Self.officeRadius(r.stdoutLines)),"level":3,"geofenceProperties":{}}"#,
            #"{"eventType":"entrance","timestamp":0,"deviceId":"b","geofenceId":"home","lat":40.75,"lng":-73.98,"radius":200,"geofenceProperties":{"note":"x"}}"#,
            #"{"eventType":"dwell","timestamp":60000,"deviceId":"b","geofenceId":"home","lat":40.75,"lng":-73.98,"radius":200,"geofenceProperties":{"note":"x"}}"#,
            #"{"eventType":"exit","timestamp":61000,"deviceId":"b","geofenceId":"home","lat":41,"lng":-73,"radius":200,"geofenceProperties":{"note":"x"}}"#,
        ], "\(r.stdout)")
        #expect(r.stderr.contains("6 rows read, 5 processed, 1 rejected (parse 1 (line 7))"), "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        #expect(json["rowsRead"] as? Int == 6 && json["processed"] as? Int == 5 && json["rejected"] as? Int == 1)
        #expect((json["eventsByType"] as? [String: Int])?["entrance"] == 2)
        #expect(json["devices"] as? Int == 2 && json["fences"] as? Int == 2)
    }

    /// The office polygon's radius as printed (its minimum enclosing circle, computed by GEOS).
    static func officeRadius(_ lines: [String]) -> String {
        guard let line = lines.first(where: { $0.contains("office") }), let r = line.range(of: #""radius":"#) else { return "?" }
        return String(line[r.upperBound...].prefix { $0 != "," })
    }

    @Test("threads and shards: same bytes; merge restores the one-process output")
    func threadsAndShards() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = CLIRunner.repositoryRoot.appendingPathComponent("data/austin/fences.geojson").path
        // The first 20,000 Austin fixes (6,000 under `make test`).
        let traces = CLIRunner.repositoryRoot.appendingPathComponent("data/austin/capmetro_avl_traces.csv").path
        let fixes = try write(try FilePrefix.lines(traces, count: sized(full: 20_001, quick: 6_001)), "x.csv", in: dir)
        var outputs: [String] = []
        for threads in ["1", "2", "4"] {
            let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--threads", threads, "--quiet"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            outputs.append(r.stdout)
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
        #expect(outputs[0].count > 100_000)
        var shardFiles: [String] = []
        for k in 0..<3 {
            let out = dir.appendingPathComponent("shard\(k).ndjson").path
            let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--shard", "\(k)/3", "--output", out, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            shardFiles.append(out)
        }
        let merged = try CLIRunner.run(["merge"] + shardFiles)
        #expect(merged.status == 0)
        #expect(merged.stdout == outputs[0])
        // Merging a file with itself is refused: a device in two inputs.
        let twice = try CLIRunner.run(["merge", shardFiles[0], shardFiles[0]])
        #expect(twice.status == 2 && twice.stderr.contains("appears in both"))
    }

    /// Skipped under AddressSanitizer and ThreadSanitizer: their shadow memory and
    /// bookkeeping (measured 168 MB resident) are not the program's.
    @Test("--sorted-input streams a 1M-row file (500k under make test) within a fixed memory bound")
    func streamingMemory() throws {
        guard !Platform.underSanitizer else { return }
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fences = try write(Self.fences, "f.geojson", in: dir)
        // 1,000,000 rows: 100 devices × 10,000 fixes, sorted by device then time (~40 MB).
        // `make test` writes half (50 devices, ~20 MB): still more than twice the 8 MiB
        // block, and holding its fixes (16 MB) would still pass the bound on fixes held below.
        let devices = sized(full: 100, quick: 50)
        let path = dir.appendingPathComponent("big.csv").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.write(Data("device_id,timestamp,lat,lon\n".utf8))
        for d in 0..<devices {
            var chunk = ""
            chunk.reserveCapacity(400_000)
            for i in 0..<10_000 {
                chunk += "dev\(1000 + d),\(i * 1000),40.\(750_000 + (i * 37 + d) % 20_000),-73.98\n"
            }
            handle.write(Data(chunk.utf8))
        }
        try handle.close()
        let summary = dir.appendingPathComponent("s.json").path
        let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", path, "--sorted-input", "--quiet", "--output", "/dev/null", "--summary", summary, "--threads", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        #expect(json["rowsRead"] as? Int == devices * 10_000 && json["processed"] as? Int == devices * 10_000)
        // The bound: 96 MB of resident memory for the whole process (a debug build, its
        // libraries, GEOS, one 8 MB block and one 10,000-fix device), whatever the file size;
        // holding the file's fixes would take 40 MB more on top of the block.
        let peak = json["peakResidentBytes"] as? Int ?? .max
        #expect(peak < 96 << 20, "peak RSS \(peak >> 20) MB")
        // Fixes held at once: at most one block's rows (8 MiB of rows of 26 bytes or more)
        // plus one device, at 32 bytes a fix (the tracker's record).
        let held: Int = json["fixMemoryBytes"] as? Int ?? Int.max
        let bound: Int = 32 * (10_000 + (8 << 20) / 26)
        #expect(held <= bound, "fix memory \(held) > \(bound)")
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Without `--threads`, the threads are the CPUs the process may run on: one under
    /// `taskset -c 0`, the online cores otherwise (a container's cpuset, or `taskset`, no
    /// longer gets a thread, and a spinning wait, for every core of the host).
    @Test("the default threads follow the CPU affinity", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")))
    func defaultThreadsFollowAffinity() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = try write(Self.fences, "f.geojson", in: dir)
        let fixes = try write("timestamp,device_id,lat,lon\n0,b,40.75,-73.98\n60000,b,40.75,-73.98\n", "x.csv", in: dir)
        func threads(_ prefix: [String]) throws -> Int? {
            let summary = dir.appendingPathComponent("s.json").path
            try? FileManager.default.removeItem(atPath: summary)
            let command = prefix + [CLIRunner.executable.path, "evaluate", "--fences", fences, "--fixes", fixes, "--output", "/dev/null", "--summary", summary]
            let run = Platform.runAndWait(command)
            #expect(run?.status == 0, "\(command)")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
            return json?["threads"] as? Int
        }
        #expect(try threads(["/usr/bin/taskset", "-c", "0"]) == 1)
        #expect(try threads([]) == Platform.coreCount)
    }

    /// Under a cgroup CPU quota of one CPU (`docker run --cpus=1` on a larger host), the
    /// default threads are one: not a thread, and a spinning wait, per host core that all share
    /// one CPU's time. The command joins a group made for the test (where root may make one).
    @Test(
        "the default threads follow a cgroup CPU quota",
        .enabled(if: Platform.coreCount > 1 && CPUQuotaGroup.available, "needs 2 cores and a cgroup this user may make"))
    func defaultThreadsFollowQuota() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fences = try write(Self.fences, "f.geojson", in: dir)
        let fixes = try write("timestamp,device_id,lat,lon\n0,b,40.75,-73.98\n60000,b,40.75,-73.98\n", "x.csv", in: dir)
        let group = try #require(CPUQuotaGroup(cpus: 1))
        defer { #expect(group.remove(), "the test's cgroup \(group.folder) was not removed") }
        let summary = dir.appendingPathComponent("s.json").path
        let command = "echo $$ > '\(group.procs)' && exec '\(CLIRunner.executable.path)' evaluate --fences '\(fences)' --fixes '\(fixes)' --output /dev/null --summary '\(summary)'"
        let run = Platform.runAndWait(["/bin/sh", "-c", command])
        #expect(run?.status == 0, "\(command)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        #expect(json?["threads"] as? Int == 1)
    }

    @Test("--help names every option with its unit and default")
    func help() throws {
        let r = try CLIRunner.run(["evaluate", "--help"])
        #expect(r.status == 0)
        let wanted: [String] = [
            "--ignore-period", "(default: 30.0)", "--dwell", "(default: 60.0)", "--enter-tolerance", "--exit-tolerance",
            "--max-accuracy", "(default: 1000.0)", "--accuracy-buffer", "--presence-interval", "--ttl", "(default: 3600)",
            "--no-level-fences", "--no-global-fences", "--repair", "--quiet", "--threads", "--shard", "--sorted-input",
            "--summary", "seconds", "metres", "fraction of the fence radius",
        ]
        for text in wanted {
            #expect(r.stdout.contains(text), "help lacks \(text)")
        }
    }

    @Test("bad arguments and unreadable input exit 2 naming the problem", arguments: [
        (["--threads", "0"], "--threads"),
        (["--shard", "3/3"], "--shard"),
        (["--ttl", "soon"], "--ttl"),
        (["--ignore-period", "-1"], "ignore"),
    ])
    func badArguments(extra: [String], message: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = try write(Self.fences, "f.geojson", in: dir)
        let fixes = try write("device_id,timestamp,lat,lon\n", "x.csv", in: dir)
        let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes] + extra)
        #expect(r.status == 2, "\(extra)")
        #expect(r.stderr.lowercased().contains(message), "\(r.stderr)")
    }

    /// Loading goes through `FenceSet.load` (validation once): every bad feature is listed
    /// with the file and its index, and the command ends with status 2 before reading fixes.
    @Test("a fence file with bad features exits 2 listing each one; a missing one names the file")
    func badFences() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fixes = try write("device_id,timestamp,lat,lon\nd,1700000000000,40.75,-73.98\n", "x.csv", in: dir)
        let bowtie = #"{"type":"Feature","properties":{"id":"bow"},"geometry":{"type":"Polygon","coordinates":[[[-73.99,40.74],[-73.97,40.76],[-73.97,40.74],[-73.99,40.76],[-73.99,40.74]]]}}"#
        let noRadius = #"{"type":"Feature","properties":{"id":"dot"},"geometry":{"type":"Point","coordinates":[-73.98,40.75]}}"#
        let good = #"{"type":"Feature","properties":{"id":"ok","radius":50},"geometry":{"type":"Point","coordinates":[-73.98,40.75]}}"#
        let fences = try write(#"{"type":"FeatureCollection","features":[\#(good),\#(bowtie),\#(noRadius)]}"#, "bad.geojson", in: dir)
        let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes])
        #expect(r.status == 2 && r.stdout.isEmpty, "\(r.stderr)")
        #expect(r.stderr.contains("\(fences): 2 invalid feature(s)"), "\(r.stderr)")
        let listed = r.stderr.split(separator: "\n").filter { $0.hasPrefix("\(fences): feature") }
        #expect(listed.count == 2 && listed[0].contains("feature 1") && listed[1].contains("feature 2"), "\(r.stderr)")
        // Repaired, the bow-tie loads; the point without a radius still does not.
        let repaired = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--repair"])
        #expect(repaired.status == 2 && repaired.stderr.contains("1 invalid feature(s)"), "\(repaired.stderr)")
        let missing = try CLIRunner.run(["evaluate", "--fences", "/nonexistent/f.geojson", "--fixes", fixes])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/f.geojson"), "\(missing.stderr)")
    }

    @Test("missing fix file, header only")
    func inputs() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = try write(Self.fences, "f.geojson", in: dir)
        let missing = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", "/nonexistent/x.csv"])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/x.csv"))
        let headerOnly = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", try write("device_id,timestamp,lat,lon\n", "h.csv", in: dir)])
        #expect(headerOnly.status == 0 && headerOnly.stdout.isEmpty && headerOnly.stderr.contains("0 rows read"))
    }
}

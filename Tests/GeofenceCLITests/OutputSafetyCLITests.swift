import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

/// Outputs never destroy inputs, appear complete or not at all, and a killed run leaves the
/// previous file (issue 13, measured failures 1 and 2).
@Suite("Output safety")
struct OutputSafetyCLITests {
    static let fences = EvaluateCLITests.fences

    static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// Names in `dir` that are temporary files of an atomic write.
    static func temporaryFiles(in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".geofence-tmp-") }
    }

    static let fixes = "device_id,timestamp,lat,lon\nb,0,40.75,-73.98\nb,60000,40.75,-73.98\n"
    static let signals = "timestamp,device_id,signal,geofence_id,lat,lon\n0,d,entry,home,,\n"

    @Test("an output that names an input is refused, before anything is touched")
    func outputIsInput() throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = try Self.write(Self.fences, "f.geojson", in: dir)
            let fixes = try Self.write(Self.fixes, "in.csv", in: dir)
            let signals = try Self.write(Self.signals, "s.csv", in: dir)
            let events = try Self.write(#"{"deviceId":"a"}"# + "\n", "a.ndjson", in: dir)
            // Another name for the fixes: a hard link is the same file (device and inode).
            let link = dir.appendingPathComponent("link.csv").path
            try FileManager.default.linkItem(atPath: fixes, toPath: link)
            let symbolic = dir.appendingPathComponent("symbolic.csv").path
            try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: fixes)
            let before = [fences, fixes, signals, events].map { Self.bytes($0) }
            let cases: [[String]] = [
                ["contains", "--fences", fences, "--fixes", fixes, "--output", fixes],
                ["contains", "--fences", fences, "--fixes", fixes, "--output", link],
                ["contains", "--fences", fences, "--fixes", fixes, "--output", symbolic],
                ["places", "--fences", fences, "--signals", signals, "--output", signals],
                ["evaluate", "--fences", fences, "--fixes", fixes, "--output", fixes],
                ["evaluate", "--fences", fences, "--fixes", fixes, "--summary", fixes],
                ["evaluate", "--fences", fences, "--fixes", fixes, "--output", fences],
                ["evaluate", "--fences", fences, "--fixes", fixes, "--output", dir.path + "/./in.csv"],
                ["merge", events, "--output", events],
                ["validate", "--fences", fences, "--repair", "--output", fences],
            ]
            for arguments in cases {
                let r = try CLIRunner.run(arguments)
                #expect(r.status == 2, "\(arguments): \(r.stderr)")
                #expect(r.stderr.contains("is the same file as") && r.stderr.contains("refusing to overwrite an input"), "\(r.stderr)")
                #expect(r.stdout.isEmpty, "\(arguments)")
                #expect([fences, fixes, signals, events].map { Self.bytes($0) } == before, "\(arguments) changed an input")
            }
            // Two outputs on one path would lose one of them.
            let both = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--output", dir.path + "/o", "--summary", dir.path + "/o"])
            #expect(both.status == 2 && both.stderr.contains("name the same file"), "\(both.stderr)")
            #expect(try Self.temporaryFiles(in: dir).isEmpty)
        }
    }

    @Test("an existing output survives a failing run, and no temporary file is left")
    func failedRunKeepsOutput() throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = try Self.write(Self.fences, "f.geojson", in: dir)
            let badHeader = try Self.write("bad,header\n1,2\n", "bad.csv", in: dir)
            let out = try Self.write("previous output\n", "out.ndjson", in: dir)
            let summary = try Self.write("previous summary\n", "summary.json", in: dir)
            let signalsBad = try Self.write("nonsense\n", "s.csv", in: dir)
            let unordered = try Self.write(#"{"deviceId":"b"}"# + "\n" + #"{"deviceId":"a"}"# + "\n", "u.ndjson", in: dir)
            let cases: [[String]] = [
                ["evaluate", "--fences", fences, "--fixes", badHeader, "--output", out, "--summary", summary],
                ["evaluate", "--fences", fences, "--fixes", badHeader, "--output", out, "--sorted-input"],
                ["evaluate", "--fences", fences, "--fixes", dir.path + "/missing.csv", "--output", out],
                ["contains", "--fences", fences, "--fixes", badHeader, "--output", out],
                ["places", "--fences", fences, "--signals", signalsBad, "--output", out],
                ["merge", unordered, "--output", out],
                ["merge", unordered, dir.path + "/missing.ndjson", "--output", out],
            ]
            for arguments in cases {
                let r = try CLIRunner.run(arguments)
                #expect(r.status == 2, "\(arguments): \(r.stderr)")
                #expect(Self.bytes(out) == Array("previous output\n".utf8), "\(arguments) touched the output")
                #expect(Self.bytes(summary) == Array("previous summary\n".utf8), "\(arguments) touched the summary")
                #expect(try Self.temporaryFiles(in: dir).isEmpty, "\(arguments) left a temporary file")
            }
        }
    }

    @Test("outputs appear complete: the summary ends with complete: true; devices and pipes stay streams")
    func completeOutputs() throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = try Self.write(Self.fences, "f.geojson", in: dir)
            let fixes = try Self.write(Self.fixes, "in.csv", in: dir)
            let out = dir.appendingPathComponent("events.ndjson").path
            let summary = dir.appendingPathComponent("summary.json").path
            let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--output", out, "--summary", summary, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            let text = String(decoding: Self.bytes(summary) ?? [], as: UTF8.self)
            #expect(text.hasSuffix(",\"complete\":true}\n"), "\(text)")
            #expect(String(decoding: Self.bytes(out) ?? [], as: UTF8.self).split(separator: "\n").count == 2)
            // A symbolic link stays one: the file it points to is replaced.
            let real = dir.appendingPathComponent("real.ndjson").path
            try Data("old\n".utf8).write(to: URL(fileURLWithPath: real))
            let link = dir.appendingPathComponent("link.ndjson").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            let viaLink = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--output", link, "--quiet"])
            #expect(viaLink.status == 0, "\(viaLink.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
            #expect(Self.bytes(real) == Self.bytes(out))
            // /dev/null is written in place, not replaced by a regular file.
            let null = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", fixes, "--output", "/dev/null", "--quiet"])
            #expect(null.status == 0, "\(null.stderr)")
            #expect(Platform.status(atPath: "/dev/null")?.kind == .other)
            #expect(try Self.temporaryFiles(in: dir).isEmpty)
        }
    }

    /// The measured failure: a SIGKILL mid-run left an exact prefix at the output path (10 of
    /// 10 tries), often ending on a line break. Now the path holds the previous file or the
    /// complete new one; the killed run's temporary file says what it is, and the next run to
    /// the path removes it.
    @Test("SIGKILL at random moments: the output is the old file or the complete new one")
    func killedRuns() throws {
        try TestFolders.with("geofence-cli") { dir in
            let fences = CLIRunner.repositoryRoot.appendingPathComponent("data/austin/fences.geojson").path
            let traces = CLIRunner.repositoryRoot.appendingPathComponent("data/austin/capmetro_avl_traces.csv").path
            let fixes = try Self.write(try FilePrefix.lines(traces, count: 20_001), "x.csv", in: dir)
            let out = dir.appendingPathComponent("events.ndjson").path
            let summary = dir.appendingPathComponent("summary.json").path
            let old = Array("the previous run's events\n".utf8)
            try Data(old).write(to: URL(fileURLWithPath: out))
            // The previous run's summary, beside its events: it must never be seen beside new ones.
            let oldSummary = Array("{\"previous\":true,\"complete\":true}\n".utf8)
            try Data(oldSummary).write(to: URL(fileURLWithPath: summary))
            let arguments = ["evaluate", "--fences", fences, "--fixes", fixes, "--output", out, "--summary", summary, "--quiet", "--threads", "2"]
            // The complete output, for comparison (written elsewhere), and how long a run takes.
            let reference = dir.appendingPathComponent("reference.ndjson").path
            var referenceArguments = arguments
            referenceArguments[6] = reference
            referenceArguments[8] = dir.appendingPathComponent("reference.json").path
            let start = Platform.monotonicSeconds()
            let full = try CLIRunner.run(referenceArguments)
            let duration = Platform.monotonicSeconds() - start
            #expect(full.status == 0, "\(full.stderr)")
            let complete = try #require(Self.bytes(reference))
            #expect(complete.count > 1_000_000)
            let seed = testSeeds(1)[0]
            var rng = SplitMix64(seed: seed)
            var killedPids: Set<Int32> = []
            var killedMidRun = 0
            // 12 runs killed at random moments under `make test-long`, 5 under `make test`.
            let attempts = sized(full: 12, quick: 5)
            for attempt in 0..<attempts {
                let process = Process()
                process.executableURL = CLIRunner.executable
                process.arguments = arguments
                process.environment = CLIRunner.environment()
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                Platform.sleep(seconds: rng.double(0...(duration * 1.1)))
                if process.isRunning {
                    Platform.killAtOnce(process.processIdentifier)
                    killedMidRun += 1
                }
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal { killedPids.insert(process.processIdentifier) }
                let now = try #require(Self.bytes(out), "seed \(seed) attempt \(attempt): the output path is missing")
                #expect(now == old || now == complete, "seed \(seed) attempt \(attempt): \(now.count) bytes, neither the old \(old.count) nor the complete \(complete.count)")
                if let text = Self.bytes(summary) {
                    #expect(String(decoding: text, as: UTF8.self).hasSuffix("\"complete\":true}\n"), "seed \(seed) attempt \(attempt)")
                    // A summary belongs to the events beside it: the old one only beside the old events.
                    #expect((text == oldSummary) == (now == old), "seed \(seed) attempt \(attempt): summary and events of different runs")
                }
                // Leftovers are named for the path and a killed process.
                for name in try Self.temporaryFiles(in: dir) {
                    #expect(name.hasPrefix(".events.ndjson.geofence-tmp-") || name.hasPrefix(".summary.json.geofence-tmp-"), "\(name)")
                    let pid = Int32(name.split(separator: "-").dropFirst(2).first ?? "") ?? -1
                    #expect(killedPids.contains(pid), "\(name) is not a killed run's")
                }
            }
            #expect(killedMidRun >= attempts - 2, "seed \(seed): only \(killedMidRun) runs were killed before they ended (\(duration) s a run)")
            // The next run to the path removes every leftover and writes the complete output.
            let last = try CLIRunner.run(arguments)
            #expect(last.status == 0, "\(last.stderr)")
            #expect(Self.bytes(out) == complete)
            let leftovers = try Self.temporaryFiles(in: dir)
            #expect(leftovers.isEmpty, "seed \(seed): \(leftovers)")
        }
    }
}

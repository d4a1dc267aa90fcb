import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

/// `geofence evaluate --fence-update`, `--state-out` and `--state-in` on the Austin traces
/// (a quick prefix under `make test`, all of them under `make test-long`).
@Suite("geofence evaluate: fence updates and carried state")
struct FenceUpdateCLITests {
    /// The Austin data, a republished catalog (a tenth of the stops removed, a tenth grown to
    /// 80 m, three new ones), and the fixes cut in two at a time in the middle.
    struct World {
        let dir: URL
        let fences: String
        let republished: String
        let removed: Set<String>
        let all: String
        let firstHalf: String
        let secondHalf: String
        /// The first and second halves' times: every fix of the first is before `cut`.
        let cut: Int64
        let lastOfFirst: Int64

        init() throws {
            dir = try CLIRunner.temporaryDirectory()
            let root = CLIRunner.repositoryRoot.appendingPathComponent("data/austin")
            fences = root.appendingPathComponent("fences.geojson").path
            let collection = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fences))) as! [String: Any]
            var features = collection["features"] as! [[String: Any]]
            var removed = Set<String>()
            var kept: [[String: Any]] = []
            for (k, var feature) in features.enumerated() {
                var properties = feature["properties"] as! [String: Any]
                let id = properties["id"] as! String
                if k % 10 == 3 { removed.insert(id); continue }
                if k % 10 == 7, properties["radius"] != nil { properties["radius"] = 80.0 }
                feature["properties"] = properties
                kept.append(feature)
            }
            for (k, feature) in features.prefix(3).enumerated() {
                var copy = feature
                var properties = copy["properties"] as! [String: Any]
                properties["id"] = "added-\(k)"
                copy["properties"] = properties
                kept.append(copy)
            }
            features = kept
            republished = dir.appendingPathComponent("republished.geojson").path
            try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features])
                .write(to: URL(fileURLWithPath: republished))
            self.removed = removed
            // The traces, cut at the median time: the header and the first 4,000 rows when quick
            // (8,600 events, 2.8 MB of output a run).
            let traces = root.appendingPathComponent("capmetro_avl_traces.csv").path
            var lines = try FilePrefix.lines(traces, count: sized(full: Int.max, quick: 4_001)).split(separator: "\n").map(String.init)
            let header = lines.removeFirst()
            let times = lines.map { line -> Int64 in
                let field = line.split(separator: ",")[1]
                guard case .success(let t) = TimestampParser.parse(String(field)) else { return 0 }
                return t
            }
            let cut = times.sorted()[times.count / 2]
            self.cut = cut
            let first = zip(lines, times).filter { $0.1 < cut }.map(\.0), second = zip(lines, times).filter { $0.1 >= cut }.map(\.0)
            lastOfFirst = times.filter { $0 < cut }.max()!
            let folder = dir
            func file(_ name: String, _ rows: [String]) throws -> String {
                let path = folder.appendingPathComponent(name).path
                try (([header] + rows).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            all = try file("all.csv", lines)
            firstHalf = try file("first.csv", first)
            secondHalf = try file("second.csv", second)
        }

        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    }

    func evaluate(_ arguments: [String], _ world: World) throws -> CLIResult {
        let r = try CLIRunner.run(["evaluate", "--quiet"] + arguments)
        #expect(r.status == 0, "\(arguments): \(r.stderr)")
        return r
    }

    /// Lines grouped by device, in order (a device's events across runs, concatenated).
    func byDevice(_ outputs: String...) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for output in outputs {
            for line in output.split(separator: "\n") {
                let device = EventLines.value(of: "deviceId", in: line) ?? ""
                out[String(device), default: []].append(String(line))
            }
        }
        return out
    }

    /// The line's `geofenceId` (one set lookup a line, not one search per removed id).
    static func geofenceID(_ line: Substring) -> String {
        EventLines.value(of: "geofenceId", in: line).map(String.init) ?? ""
    }

    static func time(_ line: Substring) -> Int64 {
        EventLines.integer(of: "timestamp", in: line)!
    }

    @Test("an update: the events before T are the plain run's, removal exits at T counted in the summary, no removed fence after T")
    func update() throws {
        let w = try World()
        defer { try? FileManager.default.removeItem(at: w.dir) }
        let plain = try evaluate(["--fences", w.fences, "--fixes", w.all], w)
        let summary = w.path("s.json")
        let updated = try evaluate(["--fences", w.fences, "--fixes", w.all, "--fence-update", "\(w.cut)=\(w.republished)", "--summary", summary], w)
        let before = { (text: String) in text.split(separator: "\n").filter { Self.time($0) < w.cut } }
        #expect(before(updated.stdout) == before(plain.stdout))
        let exits = updated.stdout.split(separator: "\n").filter { $0.hasSuffix(#","reason":"fenceRemoved"}"#) }
        #expect(!exits.isEmpty && exits.allSatisfy { Self.time($0) == w.cut && $0.hasPrefix(#"{"eventType":"exit""#) })
        let after = updated.stdout.split(separator: "\n").filter { Self.time($0) >= w.cut && !EventLines.contains($0, "fenceRemoved") }
        #expect(!after.contains { w.removed.contains(Self.geofenceID($0)) })
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        let applied = try #require((json["fenceUpdates"] as? [[String: Any]])?.first)
        #expect(applied["removalExits"] as? Int == exits.count && applied["removed"] as? Int == w.removed.count)
        #expect(applied["added"] as? Int == 3 && (applied["changed"] as? Int ?? 0) > 0)
        // Silent: the same events without the removal exits.
        let silent = try evaluate(
            ["--fences", w.fences, "--fixes", w.all, "--fence-update", "\(w.cut)=\(w.republished)", "--on-fence-removed", "silent"], w)
        #expect(silent.stdoutLines == updated.stdoutLines.filter { !EventLines.contains($0[...], "fenceRemoved") })
    }

    @Test("two updates: threads 1 = 2 = 4, merged shards = one process, sorted input = any order")
    func threadsShardsSorted() throws {
        let w = try World()
        defer { try? FileManager.default.removeItem(at: w.dir) }
        let updates = ["--fence-update", "\(w.cut - 3_600_000)=\(w.republished)", "--fence-update", "\(w.cut)=\(w.fences)"]
        let base = ["--fences", w.fences, "--fixes", w.all] + updates
        let one = try evaluate(base + ["--threads", "1"], w).stdout
        #expect(one.contains("fenceRemoved"))
        for threads in ["2", "4"] { #expect(try evaluate(base + ["--threads", threads], w).stdout == one, "threads \(threads)") }
        var shards: [String] = []
        for k in 0..<3 {
            let out = w.path("shard\(k).ndjson")
            _ = try evaluate(base + ["--shard", "\(k)/3", "--output", out], w)
            shards.append(out)
        }
        #expect(try CLIRunner.run(["merge"] + shards).stdout == one)
        let sorted = try evaluate(["--fences", w.fences, "--fixes", try sortedCopy(w.all, w), "--sorted-input"] + updates, w).stdout
        #expect(sorted == one)
    }

    /// The fixes sorted by device id (bytes), then time, stable.
    func sortedCopy(_ path: String, _ w: World) throws -> String {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let rows = lines.dropFirst().map { line -> (Substring, Int64, Substring) in
            let fields = line.split(separator: ",")
            guard case .success(let t) = TimestampParser.parse(String(fields[1])) else { return (fields[0], 0, line) }
            return (fields[0], t, line)
        }
        let sorted = rows.enumerated().sorted { a, b in
            if a.element.0 != b.element.0 { return a.element.0.utf8.lexicographicallyPrecedes(b.element.0.utf8) }
            return a.element.1 != b.element.1 ? a.element.1 < b.element.1 : a.offset < b.offset
        }
        let out = w.path("sorted-\(URL(fileURLWithPath: path).lastPathComponent)")
        try (([lines[0]] + sorted.map(\.element.2)).joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
        return out
    }

    @Test("run(first half, --state-out) then run(second half, --state-in) = one run, device by device, with and without a fence change")
    func incremental() throws {
        let w = try World()
        defer { try? FileManager.default.removeItem(at: w.dir) }
        let whole = try evaluate(["--fences", w.fences, "--fixes", w.all], w).stdout
        let state = w.path("s1.state"), summary = w.path("s1.json")
        let day1 = try evaluate(["--fences", w.fences, "--fixes", w.firstHalf, "--state-out", state, "--summary", summary, "--threads", "2"], w)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
        let watermark = try #require(json["watermark"] as? Int64 ?? (json["watermark"] as? Int).map(Int64.init))
        #expect(watermark == w.lastOfFirst)
        let day2 = try evaluate(["--fences", w.fences, "--fixes", w.secondHalf, "--state-in", state], w)
        #expect(byDevice(day1.stdout, day2.stdout) == byDevice(whole))
        // With the catalog republished between the two runs: one run with the update at W + 1.
        let changed = try evaluate(["--fences", w.republished, "--fixes", w.secondHalf, "--state-in", state], w)
        #expect(changed.stdout.contains("fenceRemoved"))
        let reference = try evaluate(["--fences", w.fences, "--fixes", w.all, "--fence-update", "\(watermark + 1)=\(w.republished)"], w).stdout
        #expect(byDevice(day1.stdout, changed.stdout) == byDevice(reference))
        // Sorted input, and shards with a state file each.
        let s1 = w.path("sorted.state")
        let sortedDay1 = try evaluate(["--fences", w.fences, "--fixes", try sortedCopy(w.firstHalf, w), "--sorted-input", "--state-out", s1], w)
        let sortedDay2 = try evaluate(["--fences", w.fences, "--fixes", try sortedCopy(w.secondHalf, w), "--sorted-input", "--state-in", s1], w)
        #expect(byDevice(sortedDay1.stdout, sortedDay2.stdout) == byDevice(whole))
        var firsts: [String] = [], seconds: [String] = []
        for k in 0..<2 {
            let shardState = w.path("shard\(k).state")
            firsts.append(try evaluate(["--fences", w.fences, "--fixes", w.firstHalf, "--shard", "\(k)/2", "--state-out", shardState], w).stdout)
            seconds.append(try evaluate(["--fences", w.fences, "--fixes", w.secondHalf, "--shard", "\(k)/2", "--state-in", shardState], w).stdout)
        }
        #expect(byDevice(firsts[0], firsts[1], seconds[0], seconds[1]) == byDevice(whole))
        let wrongShard = try CLIRunner.run(["evaluate", "--quiet", "--fences", w.fences, "--fixes", w.secondHalf, "--shard", "1/2", "--state-in", w.path("shard0.state")])
        #expect(wrongShard.status == 2 && wrongShard.stderr.contains("shard 0/2"), "\(wrongShard.stderr)")
    }

    /// A daily job: most carried devices have no fix on a given day and are copied through.
    @Test("three runs with states between them = one run: devices without a fix in the middle run are carried as they were")
    func carriedThrough() throws {
        let w = try World()
        defer { try? FileManager.default.removeItem(at: w.dir) }
        let whole = try evaluate(["--fences", w.fences, "--fixes", w.all], w).stdout
        let s1 = w.path("s1.state"), s2 = w.path("s2.state"), s3 = w.path("s3.state")
        let day1 = try evaluate(["--fences", w.fences, "--fixes", w.firstHalf, "--state-out", s1, "--threads", "2"], w)
        // A day with no fix at all writes the state it read, byte for byte.
        let empty = w.path("empty.csv")
        try "device_id,timestamp,lat,lon\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let quiet = try evaluate(["--fences", w.fences, "--fixes", empty, "--state-in", s1, "--state-out", s2], w)
        #expect(quiet.stdout.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: s2)) == Data(contentsOf: URL(fileURLWithPath: s1)))
        // A day with the second half's fixes of a third of the devices, then the rest.
        let rows = try String(contentsOfFile: w.secondHalf, encoding: .utf8).split(separator: "\n").map(String.init)
        let devices = Set(rows.dropFirst().map { String($0.split(separator: ",")[0]) }).sorted()
        let some = Set(devices.enumerated().filter { $0.offset % 3 == 0 }.map(\.element))
        func file(_ name: String, _ keep: Bool) throws -> String {
            let path = w.path(name)
            let body = [rows[0]] + rows.dropFirst().filter { some.contains(String($0.split(separator: ",")[0])) == keep }
            try (body.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let day2 = try evaluate(["--fences", w.fences, "--fixes", try file("some.csv", true), "--state-in", s2, "--state-out", s3, "--threads", "2"], w)
        let day3 = try evaluate(["--fences", w.fences, "--fixes", try file("rest.csv", false), "--state-in", s3], w)
        #expect(!some.isEmpty && some.count < devices.count)
        #expect(byDevice(day1.stdout, day2.stdout, day3.stdout) == byDevice(whole))
        // The same with sorted input: the carried devices merged into the stream.
        let s3Sorted = w.path("s3-sorted.state")
        let day2Sorted = try evaluate(
            ["--fences", w.fences, "--fixes", try sortedCopy(w.path("some.csv"), w), "--sorted-input", "--state-in", s2, "--state-out", s3Sorted], w)
        #expect(try Data(contentsOf: URL(fileURLWithPath: s3Sorted)) == Data(contentsOf: URL(fileURLWithPath: s3)))
        #expect(byDevice(day2Sorted.stdout) == byDevice(day2.stdout))
    }

    @Test("a damaged, truncated or foreign STATE exits with 2 and names the problem; nothing is written")
    func damagedState() throws {
        let w = try World()
        defer { try? FileManager.default.removeItem(at: w.dir) }
        let state = w.path("good.state")
        _ = try evaluate(["--fences", w.fences, "--fixes", w.firstHalf, "--state-out", state], w)
        let good = try Data(contentsOf: URL(fileURLWithPath: state))
        var flipped = good
        flipped[flipped.count - 10] ^= 0x40
        let cases: [(String, Data, String)] = [
            ("truncated", good.prefix(good.count - 7), "truncated"),
            ("header only", good.prefix(30), "truncated"),
            ("flipped", flipped, "checksum"),
            ("foreign", try Data(contentsOf: URL(fileURLWithPath: w.fences)), "not a state file"),
            ("empty", Data(), "not a state file"),
        ]
        for (name, bytes, message) in cases {
            let path = w.path("\(name).state")
            try bytes.write(to: URL(fileURLWithPath: path))
            let out = w.path("\(name).ndjson")
            let r = try CLIRunner.run(["evaluate", "--quiet", "--fences", w.fences, "--fixes", w.secondHalf, "--state-in", path, "--output", out])
            #expect(r.status == 2 && r.stderr.contains(path) && r.stderr.contains(message), "\(name): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(name): no output")
        }
        let other = try CLIRunner.run(["evaluate", "--quiet", "--fences", w.fences, "--fixes", w.secondHalf, "--state-in", state, "--dwell", "5"])
        #expect(other.status == 2 && other.stderr.contains("other tracker options"), "\(other.stderr)")
        let early = try CLIRunner.run(["evaluate", "--quiet", "--fences", w.fences, "--fixes", w.secondHalf, "--state-in", state, "--fence-update", "0=\(w.republished)"])
        #expect(early.status == 2 && early.stderr.contains("watermark"), "\(early.stderr)")
        let unordered = try CLIRunner.run(["evaluate", "--quiet", "--fences", w.fences, "--fixes", w.all, "--fence-update", "5=\(w.fences)", "--fence-update", "5=\(w.fences)"])
        #expect(unordered.status == 2 && unordered.stderr.contains("strictly increase"), "\(unordered.stderr)")
    }
}

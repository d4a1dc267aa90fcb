import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

@Suite("geofence compile")
struct CompileCLITests {
    @Test("GeoJSONSeq, a single feature included, is read like the FeatureCollection")
    func sequence() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = #"{"type":"Feature","properties":{"id":"home","radius":200},"geometry":{"type":"Point","coordinates":[-73.98,40.75]}}"#
        let seq = try EvaluateCLITests().write("\u{1E}" + one + "\n", "one.geojsons", in: dir)
        let r = try CLIRunner.run(["nearest", "--fences", seq, "--lat", "40.75", "--lon", "-73.98", "--count", "1"])
        #expect(r.status == 0 && r.stdout == #"{"geofenceId":"home","distance":0}"# + "\n", "\(r.stdout) \(r.stderr)")
        let checked = try CLIRunner.run(["validate", "--fences", seq])
        #expect(checked.status == 0 && checked.stdout.contains("1 feature(s), 1 valid, 0 problem(s)"), "\(checked.stdout)")
    }

    @Test("a compiled file gives every command the GeoJSON's answers; a damaged one exits 2 naming it")
    func compileThenUse() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let geojson = try EvaluateCLITests().write(EvaluateCLITests.fences, "f.geojson", in: dir)
        let compiled = dir.appendingPathComponent("f.fences").path
        let made = try CLIRunner.run(["compile", "--fences", geojson, "--output", compiled])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.contains("2 fence(s)") && made.stderr.contains("wrote \(compiled)"), "\(made.stderr)")
        let fixes = try EvaluateCLITests().write("device_id,timestamp,lat,lon,level\nb,0,40.75,-73.98,\na,0,40.765,-73.985,3\nb,90000,41,-73,\n", "x.csv", in: dir)
        for command in [["evaluate", "--fixes", fixes], ["contains", "--fixes", fixes], ["nearest", "--lat", "40.75", "--lon", "-73.98", "--count", "2"],
                        ["plan", "--lat", "40.75", "--lon", "-73.98", "--platform", "ios"]] {
            let a = try CLIRunner.run(command + ["--fences", geojson]), b = try CLIRunner.run(command + ["--fences", compiled])
            #expect(a.status == 0 && b.status == 0, "\(command): \(a.stderr) \(b.stderr)")
            #expect(a.stdout == b.stdout && !a.stdout.isEmpty, "\(command)")
        }
        // The summary says how long the fences took to load.
        let summary = dir.appendingPathComponent("s.json").path
        let timed = try CLIRunner.run(["evaluate", "--fences", compiled, "--fixes", fixes, "--summary", summary, "--quiet"])
        #expect(timed.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as? [String: Any]
        #expect(((json?["fenceLoadSeconds"] as? Double) ?? -1) >= 0, "\(String(describing: json))")
        let checked = try CLIRunner.run(["validate", "--fences", compiled])
        #expect(checked.status == 0 && checked.stdout.contains("compiled fence file, 2 fence(s)"), "\(checked.stdout)")
        // One flipped bit in the last section, then a truncated copy.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: compiled))
        bytes[bytes.count - 70] ^= 0x10
        try bytes.write(to: URL(fileURLWithPath: compiled))
        let damaged = try CLIRunner.run(["evaluate", "--fences", compiled, "--fixes", fixes])
        #expect(damaged.status == 2 && damaged.stderr.contains("\(compiled): damaged"), "\(damaged.stderr)")
        try bytes.prefix(1000).write(to: URL(fileURLWithPath: compiled))
        let short = try CLIRunner.run(["contains", "--fences", compiled, "--fixes", fixes])
        #expect(short.status == 2 && short.stderr.contains("\(compiled): truncated"), "\(short.stderr)")
    }

    @Test("commands check a compiled file in full once: compile and validate record it, a change in place is checked again")
    func verifiedRecords() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let geojson = try EvaluateCLITests().write(EvaluateCLITests.fences, "f.geojson", in: dir)
        let compiled = dir.appendingPathComponent("f.fences").path
        let records = dir.appendingPathComponent("cache/geofence").path
        let recordsFile = records + "/verified-fence-files"
        func lines() -> [String] {
            ((try? String(contentsOfFile: recordsFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        let fixes = try EvaluateCLITests().write("device_id,timestamp,lat,lon\nb,0,40.75,-73.98\n", "x.csv", in: dir)
        // GEOFENCE_CACHE_DIR set but empty: no records, not even where HOME and XDG point.
        let home = dir.appendingPathComponent("home").path
        let away = ["HOME": home, "XDG_CACHE_HOME": home + "/xdg"]
        #expect(try CLIRunner.run(["compile", "--fences", geojson, "--output", compiled], environment: away).status == 0)
        let full = try CLIRunner.run(["evaluate", "--fences", compiled, "--fixes", fixes], environment: away.merging(["GEOFENCE_TRACE": "1"]) { $1 })
        #expect(full.status == 0 && full.stderr.contains("compiled file: checksums and structure:"), "\(full.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home) && !FileManager.default.fileExists(atPath: records))
        // validate checks in full and records; so does compile, for the file it wrote and read back.
        let cache = ["GEOFENCE_CACHE_DIR": records]
        let checked = try CLIRunner.run(["validate", "--fences", compiled], environment: cache)
        #expect(checked.status == 0 && lines().count == 2, "\(checked.stderr) \(lines())")
        #expect(try CLIRunner.run(["compile", "--fences", geojson, "--output", compiled], environment: cache).status == 0)
        #expect(lines().count == 3 && lines().first == "geofence verified fence files, format 1", "\(lines())")
        let traced = cache.merging(["GEOFENCE_TRACE": "1"]) { $1 }
        let skipped = try CLIRunner.run(["evaluate", "--fences", compiled, "--fixes", fixes], environment: traced)
        #expect(skipped.status == 0 && skipped.stderr.contains("checksums skipped: unchanged since checked"), "\(skipped.stderr)")
        #expect(lines().count == 3)
        // One bit flipped in place, the modification time set back: checked in full, refused.
        try TestFiles.flipBitKeepingModificationTime(compiled, at: try #require(Platform.status(atPath: compiled)).size - 70)
        let damaged = try CLIRunner.run(["evaluate", "--fences", compiled, "--fixes", fixes], environment: cache)
        #expect(damaged.status == 2 && damaged.stderr.contains("\(compiled): damaged"), "\(damaged.stderr)")
        // A record forged for the damaged file as it is now: commands trust it (this is what a
        // record is), validate does not.
        let now = try #require(Platform.status(atPath: compiled))
        let header = try #require(FileHandle(forReadingAtPath: compiled)).readData(ofLength: 64)
        let hash = header.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 32, as: UInt64.self)) }
        let forged = "\(now.device) \(now.inode) \(now.size) \(now.modified) \(now.changed) \(String(hash, radix: 16))"
        try (lines().joined(separator: "\n") + "\n" + forged + "\n").write(toFile: recordsFile, atomically: true, encoding: .utf8)
        let trusted = try CLIRunner.run(["evaluate", "--fences", compiled, "--fixes", fixes], environment: traced)
        #expect(trusted.status == 0 && trusted.stderr.contains("checksums skipped"), "\(trusted.stderr)")
        let refused = try CLIRunner.run(["validate", "--fences", compiled], environment: cache)
        #expect(refused.status == 2 && refused.stderr.contains("\(compiled): damaged"), "\(refused.stderr)")
    }

    @Test("the records folder: $GEOFENCE_CACHE_DIR, else $XDG_CACHE_HOME/geofence when absolute, else ~/.cache/geofence")
    func recordsFolder() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let geojson = try EvaluateCLITests().write(EvaluateCLITests.fences, "f.geojson", in: dir)
        let compiled = dir.appendingPathComponent("f.fences").path
        let home = dir.appendingPathComponent("home").path, xdg = dir.appendingPathComponent("xdg").path
        let compile = ["compile", "--fences", geojson, "--output", compiled]
        func recorded(in folder: String) -> Bool { FenceFileRecords(folder: folder).contains(file: compiled) }
        #expect(try CLIRunner.run(compile, environment: ["HOME": home, "XDG_CACHE_HOME": xdg], removing: ["GEOFENCE_CACHE_DIR"]).status == 0)
        #expect(recorded(in: xdg + "/geofence") && !FileManager.default.fileExists(atPath: home))
        // Run in `dir`, so a relative XDG_CACHE_HOME, if it were taken, would show there.
        #expect(try CLIRunner.run(compile, directory: dir, environment: ["HOME": home, "XDG_CACHE_HOME": "relative/xdg"], removing: ["GEOFENCE_CACHE_DIR"]).status == 0)
        #expect(recorded(in: home + "/.cache/geofence"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("relative").path))
    }
}

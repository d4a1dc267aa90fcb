import Foundation
import Testing

@Suite("geofence nearest and plan")
struct NearestPlanCLITests {
    /// Four fences on the equator near 10°E: circles "b" and "a" at the same spot (a tie),
    /// circle "c" farther east, a square "sq" holding the origin point, and "lvl" on level 1.
    static func fenceFile() throws -> URL {
        let dir = try CLIRunner.temporaryDirectory()
        let url = dir.appendingPathComponent("f.geojson")
        try """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","properties":{"id":"b","radius":100},"geometry":{"type":"Point","coordinates":[10.01,0]}},
             {"type":"Feature","properties":{"id":"a","radius":100},"geometry":{"type":"Point","coordinates":[10.01,0]}},
             {"type":"Feature","properties":{"id":"c","radius":50},"geometry":{"type":"Point","coordinates":[10.05,0]}},
             {"type":"Feature","properties":{"id":"lvl","radius":50,"level":1},"geometry":{"type":"Point","coordinates":[10,0]}},
             {"type":"Feature","properties":{"id":"sq"},"geometry":{"type":"Polygon","coordinates":[[[9.999,-0.001],[10.001,-0.001],[10.001,0.001],[9.999,0.001],[9.999,-0.001]]]}}
            ]}
            """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Removes the fence file's temporary folder.
    static func remove(_ fenceFile: URL) {
        try? FileManager.default.removeItem(at: fenceFile.deletingLastPathComponent())
    }

    static func json(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("nearest lists fences nearest first, ties by id, with distances in metres")
    func nearest() throws {
        let f = try Self.fenceFile()
        defer { Self.remove(f) }
        let r = try CLIRunner.run(["nearest", "--fences", f.path, "--lat", "0", "--lon", "10", "--count", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.stdoutLines.map(Self.json)
        #expect(rows.map { $0["geofenceId"] as? String } == ["sq", "a", "b"])
        #expect(rows[0]["distance"] as? Double == 0)
        // 0.01° of longitude on the equator is 1,111.95 m; minus the 100 m radius.
        let d = try #require(rows[1]["distance"] as? Double)
        #expect(abs(d - 1011.95) < 0.01, "\(d)")
        #expect(rows[1]["distance"] as? Double == rows[2]["distance"] as? Double)
        let level = try CLIRunner.run(["nearest", "--fences", f.path, "--lat", "0", "--lon", "10", "--count", "2", "--level", "1"])
        #expect(try level.stdoutLines.map(Self.json).map { $0["geofenceId"] as? String } == ["lvl", "sq"])
        let polygons = try CLIRunner.run(["nearest", "--fences", f.path, "--lat", "0", "--lon", "10.05", "--count", "5", "--kind", "polygon"])
        #expect(try polygons.stdoutLines.map(Self.json).map { $0["geofenceId"] as? String } == ["sq"])
    }

    @Test("nearest rejects a bad count or position with status 2")
    func nearestErrors() throws {
        let f = try Self.fenceFile()
        defer { Self.remove(f) }
        for (args, text) in [(["--count", "0"], "--count must be at least 1"), (["--count", "-3"], "--count"), (["--count", "x"], "count")] {
            let r = try CLIRunner.run(["nearest", "--fences", f.path, "--lat", "0", "--lon", "10"] + args)
            #expect(r.status == 2 && r.stderr.contains(text), "\(args): \(r.stderr)")
        }
        let r = try CLIRunner.run(["nearest", "--fences", f.path, "--lat", "95", "--lon", "10", "--count", "1"])
        #expect(r.status == 2 && r.stderr.contains("latitude 95"), "\(r.stderr)")
    }

    @Test("plan: monitors the holding fence first, then the nearest, with a refresh region and a diff")
    func plan() throws {
        let f = try Self.fenceFile()
        defer { Self.remove(f) }
        let r = try CLIRunner.run([
            "plan", "--fences", f.path, "--lat", "0", "--lon", "10", "--platform", "4", "--reserved", "1",
            "--registered", "c,sq",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines.count == 1)
        let plan = try Self.json(r.stdout)
        let monitor = try #require(plan["monitor"] as? [[String: Any]])
        #expect(monitor.map { $0["geofenceId"] as? String } == ["sq", "a"])
        let square = monitor[0]
        #expect((square["radius"] as? Double).map { $0 > 157 && $0 < 158 } == true, "enclosing circle of the square: \(square)")
        #expect(square["lat"] as? Double != nil && square["lon"] as? Double != nil)
        let region = try #require(plan["refreshRegion"] as? [String: Any])
        #expect(region["lat"] as? Double == 0 && region["lon"] as? Double == 10)
        // Nearest left out: "b" at 1,011.95 m; the region stops 1 m short.
        let radius = try #require(region["radius"] as? Double)
        #expect(abs(radius - 1010.95) < 0.01, "\(radius)")
        #expect(plan["add"] as? [String] == ["a"])
        #expect(plan["remove"] as? [String] == ["c"])
    }

    @Test("plan: every fence fits, so the refresh region is null")
    func planAllFit() throws {
        let f = try Self.fenceFile()
        defer { Self.remove(f) }
        let r = try CLIRunner.run(["plan", "--fences", f.path, "--lat", "0", "--lon", "10", "--platform", "ios"])
        #expect(r.status == 0, "\(r.stderr)")
        let plan = try Self.json(r.stdout)
        #expect((plan["monitor"] as? [Any])?.count == 4)
        #expect(plan["refreshRegion"] is NSNull)
        #expect(plan["add"] as? [String] == ["a", "b", "c", "sq"] && plan["remove"] as? [String] == [])
    }

    @Test("plan rejects a budget below reserved + 1, a bad platform, accuracy or hysteresis, with status 2")
    func planErrors() throws {
        let f = try Self.fenceFile()
        defer { Self.remove(f) }
        let base = ["plan", "--fences", f.path, "--lat", "0", "--lon", "10"]
        let cases: [([String], String)] = [
            (["--platform", "ios", "--reserved", "20"], "budget 20 is smaller than --reserved 20 + 1"),
            (["--platform", "0"], "budget 0"),
            (["--platform", "windows"], "--platform must be ios, android or a number"),
            (["--platform", "android", "--registered", "a,,b"], "empty id"),
            (["--platform", "android", "--accuracy", "-5"], "--accuracy"),
            (["--platform", "ios", "--reserved", "9223372036854775807"], "is smaller than --reserved"),
            (["--platform", "ios", "--reserved", "-1"], "--reserved must be >= 0"),
            (["--platform", "ios", "--accuracy", "nan"], "--accuracy"),
            (["--platform", "ios", "--hysteresis-fraction", "1"], "--hysteresis-fraction must be in [0, 1), found 1.0"),
            (["--platform", "ios", "--hysteresis-fraction", "-0.5"], "--hysteresis-fraction must be in [0, 1)"),
        ]
        for (args, text) in cases {
            let r = try CLIRunner.run(base + args)
            #expect(r.status == 2, "\(args): status \(r.status)")
            #expect(r.stderr.contains(text), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
    }

    /// `geofence plan` at (0, 10) on the fence file with `arguments`; its JSON, status 0 expected.
    static func plan(_ arguments: [String]) throws -> [String: Any] {
        let f = try fenceFile()
        defer { remove(f) }
        let r = try CLIRunner.run(["plan", "--fences", f.path, "--lat", "0", "--lon", "10"] + arguments)
        #expect(r.status == 0, "\(arguments): \(r.stderr)")
        return try json(r.stdout)
    }

    @Test("plan after a fence update: registered ids the file no longer has are in remove (status 0)")
    func planAfterUpdate() throws {
        let plan = try Self.plan(["--platform", "4", "--reserved", "1", "--registered", "sq,gone,a,old-home"])
        #expect((plan["monitor"] as? [[String: Any]])?.map { $0["geofenceId"] as? String } == ["sq", "a"])
        #expect(plan["add"] as? [String] == [])
        #expect(plan["remove"] as? [String] == ["gone", "old-home"])
    }

    @Test("plan keeps a registered fence within the hysteresis margin, or not with --hysteresis-fraction 0")
    func planHysteresis() throws {
        // One fence slot besides "sq": "a" (1,011.95 m) is the nearest; "c" (5,509.8 m) is
        // registered. Margin 0.5: kept up to 2,023.9 m, so "a" replaces it; 0.9: up to 10,119 m.
        func plan(_ fraction: String) throws -> [String: Any] {
            try Self.plan(["--platform", "3", "--registered", "sq,c", "--hysteresis-fraction", fraction])
        }
        let strict = try plan("0")
        #expect(strict["add"] as? [String] == ["a"] && strict["remove"] as? [String] == ["c"])
        #expect(try plan("0.5")["remove"] as? [String] == ["c"])
        let kept = try plan("0.9")
        #expect(kept["add"] as? [String] == [] && kept["remove"] as? [String] == [])
        // The region stops short of "a", the nearest fence left out.
        let radius = try #require((kept["refreshRegion"] as? [String: Any])?["radius"] as? Double)
        #expect(abs(radius - 1010.95) < 0.01, "\(radius)")
    }

    @Test("help shows units and defaults")
    func help() throws {
        let plan = try CLIRunner.run(["plan", "--help"])
        #expect(plan.status == 0)
        for text in ["metres", "(default: 0", "ios (20), android (100)", "degrees"] { #expect(plan.stdout.contains(text), "\(text)") }
        let nearest = try CLIRunner.run(["nearest", "--help"])
        #expect(nearest.stdout.contains("metres") && nearest.stdout.contains("--count"))
    }

    @Test("plan on the Austin data keeps within the iOS budget")
    func austin() throws {
        let fences = CLIRunner.repositoryRoot.appendingPathComponent("data/austin/fences.geojson").path
        let r = try CLIRunner.run(["plan", "--fences", fences, "--lat", "30.2672", "--lon", "-97.7431", "--platform", "ios", "--reserved", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let plan = try Self.json(r.stdout)
        let monitor = try #require(plan["monitor"] as? [[String: Any]])
        #expect(monitor.count == 17)
        #expect((plan["add"] as? [String])?.count == 17)
        let radius = try #require((plan["refreshRegion"] as? [String: Any])?["radius"] as? Double)
        #expect(radius > 0)
    }
}

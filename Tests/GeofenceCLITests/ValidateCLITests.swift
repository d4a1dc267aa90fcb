import Foundation
import Testing

@Suite("geofence validate and input errors")
struct ValidateCLITests {
    static let bowTie = #"{"type":"Feature","properties":{"id":"bow"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[2,2],[2,0],[0,2],[0,0]]]}}"#
    static let good = #"{"type":"Feature","properties":{"id":"ok","radius":10,"note":1.50},"geometry":{"type":"Point","coordinates":[1,1]}}"#

    func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("valid file: exit 0 and a summary")
    func valid() throws {
        let r = try CLIRunner.run(["validate", "--fences", CLIRunner.repositoryRoot.appendingPathComponent("data/austin/fences.geojson").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("2727 feature(s), 2727 valid, 0 problem(s)"))
    }

    @Test("problems: one line each, exit 1; --repair fixes polygons and writes them")
    func problemsAndRepair() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let path = try write(#"{"type":"FeatureCollection","features":[\#(Self.good),\#(Self.bowTie),\#(Self.good)]}"#, "f.geojson", in: dir)
        let r = try CLIRunner.run(["validate", "--fences", path])
        #expect(r.status == 1)
        #expect(r.stdoutLines.count == 3, "\(r.stdout)")
        #expect(r.stdoutLines[0].hasPrefix("feature 1 (bow): invalid polygon: Self-intersection"))
        #expect(r.stdoutLines[1] == #"feature 2 (ok): duplicate id "ok" (also used by feature 0)"#)
        #expect(r.stdoutLines[2].hasSuffix("3 feature(s), 1 valid, 2 problem(s)"))

        let only = try write(#"{"type":"FeatureCollection","features":[\#(Self.good),\#(Self.bowTie)]}"#, "g.geojson", in: dir)
        let fixed = dir.appendingPathComponent("fixed.geojson").path
        let repaired = try CLIRunner.run(["validate", "--fences", only, "--repair", "--output", fixed])
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
        #expect(repaired.stdout.contains("1 repaired by MakeValid"))
        let again = try CLIRunner.run(["validate", "--fences", fixed])
        #expect(again.status == 0, "\(again.stdout)")
        // Passed-through properties keep their literal text.
        #expect(try String(contentsOfFile: fixed, encoding: .utf8).contains(#""note":1.50"#))
    }

    @Test("unreadable inputs: a message naming the file, exit 2", arguments: [
        ("missing", "No such file"),
        ("notjson", "not valid JSON"),
        ("notcollection", "expected a GeoJSON FeatureCollection"),
    ])
    func unreadableFences(kind: String, message: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        var path = dir.appendingPathComponent("missing.geojson").path
        if kind == "notjson" { path = try write("{oops", "bad.geojson", in: dir) }
        if kind == "notcollection" { path = try write(#"{"type":"Topology"}"#, "one.geojson", in: dir) }
        for command in [["validate", "--fences", path], ["contains", "--fences", path, "--fixes", path]] {
            let r = try CLIRunner.run(command)
            #expect(r.status == 2, "\(command)")
            #expect(r.stderr.contains(path) && r.stderr.contains(message), "\(r.stderr)")
        }
    }

    @Test("fix files without the required columns, or empty: exit 2 naming the file", arguments: [
        ("device_id,timestamp,lat\nd,1,2\n", "header has no lon column"),
        ("", "empty file"),
    ])
    func badFixFiles(content: String, message: String) throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = try write(#"{"type":"FeatureCollection","features":[\#(Self.good)]}"#, "f.geojson", in: dir)
        let fixes = try write(content, "x.csv", in: dir)
        let r = try CLIRunner.run(["contains", "--fences", fences, "--fixes", fixes])
        #expect(r.status == 2)
        #expect(r.stderr.contains(fixes) && r.stderr.contains(message), "\(r.stderr)")
    }

    @Test("bad arguments exit 2")
    func badArguments() throws {
        #expect(try CLIRunner.run(["contains", "--fences"]).status == 2)
        #expect(try CLIRunner.run(["validate", "--fences", "x", "--output", "y"]).status == 2)
        #expect(try CLIRunner.run(["frobnicate"]).status == 2)
        #expect(try CLIRunner.run(["--help"]).status == 0)
    }
}

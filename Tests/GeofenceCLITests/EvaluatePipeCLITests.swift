import Foundation
import Testing

/// The options that let `geofence evaluate` run on one piece of a larger input fed through a
/// pipe (as the Spark integration runs it): columns given apart, the summary on standard
/// error, line numbers of the whole file.
@Suite("geofence evaluate on pieces of a file")
struct EvaluatePipeCLITests {
    static let rows = """
        b,0,40.75,-73.98
        a,2016-11-24T06:00:00Z,40.765,-73.985
        b,60000,40.75,-73.98
        b,soon,40.75,-73.98
        a,2016-11-24T06:01:00Z,40.765,-73.985
        b,61000,41,-73

        b,62000,95,-73

        """

    func setUp() throws -> (dir: URL, fences: String) {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = dir.appendingPathComponent("f.geojson")
        try EvaluateCLITests.fences.write(to: fences, atomically: true, encoding: .utf8)
        return (dir, fences.path)
    }

    func file(_ text: String, _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func json(_ text: Substring) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
    }

    @Test("--header: the same events as with a header line; rows start at line 1; the summary as the last line of stderr")
    func headerAndSummaryOnStandardError() throws {
        let (dir, fences) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let headed = try file("device_id,timestamp,lat,lon\n" + Self.rows, "headed.csv", in: dir)
        let bare = try file(Self.rows, "bare.csv", in: dir)
        let summaryFile = dir.appendingPathComponent("s.json").path
        let expected = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", headed, "--summary", summaryFile, "--quiet"])
        #expect(expected.status == 0 && !expected.stdout.isEmpty, "\(expected.stderr)")
        let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", bare, "--header", "device_id,timestamp,lat,lon", "--summary", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == expected.stdout)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("7 rows read, 5 processed, 2 rejected (parse 1 (line 4), coordinate 1 (line 8))"), "\(r.stderr)")
        let summary = try Self.json(lines.last!)
        let fromFile = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryFile))) as! [String: Any]
        for key in ["rowsRead", "processed", "rejected", "blankLines", "devices", "events"] {
            #expect(summary[key] as? Int == fromFile[key] as? Int, "\(key)")
        }
        // The header line's lines are one more: its line 1 is the header.
        let parse = (summary["rejectedByReason"] as? [String: Any])?["parse"] as? [String: Any]
        #expect(parse?["lines"] as? [Int] == [4] && (parse?["examples"] as? [String])?.first?.hasPrefix("line 4: ") == true)
        let fileParse = (fromFile["rejectedByReason"] as? [String: Any])?["parse"] as? [String: Any]
        #expect(fileParse?["lines"] as? [Int] == [5])
        #expect(summary["blankLines"] as? Int == 1)
        // With --quiet, standard error holds only the JSON line.
        let quiet = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", bare, "--header", "device_id,timestamp,lat,lon", "--summary", "-", "--quiet"])
        let quietSummary = try Self.json(quiet.stderr.dropLast())
        #expect(quiet.status == 0 && quiet.stderr.split(separator: "\n").count == 1 && quietSummary["rowsRead"] as? Int == 7)
        // An empty headerless input is zero rows, not an error.
        let empty = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", try file("", "empty.csv", in: dir), "--header", "device_id,timestamp,lat,lon"])
        #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr.contains("0 rows read"), "\(empty.stderr)")
    }

    @Test("--line-offset moves every reported line, with a header line or without")
    func lineOffset() throws {
        let (dir, fences) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bare = try file(Self.rows, "bare.csv", in: dir)
        let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", bare, "--header", "device_id,timestamp,lat,lon", "--line-offset", "1000", "--quiet", "--summary", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        let byReason = try Self.json(r.stderr.split(separator: "\n").last!)["rejectedByReason"] as? [String: Any]
        #expect((byReason?["parse"] as? [String: Any])?["lines"] as? [Int] == [1004])
        #expect((byReason?["coordinate"] as? [String: Any])?["lines"] as? [Int] == [1008])
        let headed = try file("device_id,timestamp,lat,lon\n" + Self.rows, "headed.csv", in: dir)
        let h = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", headed, "--line-offset", "10"])
        #expect(h.status == 0 && h.stderr.contains("parse 1 (line 15), coordinate 1 (line 19)"), "\(h.stderr)")
        let badHeader = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", try file("id,t\n", "bad.csv", in: dir), "--line-offset", "10"])
        #expect(badHeader.status == 2 && badHeader.stderr.contains("line 11:"), "\(badHeader.stderr)")
    }

    @Test("bad --header and --line-offset exit 2 naming the option", arguments: [
        (["--header", "device_id,lat,lon"], "--header"),
        (["--header", ""], "--header"),
        (["--line-offset", "-1"], "--line-offset"),
    ])
    func badOptions(extra: [String], message: String) throws {
        let (dir, fences) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run(["evaluate", "--fences", fences, "--fixes", try file(Self.rows, "x.csv", in: dir)] + extra)
        #expect(r.status == 2 && r.stderr.contains(message), "\(r.stderr)")
    }
}

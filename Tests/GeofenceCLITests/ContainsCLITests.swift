import Foundation
import Testing

@Suite("geofence contains")
struct ContainsCLITests {
    /// Two files in a new folder: two fences (a circle with id `circleID`, as JSON text, and the square
    /// polygon 7 around it) and a fix CSV of `rows` after the header `lon,device_id,lat,timestamp`.
    static func files(circleID: String, rows: String) throws -> (fences: URL, fixes: URL) {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = dir.appendingPathComponent("f.geojson")
        try """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","properties":{"id":\(circleID),"radius":100},"geometry":{"type":"Point","coordinates":[10,50]}},
             {"type":"Feature","id":7,"properties":{},"geometry":{"type":"Polygon","coordinates":[[[9.99,49.99],[10.01,49.99],[10.01,50.01],[9.99,50.01],[9.99,49.99]]]}}
            ]}
            """.write(to: fences, atomically: true, encoding: .utf8)
        let fixes = dir.appendingPathComponent("x.csv")
        try ("lon,device_id,lat,timestamp\n" + rows).write(to: fixes, atomically: true, encoding: .utf8)
        return (fences, fixes)
    }

    @Test("answers every row in input order and rejects bad rows with their line")
    func answersAndRejects() throws {
        let (fences, fixes) = try Self.files(circleID: #""b""#, rows: "10,d1,50,1000\n10,d1,95,2000\n10,d1,50,never\n11,d1,50,3000\n")
        let r = try CLIRunner.run(["contains", "--fences", fences.path, "--fixes", fixes.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == [
            #"{"row":1,"geofenceIds":["7","b"]}"#,
            #"{"row":2,"error":"coordinate: line 3: latitude 95.0 is outside [-90, 90]"}"#,
            #"{"row":3,"error":"parse: line 4: timestamp is neither epoch milliseconds nor ISO-8601 (YYYY-MM-DDTHH:MM:SS[.fff]Z or ±HH:MM)"}"#,
            #"{"row":4,"geofenceIds":[]}"#,
        ])
        #expect(r.stderr.contains("4 row(s) read, 2 answered, 2 rejected (coordinate 1, parse 1)"))
    }

    @Test("--format csv writes a pair a line, rejected rows with their line, ids quoted where they must be")
    func csvPairs() throws {
        let (fences, fixes) = try Self.files(
            circleID: #""b, \"the\" circle""#, rows: "10,d1,50,1000\n10,d1,95,2000\n11,d1,50,3000\n10.005,d1,50.005,4000\n")
        let r = try CLIRunner.run(["contains", "--fences", fences.path, "--fixes", fixes.path, "--format", "csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == [
            "row,geofenceId,error",
            "1,7,",
            #"1,"b, ""the"" circle","#,
            #"2,,"coordinate: line 3: latitude 95.0 is outside [-90, 90]""#,
            "4,7,",
        ])
        #expect(r.stderr.contains("4 row(s) read, 3 answered, 1 rejected (coordinate 1)"))
        let bad = try CLIRunner.run(["contains", "--fences", fences.path, "--fixes", fixes.path, "--format", "xml"])
        #expect(bad.status == 2 && bad.stderr.contains("'ndjson'") && bad.stderr.contains("'csv'"), "\(bad.stderr)")
    }

    /// A live feed on standard input: the rows sent so far are answered on standard output
    /// while the input stays open (the output is flushed before the command waits for more;
    /// without that the lines sat in its buffer until the input closed).
    /// `geofence contains` on the evaluate tests' fences, fed on standard input while it runs.
    static func liveContains() throws -> LiveCLI {
        let fences = try CLIRunner.temporaryDirectory().appendingPathComponent("f.geojson")
        try EvaluateCLITests.fences.write(to: fences, atomically: true, encoding: .utf8)
        return try LiveCLI(["contains", "--fences", fences.path, "--fixes", "/dev/stdin"])
    }

    @Test("a live feed on standard input is answered while the input stays open")
    func liveFeed() throws {
        let live = try Self.liveContains()
        try live.send("device_id,timestamp,lat,lon\nd,1,40.7501,-73.9801\nd,2,0,0\n")
        let first = live.lines(atLeast: 2, within: 10)
        #expect(first == [#"{"row":1,"geofenceIds":["home"]}"#, #"{"row":2,"geofenceIds":[]}"#], "while the input is open: \(live.stderr)")
        try live.send("d,3,40.7502,-73.9802\n")
        #expect(live.lines(atLeast: 3, within: 10).count == 3, "the third row, while the input is open")
        #expect(try live.finish() == 0, "\(live.stderr)")
        #expect(live.lines == first + [#"{"row":3,"geofenceIds":["home"]}"#])
    }

    /// A steady trickle (a row every 20 ms, never a pause of 100 ms): rows sent in the first
    /// half second are answered on standard output before the last row is sent. (Waiting for
    /// a quiet pipe, or flushing only before a wait, held every line until the input closed.)
    @Test("a steady trickle on standard input is answered as it comes")
    func steadyTrickle() throws {
        let live = try Self.liveContains()
        try live.send("device_id,timestamp,lat,lon\n")
        var seenWhileSending = 0
        for k in 1...100 {
            try live.send("d,\(k),40.7501,-73.9801\n")
            Thread.sleep(forTimeInterval: 0.02)
            if k == 100 { seenWhileSending = live.lines.count }
        }
        #expect(seenWhileSending >= 10, "\(seenWhileSending) line(s) out while 100 rows came over 2 s: \(live.stderr)")
        #expect(try live.finish() == 0, "\(live.stderr)")
        #expect(live.lines.count == 100)
    }
}

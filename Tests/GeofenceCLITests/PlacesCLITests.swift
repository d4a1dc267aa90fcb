import Foundation
import Testing

@Suite("geofence places")
struct PlacesCLITests {
    static let fences = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","properties":{"id":"A","radius":100,"rank":1},"geometry":{"type":"Point","coordinates":[10,50]}},
         {"type":"Feature","properties":{"id":"B","radius":200,"rank":2},"geometry":{"type":"Point","coordinates":[10.001,50]}},
         {"type":"Feature","properties":{"id":"L","radius":100,"level":3},"geometry":{"type":"Point","coordinates":[10,50]}}
        ]}
        """

    /// Runs `geofence places` on the given signals text (written byte for byte).
    static func run(_ signals: String, _ extra: [String] = []) throws -> CLIResult {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fencesURL = dir.appendingPathComponent("f.geojson"), signalsURL = dir.appendingPathComponent("s.csv")
        try Data(fences.utf8).write(to: fencesURL)
        try Data(signals.utf8).write(to: signalsURL)
        return try CLIRunner.run(["places", "--fences", fencesURL.path, "--signals", signalsURL.path] + extra)
    }

    @Test("replays signals in input order: the Adobe example, nearby, TTL expiry, and bad rows")
    func replay() throws {
        let r = try Self.run(
            "\u{FEFF}timestamp,device_id,signal,geofence_id,lat,lon\r\n"
                + "0,d1,entry,A,,\r\n"
                + "1970-01-01T00:00:01Z,d1,entry,B,,\r\n"
                + "2000,d1,exit,A,,\r\n"
                + "3000,d1,nearby,,50,10\r\n"
                + "500,d1,exit,B,,\r\n"
                + "4000,d2,entry,ZZ,,\r\n"
                + "\r\n"
                + "3603001,d1,exit,B,,\n"
                + "5000,\"d,\"\"3\"\"\",nearby,,95,10\n"
                + "6000,d4,wave,A,,\n"
                + "7000,d4,entry,,,\n"
                + "8000,d4,nearby,,50,\n"
                + "9000,\"d,\"\"3\"\"\",NEARBY,,50,10.0016\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == [
            #"{"row":1,"deviceId":"d1","current":"A","lastEntered":"A","lastExited":null,"entered":["A"]}"#,
            #"{"row":2,"deviceId":"d1","current":"A","lastEntered":"B","lastExited":null,"entered":["A","B"]}"#,
            #"{"row":3,"deviceId":"d1","current":"B","lastEntered":"B","lastExited":"A","entered":["B"]}"#,
            #"{"row":4,"deviceId":"d1","current":"A","lastEntered":"B","lastExited":"A","entered":["A","B"]}"#,
            #"{"row":5,"error":"order: line 6: 1970-01-01T00:00:00.500Z (500 ms) is earlier than the device's latest input 1970-01-01T00:00:03.000Z (3000 ms)"}"#,
            #"{"row":6,"error":"unknownFence: line 7: no fence has the id \"ZZ\""}"#,
            #"{"row":7,"deviceId":"d1","current":"A","lastEntered":null,"lastExited":"B","entered":["A"]}"#,
            #"{"row":8,"error":"coordinate: line 10: latitude 95.0 is outside [-90, 90]"}"#,
            #"{"row":9,"error":"parse: line 11: signal \"wave\" is not entry, exit or nearby"}"#,
            #"{"row":10,"error":"parse: line 12: entry needs a geofence_id"}"#,
            #"{"row":11,"error":"parse: line 13: nearby needs lat and lon"}"#,
            #"{"row":12,"deviceId":"d,\"3\"","current":"B","lastEntered":null,"lastExited":null,"entered":["B"]}"#,
        ])
        #expect(r.stderr.contains("12 row(s) read, 6 answered, 6 rejected (coordinate 1, order 1, parse 3, unknownFence 1); 1 blank line(s) skipped"))
    }

    /// A live feed of signals on standard input: each row's states are written (flushed)
    /// while the input stays open, not held in the output's buffer until it closes.
    @Test("a live feed of signals is answered while the input stays open")
    func liveFeed() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = dir.appendingPathComponent("f.geojson")
        try Data(Self.fences.utf8).write(to: fences)
        let live = try LiveCLI(["places", "--fences", fences.path, "--signals", "/dev/stdin"])
        try live.send("timestamp,device_id,signal,geofence_id,lat,lon\n0,d1,entry,A,,\n")
        let first = live.lines(atLeast: 1, within: 10)
        #expect(first == [#"{"row":1,"deviceId":"d1","current":"A","lastEntered":"A","lastExited":null,"entered":["A"]}"#])
        try live.send("1000,d1,exit,A,,\n")
        #expect(live.lines(atLeast: 2, within: 10).count == 2, "the second row, while the input is open")
        #expect(try live.finish() == 0, "\(live.stderr)")
        #expect(live.lines.count == 2)
    }

    @Test("--ttl none and --ttl 2 keep the states 1.001 s later; --ttl 1 lets them expire")
    func ttl() throws {
        let signals = "device_id,signal,timestamp,lat,lon,geofence_id\nd,entry,0,,,A\nd,exit,1001,,,B\n"
        #expect(try Self.run(signals, ["--ttl", "none"]).stdoutLines.last
            == #"{"row":2,"deviceId":"d","current":"A","lastEntered":"A","lastExited":"B","entered":["A"]}"#)
        #expect(try Self.run(signals, ["--ttl", "2"]).stdoutLines.last
            == #"{"row":2,"deviceId":"d","current":"A","lastEntered":"A","lastExited":"B","entered":["A"]}"#)
        #expect(try Self.run(signals, ["--ttl", "1"]).stdoutLines.last
            == #"{"row":2,"deviceId":"d","current":"A","lastEntered":null,"lastExited":"B","entered":["A"]}"#)
        let bad = try Self.run(signals, ["--ttl", "soon"])
        #expect(bad.status == 2 && bad.stderr.contains("--ttl"))
    }

    @Test("nearby uses the optional level column for level fences")
    func levels() throws {
        let r = try Self.run("timestamp,device_id,signal,geofence_id,lat,lon,level\n0,d,nearby,,50,10,3\n1,d,nearby,,50,10,\n")
        #expect(r.stdoutLines == [
            #"{"row":1,"deviceId":"d","current":"L","lastEntered":null,"lastExited":null,"entered":["A","B","L"]}"#,
            #"{"row":2,"deviceId":"d","current":"A","lastEntered":null,"lastExited":null,"entered":["A","B"]}"#,
        ])
    }

    @Test("a missing file or a bad header ends with status 2 and names the file")
    func badInput() throws {
        let header = try Self.run("timestamp,device_id,signal,lat,lon\n0,d,entry,A,,\n")
        #expect(header.status == 2)
        #expect(header.stderr.contains("s.csv: line 1: header has no geofence_id column"))
        let empty = try Self.run("")
        #expect(empty.status == 2 && empty.stderr.contains("s.csv: empty file"))
        let missing = try CLIRunner.run(["places", "--fences", "/nonexistent/f.geojson", "--signals", "/nonexistent/s.csv"])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/f.geojson"))
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fencesURL = dir.appendingPathComponent("f.geojson")
        try Data(Self.fences.utf8).write(to: fencesURL)
        let noSignals = try CLIRunner.run(["places", "--fences", fencesURL.path, "--signals", dir.appendingPathComponent("none.csv").path])
        #expect(noSignals.status == 2 && noSignals.stderr.contains("none.csv: cannot open"))
    }
}

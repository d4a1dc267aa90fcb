import Foundation
import Testing

@Suite("geofence contains")
struct ContainsCLITests {
    @Test("answers every row in input order and rejects bad rows with their line")
    func answersAndRejects() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = dir.appendingPathComponent("f.geojson")
        try """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","properties":{"id":"b","radius":100},"geometry":{"type":"Point","coordinates":[10,50]}},
             {"type":"Feature","id":7,"properties":{},"geometry":{"type":"Polygon","coordinates":[[[9.99,49.99],[10.01,49.99],[10.01,50.01],[9.99,50.01],[9.99,49.99]]]}}
            ]}
            """.write(to: fences, atomically: true, encoding: .utf8)
        let fixes = dir.appendingPathComponent("x.csv")
        try "lon,device_id,lat,timestamp\n10,d1,50,1000\n10,d1,95,2000\n10,d1,50,never\n11,d1,50,3000\n"
            .write(to: fixes, atomically: true, encoding: .utf8)
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

    /// A live feed on standard input: the rows sent so far are answered on standard output
    /// while the input stays open (the output is flushed before the command waits for more;
    /// without that the lines sat in its buffer until the input closed).
    @Test("a live feed on standard input is answered while the input stays open")
    func liveFeed() throws {
        let dir = try CLIRunner.temporaryDirectory()
        let fences = dir.appendingPathComponent("f.geojson")
        try EvaluateCLITests.fences.write(to: fences, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["contains", "--fences", fences.path, "--fixes", "/dev/stdin"]
        process.environment = CLIRunner.environment()
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Standard output read on a thread of its own, into `seen`.
        let seen = LockedBytes()
        let reader = Thread {
            while case let data = output.fileHandleForReading.availableData, !data.isEmpty { seen.append(data) }
            seen.finish()
        }
        reader.start()
        func lines(within seconds: Double, atLeast count: Int) -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            while seen.lines.count < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return seen.lines
        }
        let send = input.fileHandleForWriting
        try send.write(contentsOf: Data("device_id,timestamp,lat,lon\nd,1,40.7501,-73.9801\nd,2,0,0\n".utf8))
        let first = lines(within: 10, atLeast: 2)
        #expect(first == [#"{"row":1,"geofenceIds":["home"]}"#, #"{"row":2,"geofenceIds":[]}"#], "while the input is open")
        try send.write(contentsOf: Data("d,3,40.7502,-73.9802\n".utf8))
        #expect(lines(within: 10, atLeast: 3).count == 3, "the third row, while the input is open")
        try send.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(seen.waitUntilFinished(seconds: 10))
        #expect(seen.lines == first + [#"{"row":3,"geofenceIds":["home"]}"#])
    }
}

/// Bytes gathered by one thread and read by another.
final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()
    private let finished = DispatchSemaphore(value: 0)

    func append(_ data: Data) { lock.withLock { bytes.append(data) } }
    func finish() { finished.signal() }
    func waitUntilFinished(seconds: Double) -> Bool { finished.wait(timeout: .now() + seconds) == .success }

    /// The whole lines so far.
    var lines: [String] {
        let text = lock.withLock { String(decoding: bytes, as: UTF8.self) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

import Foundation
import GeofenceEngine
import Testing

/// The server against the batch evaluator `geofence evaluate` runs, on real data.
@Suite("same answers as the CLI")
struct SameAsCLITests {
    /// The repository's root (this file is in Server/Tests/GeofenceServerTests).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test("Austin bus traces posted in time order, in random batch sizes, --clock data: per device, the log holds the CLI's event lines (without seq and id) due before the last fix time")
    func austin() throws {
        let folder = try TestFolder()
        let traces = try String(contentsOf: Self.root.appendingPathComponent("data/austin/capmetro_avl_traces.csv"), encoding: .utf8)
        var lines = traces.split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        // Every row of 30 buses: about 13,000 fixes.
        let devices = Set(lines.map { $0.prefix(while: { $0 != "," }) }).sorted().prefix(30)
        let chosen = Set(devices)
        let rows = lines.filter { chosen.contains($0.prefix(while: { $0 != "," })) }
        let fixesPath = folder.path("fixes.csv")
        try ([header] + rows).joined(separator: "\n").appending("\n").write(toFile: fixesPath, atomically: true, encoding: .utf8)

        // What `geofence evaluate` writes for them.
        let fencesPath = Self.root.appendingPathComponent("data/austin/fences.geojson").path
        let set = try FenceSet.load(path: fencesPath)
        let outputPath = folder.path("cli.ndjson")
        _ = try BatchEvaluator(fenceSet: set, options: BatchOptions(threads: 1)).run(fixes: fixesPath, output: outputPath)
        var cli: [String: [String]] = [:]
        for line in try String(contentsOfFile: outputPath, encoding: .utf8).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            cli[object["deviceId"] as? String ?? "", default: []].append(String(line))
        }

        // The server, the rows in time order (ties in file order), in batches of 1 to 400.
        let server = try ServerProcess(arguments: ["--fences", fencesPath, "--data", folder.path("data")], folder: folder.url)
        let ordered = rows.enumerated().sorted {
            let a = $0.element.split(separator: ",")[1], b = $1.element.split(separator: ",")[1]
            return a != b ? a < b : $0.offset < $1.offset
        }.map(\.element)
        var generator = SeededGenerator(seed: 41)
        var answered: [String] = []
        var start = 0
        while start < ordered.count {
            let end = min(ordered.count, start + Int.random(in: 1...400, using: &generator))
            let body = ([header] + ordered[start..<end]).joined(separator: "\n")
            let result = try server.request("POST", "/v1/fixes", headers: ["Content-Type": "text/csv"], body: Data(body.utf8))
            #expect(result.status == 200 && result.json["accepted"] as? Int == end - start)
            answered += Self.eventLines(result.body)
            start = end
        }
        // The log: the responses' events and those the data clock fired, in sequence order.
        let log = try Self.eventLog(server)
        #expect(Set(answered).isSubset(of: Set(log)), "every answered event is in the log")
        #expect(zip(log, log.dropFirst()).allSatisfy { Self.seq($0) < Self.seq($1) })
        var served: [String: [String]] = [:]
        for line in log { served[Self.field(line, "deviceId") as? String ?? "", default: []].append(line) }
        // The clock is the last fix time: what falls due before it has fired, what falls due
        // at or after it stays pending (the CLI fires it at the end of its input). Compared:
        // the events before it.
        let formatter = ISO8601DateFormatter()
        let clock = Int64(formatter.date(from: String(ordered.last!.split(separator: ",")[1]))!.timeIntervalSince1970 * 1000)
        var compared = 0
        for device in devices.map(String.init) {
            let expected = (cli[device] ?? []).filter { (Self.field($0, "timestamp") as? Int64 ?? .max) < clock }
            let all = (served[device] ?? []).map(Self.withoutSeqAndID)
            let got = all.filter { (Self.field($0, "timestamp") as? Int64 ?? .max) < clock }
            // At the clock's time itself: only what the fixes at that time made, which the
            // CLI makes too.
            #expect(Set(all[got.count...]).isSubset(of: Set(cli[device] ?? [])), "device \(device) at the last fix time")
            let first = (0..<Swift.min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? Swift.min(got.count, expected.count)
            #expect(got.count == expected.count && first == got.count, """
                device \(device): \(got.count) events, the CLI \(expected.count); first difference at \(first):
                server \(first < got.count ? got[first] : "(none)")
                CLI    \(first < expected.count ? expected[first] : "(none)")
                """)
            #expect((served[device] ?? []).allSatisfy { (Self.field($0, "timestamp") as? Int64 ?? .max) <= clock })
            compared += got.count
        }
        #expect(compared > 1000 && log.count - answered.count > 100, "\(compared) compared, \(log.count - answered.count) fired by the clock")
    }

    /// Every event line of the server's log, in sequence order.
    static func eventLog(_ server: ServerProcess) throws -> [String] {
        var lines: [String] = [], after: Int64 = 0
        while true {
            let page = try server.request("GET", "/v1/events?after=\(after)&limit=10000")
            let text = String(decoding: page.body, as: UTF8.self).split(separator: "\n").map(String.init)
            guard let last = text.last else { return lines }
            lines += text
            after = seq(last)
        }
    }

    static func field(_ line: String, _ name: String) -> Any? {
        ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?[name]
    }

    static func seq(_ line: String) -> Int64 { field(line, "seq") as? Int64 ?? -1 }

    /// The event lines of a response, as the server wrote them.
    static func eventLines(_ body: Data) -> [String] {
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        // Re-split the raw text rather than re-encode: the bytes are what is compared.
        guard let events = object["events"] as? [Any], !events.isEmpty else { return [] }
        let text = String(decoding: body, as: UTF8.self)
        let start = text.range(of: "\"events\":[")!.upperBound
        let inner = text[start..<text.index(text.endIndex, offsetBy: -2)]
        return inner.components(separatedBy: "},{\"eventType\"").enumerated().map { k, part in
            (k == 0 ? "" : "{\"eventType\"") + part + (k == events.count - 1 ? "" : "}")
        }
    }

    /// A server event line as the CLI writes it: without `,"seq":N,"id":"…"` at its end.
    static func withoutSeqAndID(_ line: String) -> String {
        guard let range = line.range(of: ",\"seq\":", options: .backwards) else { return line }
        return String(line[..<range.lowerBound]) + "}"
    }
}

/// SplitMix64: the batch sizes are the same in every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

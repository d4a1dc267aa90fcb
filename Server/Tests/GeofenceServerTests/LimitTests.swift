import Foundation
import Testing

/// `--max-lines` (413) and `--max-devices` (429): a refused request applies nothing.
@Suite("limits: lines and devices per request")
struct LimitTests {
    /// One NDJSON fix line near the `home` fence.
    static func line(_ device: String, _ offset: Int64, lat: Double = 40.7500) -> String {
        "{\"deviceId\":\"\(device)\",\"timestamp\":\(TestWorld.start + offset),\"lat\":\(lat),\"lng\":-73.98,\"accuracy\":10}"
    }

    static func body(_ lines: [String], trailingNewline: Bool = true) -> Data {
        Data((lines.joined(separator: "\n") + (trailingNewline ? "\n" : "")).utf8)
    }

    /// What the server holds: its device count and its whole event log.
    static func state(_ server: ServerProcess) throws -> (devices: Int, log: Data) {
        let health = try server.request("GET", "/healthz").json
        return (health["devices"] as? Int ?? -1, try server.request("GET", "/v1/events?limit=10000").body)
    }

    @Test("--max-lines: a body with more lines gets 413 naming the limit and applies nothing; the limit itself passes")
    func maxLines() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--max-lines", "5"])
        let six = (0..<6).map { Self.line("a", Int64($0) * 20_000) }

        let refused = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body(six, trailingNewline: false))
        #expect(refused.status == 413)
        let message = refused.json["error"] as? String ?? ""
        #expect(message.contains("5 lines") && message.contains("--max-lines"), "the error names the limit: \(refused.text)")
        #expect(try Self.state(server).devices == 0)
        #expect(try server.request("GET", "/v1/devices/a").status == 404)

        // Five lines, with or without a last line break: applied.
        let five = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body(Array(six.prefix(5))))
        #expect(five.status == 200)
        #expect(five.json["accepted"] as? Int == 5)

        // Blank lines count: three fixes and three blank lines are six lines.
        let blanks = Self.body([Self.line("b", 0), "", Self.line("b", 20_000), "", "", Self.line("b", 40_000)])
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: blanks).status == 413)
        #expect(try server.request("GET", "/v1/devices/b").status == 404)

        // CSV: the header is a line.
        let header = "device_id,timestamp,lat,lon,accuracy"
        let rows = (0..<5).map { "c,\(TestWorld.start + Int64($0) * 20_000),40.75,-73.98,10" }
        let csvType = ["Content-Type": "text/csv"]
        #expect(try server.request("POST", "/v1/fixes", headers: csvType, body: Self.body([header] + rows)).status == 413)
        #expect(try server.request("GET", "/v1/devices/c").status == 404)
        let csv = try server.request("POST", "/v1/fixes", headers: csvType, body: Self.body([header] + rows.prefix(4)))
        #expect(csv.status == 200)
        #expect(csv.json["accepted"] as? Int == 4)

        // A large body is refused as its lines arrive (and the server goes on serving).
        let flood = Data(repeating: UInt8(ascii: "\n"), count: 4 << 20)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: flood).status == 413)
        #expect(try Self.state(server).devices == 2)
        #expect(server.terminate().status == 0)
    }

    @Test("--max-lines defaults to 100,000; a last line without a line break counts")
    func defaultMaxLines() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let breaks = Data(repeating: UInt8(ascii: "\n"), count: 100_000)
        let atLimit = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: breaks)
        #expect(atLimit.status == 200)
        #expect(atLimit.json["accepted"] as? Int == 0)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: breaks + Data("\n".utf8)).status == 413)
        let lastLine = breaks + Data(Self.line("a", 0).utf8)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: lastLine).status == 413)
        #expect(try Self.state(server).devices == 0)
        #expect(server.terminate().status == 0)
    }

    @Test("--max-devices: a request whose new devices would pass the limit gets 429 and applies nothing, also after a restart")
    func maxDevices() throws {
        let folder = try TestFolder()
        var server = try startServer(folder, extra: ["--max-devices", "3"])
        let first = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body([Self.line("d0", 0), Self.line("d1", 0)]))
        #expect(first.status == 200)
        let before = try Self.state(server)
        #expect(before.devices == 2)
        let d0 = try server.request("GET", "/v1/devices/d0").body

        // A known device's fix, a fix that leaves `home` (an exit, were it applied), and two new devices.
        let over = Self.body([Self.line("d0", 20_000), Self.line("d0", 40_000, lat: 40.7600), Self.line("d2", 0), Self.line("d3", 0)])
        let refused = try server.request(
            "POST", "/v1/fixes", headers: ndjsonType.merging(["Idempotency-Key": "over"]) { $1 }, body: over)
        #expect(refused.status == 429)
        let message = refused.json["error"] as? String ?? ""
        #expect(message.contains("3") && message.contains("--max-devices"), "the error names the limit: \(refused.text)")
        let after = try Self.state(server)
        #expect(after.devices == 2)
        #expect(after.log == before.log, "no event of the refused request")
        #expect(try server.request("GET", "/v1/devices/d0").body == d0, "the known device was not moved")
        #expect(try server.request("GET", "/v1/devices/d2").status == 404)

        // Up to the limit, and known devices, still apply; the refused key was not recorded.
        let third = try server.request(
            "POST", "/v1/fixes", headers: ndjsonType.merging(["Idempotency-Key": "over"]) { $1 },
            body: Self.body([Self.line("d2", 0), Self.line("d0", 20_000)]))
        #expect(third.status == 200)
        #expect(third.headers["idempotent-replayed"] == nil)
        #expect(third.json["accepted"] as? Int == 2)
        #expect(try Self.state(server).devices == 3)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body([Self.line("d1", 20_000)])).status == 200)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body([Self.line("d9", 0)])).status == 429)
        // A replay of an applied request is answered even when the server is full.
        let replay = try server.request(
            "POST", "/v1/fixes", headers: ndjsonType.merging(["Idempotency-Key": "over"]) { $1 }, body: over)
        #expect(replay.status == 200)
        #expect(replay.body == third.body)
        #expect(server.terminate().status == 0)

        // The restored devices count.
        server = try startServer(folder, extra: ["--max-devices", "3"])
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body([Self.line("d9", 0)])).status == 429)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body([Self.line("d2", 20_000)])).status == 200)
        #expect(server.terminate().status == 0)
        server = try startServer(folder, extra: ["--max-devices", "4"])
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Self.body([Self.line("d9", 0)])).status == 200)
        #expect(try Self.state(server).devices == 4)
        #expect(server.terminate().status == 0)
    }

    @Test("--max-lines and --max-devices below 1 are refused with status 2")
    func badLimits() throws {
        let folder = try TestFolder()
        for extra in [["--max-lines", "0"], ["--max-devices", "0"]] {
            do {
                _ = try startServer(folder, extra: extra)
                Issue.record("the server started with \(extra)")
            } catch let exit as ServerProcess.ServerExit {
                #expect(exit.status == 2)
                #expect(exit.stderr.contains(extra[0]))
            }
        }
    }
}

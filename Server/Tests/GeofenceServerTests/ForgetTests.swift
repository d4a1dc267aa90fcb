import Foundation
import GeofenceEngine
import Testing

/// `--forget-after`: idle devices are forgotten, so `--max-devices` clears.
@Suite("--forget-after")
struct ForgetTests {
    static func post(_ server: ServerProcess, _ items: [TestWorld.Item]) throws -> HTTPResult {
        try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(items))
    }

    static func status(_ server: ServerProcess, _ device: String) throws -> Int {
        try server.request("GET", "/v1/devices/\(device)").status
    }

    @Test("--clock data: an idle device goes once the clock passes its latest fix by the duration; one inside a fence stays; kill -9 keeps both; the forgotten one starts anew")
    func forgetsIdleDevices() throws {
        let folder = try TestFolder()
        let options = ["--forget-after", "60s", "--max-devices", "3", "--ignore-period", "0", "--dwell", "0"]
        var server = try startServer(folder, extra: options)
        let t = Int64(1_700_000_000_000)
        #expect(try Self.post(server, [
            ClockTests.item("idle", t, ClockTests.away), ClockTests.item("inside", t, ClockTests.home),
        ]).status == 200)
        // 60 s later exactly: not yet (strictly before the clock, as due events).
        #expect(try Self.post(server, [ClockTests.item("clock", t + 60_000, ClockTests.away)]).status == 200)
        #expect(try Self.status(server, "idle") == 200)
        // The device limit (3) is reached: a fourth device is refused until one is forgotten.
        #expect(try Self.post(server, [ClockTests.item("fourth", t + 60_001, ClockTests.away)]).status == 429)
        #expect(try Self.post(server, [ClockTests.item("clock", t + 60_001, ClockTests.away)]).status == 200)
        #expect(try Self.status(server, "idle") == 404)
        #expect(try Self.status(server, "inside") == 200, "a device inside a fence is never forgotten")
        #expect(try LimitTests.state(server).devices == 2)
        let metrics = try server.request("GET", "/metrics").text
        #expect(metrics.contains("geofence_devices_forgotten_total 1"))
        #expect(try Self.post(server, [ClockTests.item("fourth", t + 60_002, ClockTests.away)]).status == 200)

        server.kill9()
        // Room for one more device after the restart: the forgotten one comes back.
        server = try startServer(folder, extra: options.map { $0 == "3" ? "4" : $0 })
        #expect(try Self.status(server, "idle") == 404)
        #expect(try Self.status(server, "inside") == 200)
        #expect(try LimitTests.state(server).devices == 3)
        // A new tracker: a fix older than the forgotten one's latest is accepted, and its
        // entrance fires as a new device's would.
        let back = try Self.post(server, [ClockTests.item("idle", t - 1_000, ClockTests.home)])
        #expect(back.json["accepted"] as? Int == 1)
        #expect(try TestWorld.events(inResponse: back).map(\.type) == [.entrance])
        #expect(server.terminate().status == 0)
    }

    @Test("--clock wall: an idle device goes without any request once the wall clock passes its latest fix by the duration; a fence update after it does not bring it back")
    func wallClockForgets() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--clock", "wall", "--clock-delay", "0", "--forget-after", "1s"])
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(try Self.post(server, [ClockTests.item("idle", now, ClockTests.away)]).status == 200)
        #expect(try Self.status(server, "idle") == 200)
        var gone = false
        for _ in 0..<50 where !gone {
            usleep(100_000)
            gone = try Self.status(server, "idle") == 404
        }
        #expect(gone, "forgotten within 5 s")
        #expect(try server.request("PUT", "/v1/fences", body: Data(TestWorld.fencesWithoutHome.utf8)).status == 200)
        #expect(try Self.status(server, "idle") == 404)
        #expect(try LimitTests.state(server).devices == 0)
        #expect(server.terminate().status == 0)
    }

    @Test("--forget-after takes a duration of at least 1 s; anything else exits 2")
    func durations() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, data: "good", extra: ["--forget-after", "30d"])
        #expect(server.terminate().status == 0)
        for text in ["0", "0.5s", "soon", "-1", ""] {
            #expect(throws: ServerProcess.ServerExit.self, "\(text)") { try startServer(folder, data: "bad", extra: ["--forget-after", text]) }
        }
        // The device log's bound, beside it: a log of no bytes cannot hold a device.
        #expect(throws: ServerProcess.ServerExit.self) { try startServer(folder, data: "bad", extra: ["--device-log-bytes", "0"]) }
    }
}

import Foundation
import GeofenceEngine
import Testing

@Suite("PUT /v1/fences")
struct FenceUpdateTests {
    @Test("a device inside a removed fence gets the library's removal exit; durable, and a restart uses the new set")
    func removalExit() throws {
        let folder = try TestFolder()
        var server = try startServer(folder)
        let t = TestWorld.start
        let fixes = [
            TestWorld.Item(device: "p", fix: Fix(timestamp: Timestamp(milliseconds: t), latitude: 40.75, longitude: -73.98)),
            TestWorld.Item(device: "p", fix: Fix(timestamp: Timestamp(milliseconds: t + 10_000), latitude: 40.7501, longitude: -73.9801)),
        ]
        let posted = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(fixes))
        #expect(try TestWorld.events(inResponse: posted).map(\.type) == [.entrance])

        let at = t + 30_000
        let early = try server.request("PUT", "/v1/fences?at=\(t + 5_000)", body: Data(TestWorld.fencesWithoutHome.utf8))
        #expect(early.status == 409, "before the device's latest fix")
        let update = try server.request("PUT", "/v1/fences?at=\(at)", body: Data(TestWorld.fencesWithoutHome.utf8))
        #expect(update.status == 200)
        #expect(update.json["version"] as? Int == 2)
        #expect(update.json["removed"] as? Int == 1 && update.json["added"] as? Int == 0)
        #expect(update.json["unchanged"] as? Int == 3 && update.json["changed"] as? Int == 0)
        #expect(update.json["removalExits"] as? Int == 1)

        // The library, given the same fixes and update.
        let reference = try TestWorld.Reference(fencesPath: folder.path("fences.geojson"))
        _ = try reference.feed(fixes)
        let newPath = try TestWorld.writeFences(in: folder, TestWorld.fencesWithoutHome, name: "new.geojson")
        let fenceUpdate = try FenceUpdate(from: reference.context, to: try FenceSet.load(path: newPath), at: Timestamp(milliseconds: at))
        var tracker = reference.trackers["p"]!
        var expected = try tracker.apply(fenceUpdate)
        for k in expected.indices { expected[k].deviceID = "p" }
        // The dwell falls due at 60 s, after the update: only the removal exit.
        #expect(expected.count == 1 && expected.first?.reason == .fenceRemoved && expected.first?.geofenceID == "home")

        let log = try server.request("GET", "/v1/events?after=1").text.split(separator: "\n")
        let logged = try log.map { try JSONDecoder().decode(GeofenceEvent.self, from: Data($0.utf8)) }
        #expect(logged == expected)
        #expect(log.last?.contains("\"reason\":\"fenceRemoved\"") == true)

        #expect(server.terminate().status == 0)
        server = try startServer(folder)
        let health = try server.request("GET", "/healthz").json
        #expect(health["fenceVersion"] as? Int == 2 && health["fences"] as? Int == 3)
        #expect(try server.request("GET", "/v1/devices/p").json["inside"] as? [String] == [])
        // Back at home: no fence there any more.
        let later = try server.request(
            "POST", "/v1/fixes", headers: ndjsonType,
            body: Data("{\"deviceId\":\"p\",\"timestamp\":\(at + 1000),\"lat\":40.75,\"lng\":-73.98}".utf8))
        #expect(later.json["accepted"] as? Int == 1 && (later.json["events"] as? [Any])?.isEmpty == true)
    }

    @Test("a body that is not a fence set is a 400, and changes nothing")
    func badBody() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        #expect(try server.request("PUT", "/v1/fences", body: Data("{\"type\":\"Nonsense\"}".utf8)).status == 400)
        #expect(try server.request("GET", "/healthz").json["fenceVersion"] as? Int == 1)
    }

    @Test("?at= beyond a fix's timestamp range (18 digits) is a 400 and changes nothing: devices could never send a fix again")
    func atOutOfRange() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let fix = "{\"deviceId\":\"p\",\"timestamp\":\(TestWorld.start),\"lat\":40.75,\"lng\":-73.98}"
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Data(fix.utf8)).status == 200)
        for at in ["9223372036854775807", "1000000000000000000", "-1000000000000000000", "-9223372036854775808"] {
            let refused = try server.request("PUT", "/v1/fences?at=\(at)", body: Data(TestWorld.fencesWithoutHome.utf8))
            #expect(refused.status == 400, "at=\(at): \(refused.text)")
        }
        let device = try server.request("GET", "/v1/devices/p").json
        #expect(device["latestTime"] as? Int == Int(TestWorld.start), "the device's clock did not move")
        #expect(try server.request("GET", "/healthz").json["fenceVersion"] as? Int == 1)
        // The largest time a fix may carry is accepted, and a fix at that time still applies.
        let last = "999999999999999999"
        #expect(try server.request("PUT", "/v1/fences?at=\(last)", body: Data(TestWorld.fencesWithoutHome.utf8)).status == 200)
        let after = try server.request(
            "POST", "/v1/fixes", headers: ndjsonType,
            body: Data("{\"deviceId\":\"p\",\"timestamp\":\(last),\"lat\":40.75,\"lng\":-73.98}".utf8))
        #expect(after.json["accepted"] as? Int == 1, "\(after.text)")
        #expect(server.terminate().status == 0)
    }
}

@Suite("PUT /v1/fences at the server's time")
struct FenceUpdateTimeTests {
    @Test("--clock wall, no ?at=: the update applies at the wall clock less --clock-delay, or at a device's later input; a fix sent before it and arriving after it is still accepted")
    func wallClockUpdate() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--clock", "wall", "--clock-delay", "5"])
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let home = (lat: 40.7500, lng: -73.9800)
        // a is at home, its fix stamped now; b's last fix is 10 s old, and another of b's is
        // "in flight", stamped 2 s ago, when the update comes.
        let a = ClockTests.item("a", now, home), b = ClockTests.item("b", now - 10_000, ClockTests.away)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([a, b])).json["accepted"] as? Int == 2)
        let update = try server.request("PUT", "/v1/fences", body: Data(TestWorld.fencesWithoutHome.utf8))
        #expect(update.status == 200, "never before a device's latest input: \(update.text)")
        let at = update.json["at"] as? Int64 ?? 0
        #expect(at <= now - 5_000 + 1_000 && at > now - 10_000, "the wall clock less 5 s: \(at)")
        // a's removal exit is at a's own latest input, later than the update's time.
        let exits = try ClockTests.log(server).filter { $0.reason == .fenceRemoved }
        #expect(exits.count == 1 && exits.first?.deviceID == "a" && exits.first?.timestamp.milliseconds == now)
        let late = ClockTests.item("b", now - 2_000, ClockTests.away)
        let posted = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([late]))
        #expect(posted.json["accepted"] as? Int == 1, "\(posted.text)")
        #expect(server.terminate().status == 0)
    }
}

@Suite("PUT /v1/fences: the checkpoint and ingest during an update")
struct FenceUpdateCheckpointTests {
    static func devices(_ server: ServerProcess, _ ids: [String]) throws -> [Data] {
        try ids.map { try server.request("GET", "/v1/devices/\($0)").body }
    }

    @Test("kill -9 after an update, and again after more fixes: the checkpoint and the rows written since give a never-killed run's answers, log and devices")
    func restartAfterUpdate() throws {
        let folder = try TestFolder()
        let items = TestWorld.walk(devices: 6, steps: 40)
        let cut = items.count / 2
        let ids = (0..<6).map { "dev-\($0)" }
        let last = items[..<cut].map(\.fix.timestamp.milliseconds).max()!
        let update = { (server: ServerProcess) throws -> HTTPResult in
            try server.request("PUT", "/v1/fences?at=\(last + 1)", body: Data(TestWorld.fencesWithoutHome.utf8))
        }
        let steady = try startServer(folder, data: "steady")
        _ = try steady.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(Array(items[..<cut])))
        let steadyUpdate = try update(steady)
        let steadyAfter = try steady.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(Array(items[cut...])))
        let steadyLog = try steady.request("GET", "/v1/events?limit=10000").body
        let steadyDevices = try Self.devices(steady, ids)

        var crashing = try startServer(folder, data: "crashing")
        _ = try crashing.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(Array(items[..<cut])))
        #expect(try update(crashing).body == steadyUpdate.body)
        crashing.kill9()
        crashing = try startServer(folder, data: "crashing")
        #expect(try crashing.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(Array(items[cut...]))).body == steadyAfter.body)
        crashing.kill9()
        crashing = try startServer(folder, data: "crashing")
        #expect(try crashing.request("GET", "/v1/events?limit=10000").body == steadyLog)
        #expect(try Self.devices(crashing, ids) == steadyDevices)
        #expect(steadyUpdate.json["version"] as? Int == 2 && steadyUpdate.json["removed"] as? Int == 1)
    }

    @Test("fixes posted while updates apply: none refused, and a restart finds every device and the log as they were")
    func ingestDuringUpdates() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--clock", "wall", "--clock-delay", "5"])
        let port = server.port
        let devices = 3_000
        // Stamped with the wall clock when sent, as devices do: never more than --clock-delay
        // late, so the server's clock and the updates never pass them.
        func body(_ round: Int) -> Data {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let items = (0..<devices).map { d in
                ClockTests.item("d\(d)", now, (d + round / 5) % 3 == 0 ? ClockTests.home : ClockTests.away)
            }
            return TestWorld.ndjson(items)
        }
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: body(0)).json["accepted"] as? Int == devices)
        // Updates back and forth on a thread of their own while fixes go in.
        let updates = OnThread { () throws -> [Int] in
            var statuses: [Int] = []
            for k in 0..<6 {
                let fences = k % 2 == 0 ? TestWorld.fencesWithoutHome : TestWorld.fencesGeoJSON
                statuses.append(try HTTPTestClient.request(port: port, "PUT", "/v1/fences", body: Data(fences.utf8)).status)
            }
            return statuses
        }
        var refused = 0, rounds = 1
        while rounds < 40 {
            let result = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: body(rounds))
            refused += (result.json["rejected"] as? [Any] ?? []).count
            rounds += 1
        }
        #expect(try updates.value() == Array(repeating: 200, count: 6))
        #expect(refused == 0)
        let ids = (0..<devices).filter { $0 % 97 == 0 }.map { "d\($0)" }
        let before = try FenceUpdateCheckpointTests.devices(server, ids)
        let log = try server.request("GET", "/v1/events?limit=10000").body
        server.kill9()
        let again = try startServer(folder, extra: ["--clock", "wall", "--clock-delay", "5"])
        #expect(try FenceUpdateCheckpointTests.devices(again, ids) == before)
        #expect(try again.request("GET", "/v1/events?limit=10000").body == log)
    }
}

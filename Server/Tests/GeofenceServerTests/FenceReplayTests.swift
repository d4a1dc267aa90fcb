import Foundation
import Testing

/// A fence update commits the new set and its events, not every device: a restart replays it
/// on the rows made before it, and a sweep writes every device again on the new set.
@Suite("PUT /v1/fences: replayed at restart until a sweep has written every device again; moves as devices change; two at once")
struct FenceReplayTests {
    /// The fixes of 12 walking devices in three parts, and the fence updates between them
    /// (the home fence goes, then comes back), each at an explicit time after the part before.
    struct Script {
        let parts: [Data]
        let updates: [(path: String, body: Data)]
        let ids = (0..<12).map { "/v1/devices/dev-\($0)" }

        init() {
            let items = TestWorld.walk(devices: 12, steps: 60)
            // Cut where devices 2 and 8 have just come home: the first update exits them.
            let thirds = [items[..<288], items[288..<576], items[576...]]
            parts = thirds.map { TestWorld.ndjson(Array($0)) }
            let ends = thirds.map { $0.map(\.fix.timestamp.milliseconds).max()! }
            updates = [
                ("/v1/fences?at=\(ends[0] + 1)", Data(TestWorld.fencesWithoutHome.utf8)),
                ("/v1/fences?at=\(ends[1] + 1)", Data(TestWorld.fencesGeoJSON.utf8)),
            ]
        }
    }

    /// `geofence_fence_sets_stored` in a `/metrics` text.
    static func setsStored(_ server: ServerProcess) throws -> Int {
        let text = try server.request("GET", "/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix("geofence_fence_sets_stored ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? -1
    }

    /// A server whose fence updates wait 1.5 s before their finish step.
    static func startPaused(_ folder: TestFolder) throws -> ServerProcess {
        _ = try TestWorld.writeFences(in: folder)
        return try ServerProcess(
            arguments: ["--fences", folder.path("fences.geojson"), "--data", folder.path("data")], folder: folder.url,
            environment: ["GEOFENCE_SERVER_UPDATE_PAUSE_MS": "1500"])
    }

    /// The number in the start's "N of them moved from an earlier set" log line.
    static func replayed(_ server: ServerProcess) throws -> Int? {
        let log = try String(contentsOfFile: server.stderrPath, encoding: .utf8)
        guard let range = log.range(of: #"(\d+) of them moved from an earlier set"#, options: .regularExpression) else { return nil }
        return Int(log[range].split(separator: " ").first ?? "")
    }

    @Test("kill -9 right after each update: the restart moves every device from its row on the earlier set, as the update did; the sweep after it drops that set")
    func killedRightAfterUpdates() throws {
        let folder = try TestFolder()
        let script = Script()
        let steady = try startServer(folder, data: "steady")
        var steadyAnswers: [Data] = []
        var removalExits = 0
        for (k, part) in script.parts.enumerated() {
            steadyAnswers.append(try steady.request("POST", "/v1/fixes", headers: ndjsonType, body: part).body)
            if k < script.updates.count {
                let update = script.updates[k]
                let answer = try steady.request("PUT", update.path, body: update.body)
                removalExits += answer.json["removalExits"] as? Int ?? 0
                steadyAnswers.append(answer.body)
            }
        }
        // Replay must count these on their devices, or later events' ids differ.
        #expect(removalExits > 0)
        let steadyDevices = try script.ids.map { try steady.request("GET", $0).body }
        let steadyLog = try steady.request("GET", "/v1/events?limit=10000").body
        #expect(steady.terminate().status == 0)

        var crashing = try startServer(folder, data: "crashing")
        var answers: [Data] = []
        for (k, part) in script.parts.enumerated() {
            answers.append(try crashing.request("POST", "/v1/fixes", headers: ndjsonType, body: part).body)
            // The sweep the last update (or restart) started ended with this request's commit.
            #expect(try Self.setsStored(crashing) == 1, "after part \(k)")
            guard k < script.updates.count else { continue }
            let update = script.updates[k]
            answers.append(try crashing.request("PUT", update.path, body: update.body).body)
            #expect(try Self.setsStored(crashing) == 2)
            crashing.kill9()
            crashing = try startServer(folder, data: "crashing")
            #expect(try Self.replayed(crashing) == 12, "every device's row was made before update \(k)")
            #expect(try Self.setsStored(crashing) == 2)
        }
        #expect(answers == steadyAnswers)
        #expect(try script.ids.map { try crashing.request("GET", $0).body } == steadyDevices)
        #expect(try crashing.request("GET", "/v1/events?limit=10000").body == steadyLog)
        crashing.kill9()
        crashing = try startServer(folder, data: "crashing")
        #expect(try Self.replayed(crashing) == 0, "the sweeps wrote every device on the set in force")
        #expect(try Self.setsStored(crashing) == 1, "and the commit that ended each dropped the sets before")
        #expect(try script.ids.map { try crashing.request("GET", $0).body } == steadyDevices)
        #expect(crashing.terminate().status == 0)
    }

    @Test("updates back to back without fixes between: at most 4 sets are kept (the fifth update writes every device), and kill -9 then gives a never-killed run's devices")
    func updatesBackToBack() throws {
        let folder = try TestFolder()
        let script = Script()
        let end = 1_700_000_000_000 + 60 * 20_000
        let bodies = [TestWorld.fencesWithoutHome, TestWorld.fencesGeoJSON]
        func run(_ server: inout ServerProcess, killing: Bool, data: String) throws -> [Int] {
            _ = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: script.parts[0])
            var stored: [Int] = []
            for k in 0..<7 {
                #expect(try server.request("PUT", "/v1/fences?at=\(end + k * 1_000)", body: Data(bodies[k % 2].utf8)).status == 200)
                stored.append(try Self.setsStored(server))
                if killing && k % 3 == 2 {
                    server.kill9()
                    server = try startServer(folder, data: data)
                }
            }
            return stored
        }
        var steady = try startServer(folder, data: "steady")
        #expect(try run(&steady, killing: false, data: "steady") == [2, 3, 4, 1, 2, 3, 4])
        let steadyDevices = try script.ids.map { try steady.request("GET", $0).body }
        let steadyLog = try steady.request("GET", "/v1/events?limit=10000").body
        #expect(steady.terminate().status == 0)

        var crashing = try startServer(folder, data: "crashing")
        _ = try run(&crashing, killing: true, data: "crashing")
        crashing.kill9()
        crashing = try startServer(folder, data: "crashing")
        #expect(try script.ids.map { try crashing.request("GET", $0).body } == steadyDevices)
        #expect(try crashing.request("GET", "/v1/events?limit=10000").body == steadyLog)
        #expect(crashing.terminate().status == 0)
    }

    @Test("devices a fix changes while an update waits for its finish step are moved as they change; kill -9 right after, and the restart's fresh moves from their rows give the same devices and log")
    func movedAsTheyChange() throws {
        let folder = try TestFolder()
        let server = try Self.startPaused(folder)
        let devices = 600
        func body(_ round: Int) -> Data {
            TestWorld.ndjson((0..<devices).map { d in
                ClockTests.item("d\(d)", TestWorld.start + Int64(round) * 60_000, (d + round) % 2 == 0 ? ClockTests.home : ClockTests.away)
            })
        }
        for round in 0..<3 { #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: body(round)).status == 200) }
        let port = server.port
        let update = OnThread { () throws -> (status: Int, removalExits: Int) in
            let answer = try HTTPTestClient.request(port: port, "PUT", "/v1/fences?at=\(TestWorld.start + 150_000)", body: Data(TestWorld.fencesWithoutHome.utf8))
            return (answer.status, answer.json["removalExits"] as? Int ?? -1)
        }
        // Inside the pause: every device changes, half of them coming home.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: body(3)).status == 200)
        let answer = try update.value()
        #expect(answer.status == 200)
        #expect(answer.removalExits == devices / 2, "the devices home after the pause's fixes")
        let log = try String(contentsOfFile: server.stderrPath, encoding: .utf8)
        #expect(log.contains("(600 moved again, 600 as they changed)"), "the fixes came while the update was prepared")
        let ids = (0..<devices).filter { $0 % 7 == 0 }.map { "/v1/devices/d\($0)" }
        let before = try ids.map { try server.request("GET", $0).body }
        let events = try server.request("GET", "/v1/events?limit=100000").body
        server.kill9()
        let again = try startServer(folder)
        #expect(try Self.replayed(again) == devices)
        #expect(try ids.map { try again.request("GET", $0).body } == before)
        #expect(try again.request("GET", "/v1/events?limit=100000").body == events)
        // The next fixes go on from the same states, with the same event ids.
        #expect(try again.request("POST", "/v1/fixes", headers: ndjsonType, body: body(4)).status == 200)
        #expect(again.terminate().status == 0)
    }

    @Test("updates with no device held: the fifth drops the earlier sets all the same, and a restart keeps only the sets in force")
    func updatesWithoutDevices() throws {
        let folder = try TestFolder()
        let script = Script()
        let bodies = [TestWorld.fencesWithoutHome, TestWorld.fencesGeoJSON]
        var server = try startServer(folder)
        var stored: [Int] = []
        for k in 0..<5 {
            #expect(try server.request("PUT", "/v1/fences?at=\(TestWorld.start + Int64(k) * 1_000)", body: Data(bodies[k % 2].utf8)).status == 200)
            stored.append(try Self.setsStored(server))
        }
        #expect(stored == [2, 3, 4, 1, 2])
        server.kill9()
        server = try startServer(folder)
        #expect(try Self.setsStored(server) == 2, "the sets the store holds: the fifth update's and the one after")
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: script.parts[2]).status == 200)
        let devices = try script.ids.map { try server.request("GET", $0).body }
        server.kill9()
        server = try startServer(folder)
        #expect(try script.ids.map { try server.request("GET", $0).body } == devices)
        #expect(server.terminate().status == 0)
    }

    @Test("a third fence update while two are being applied gets 429 and applies nothing; the two answer 200")
    func updatesAtOnce() throws {
        let folder = try TestFolder()
        let server = try Self.startPaused(folder)
        let port = server.port
        let bodies = [TestWorld.fencesWithoutHome, TestWorld.fencesGeoJSON]
        let updates = (0..<2).map { k in
            OnThread { () throws -> Int in
                try HTTPTestClient.request(port: port, "PUT", "/v1/fences", body: Data(bodies[k].utf8)).status
            }
        }
        Thread.sleep(forTimeInterval: 0.5)
        let third = try server.request("PUT", "/v1/fences", body: Data(bodies[0].utf8))
        #expect(third.status == 429)
        #expect(third.text.contains("2 fence updates are being applied"))
        #expect(try updates.map { try $0.value() } == [200, 200])
        // Two versions on top of the first: the refused one applied nothing.
        let health = try server.request("GET", "/healthz")
        #expect(health.json["fenceVersion"] as? Int == 3)
        #expect(try server.request("PUT", "/v1/fences", body: Data(bodies[0].utf8)).status == 200)
        #expect(server.terminate().status == 0)
    }
}

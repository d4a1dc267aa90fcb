import Foundation
import GeofenceEngine
import Testing

@Suite("durability and lifecycle")
struct DurabilityTests {
    @Test("kill -9 after an acknowledgement, restart: events kept with their ids and seqs, and the device goes on as in a run never restarted")
    func killAndRestart() throws {
        let folder = try TestFolder()
        let items = TestWorld.walk(devices: 4, steps: 40)
        let cut = items.count / 2 + 3
        let firstHalf = Array(items[..<cut]), secondHalf = Array(items[cut...])

        // Never restarted.
        let steady = try startServer(folder, data: "steady")
        let steadyFirst = try steady.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(firstHalf))
        let steadySecond = try steady.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(secondHalf))
        let steadyLog = try steady.request("GET", "/v1/events?limit=10000").body
        let steadyDevice = try steady.request("GET", "/v1/devices/dev-1").body
        #expect(steady.terminate().status == 0)

        // Killed right after the first acknowledgement.
        var crashing = try startServer(folder, data: "crashing")
        let first = try crashing.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(firstHalf))
        #expect(first.status == 200)
        #expect(first.body == steadyFirst.body)
        crashing.kill9()
        crashing = try startServer(folder, data: "crashing")
        let survived = try crashing.request("GET", "/v1/events?limit=10000")
        let acknowledged = (first.json["events"] as? [[String: Any]] ?? [])
        #expect(!acknowledged.isEmpty)
        let logged = survived.text.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        #expect(logged.map { $0["seq"] as? Int ?? 0 } == acknowledged.map { $0["seq"] as? Int ?? -1 })
        #expect(logged.map { $0["id"] as? String ?? "" } == acknowledged.map { $0["id"] as? String ?? "-" })

        let second = try crashing.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(secondHalf))
        #expect(second.body == steadySecond.body, "after the restart, the same events, seqs and ids, byte for byte")
        #expect(try crashing.request("GET", "/v1/events?limit=10000").body == steadyLog)
        #expect(try crashing.request("GET", "/v1/devices/dev-1").body == steadyDevice)
        #expect(!(second.json["events"] as? [Any] ?? []).isEmpty)
        #expect(crashing.terminate().status == 0)
    }

    @Test("--fsync interval: an acknowledged request survives kill -9")
    func fsyncInterval() throws {
        let folder = try TestFolder()
        var server = try startServer(folder, extra: ["--fsync", "interval", "--fsync-interval", "30"])
        let posted = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(TestWorld.walk(devices: 2, steps: 20)))
        let acknowledged = (posted.json["events"] as? [Any] ?? []).count
        #expect(acknowledged > 0)
        server.kill9()
        server = try startServer(folder, extra: ["--fsync", "interval"])
        #expect(try server.request("GET", "/v1/events?limit=10000").text.split(separator: "\n").count == acknowledged)
    }

    @Test("a restart with other tracker options is refused: the stored states were made with the first ones")
    func otherTrackerOptionsRefused() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        #expect(server.terminate().status == 0)
        do {
            _ = try startServer(folder, extra: ["--dwell", "30"])
            Issue.record("started with another dwell")
        } catch let exit as ServerProcess.ServerExit {
            #expect(exit.status == 2 && exit.stderr.contains("other tracker options"))
        }
    }

    @Test("a second server on the same --data is refused, and the first keeps serving")
    func secondServerRefused() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        #expect(throws: ServerProcess.ServerExit.self) { _ = try startServer(folder) }
        do {
            _ = try startServer(folder)
        } catch let exit as ServerProcess.ServerExit {
            #expect(exit.status == 2)
            #expect(exit.stderr.contains("another geofence-server is using it"))
        }
        #expect(try server.request("GET", "/healthz").status == 200)
    }

    @Test("SIGTERM: exits 0 within 5 s")
    func sigterm() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        _ = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(TestWorld.walk(devices: 2, steps: 5)))
        let (status, seconds) = server.terminate()
        #expect(status == 0)
        #expect(seconds < 5)
    }
}

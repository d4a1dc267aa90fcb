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

    @Test("sweeps compact the device log (--device-log-bytes 1), and a fence update starts one: kill -9 right after either, and a restart, give the devices and log of a run that compacted only after the update")
    func sweepsCompactTheLog() throws {
        let folder = try TestFolder()
        // All 40 devices once, then only the first 10: the other 30 stay only through sweeps.
        let items = TestWorld.walk(devices: 40, steps: 120).enumerated()
            .filter { $0.offset < 40 || Int($0.element.device.dropFirst(4))! < 10 }.map(\.element)
        let requests = stride(from: 0, to: items.count, by: 7).map { TestWorld.ndjson(Array(items[$0..<min(items.count, $0 + 7)])) }
        let ids = (0..<40).map { "/v1/devices/dev-\($0)" }

        // A third of the way, the home fence goes: the update commits no device (a restart
        // replays it on the rows made before it) and starts a sweep.
        let updateAfter = requests.count / 3
        let update = Data(TestWorld.fencesWithoutHome.utf8)

        // The default bound is never reached here: this run's only sweep is the update's.
        let steady = try startServer(folder, data: "steady")
        var steadyAnswers: [Data] = []
        for (k, request) in requests.enumerated() {
            steadyAnswers.append(try steady.request("POST", "/v1/fixes", headers: ndjsonType, body: request).body)
            if k == updateAfter { #expect(try steady.request("PUT", "/v1/fences", body: update).status == 200) }
        }
        let steadyDevices = try ids.map { try steady.request("GET", $0).body }
        let steadyLog = try steady.request("GET", "/v1/events?limit=10000").body
        #expect(Self.compactions(try steady.request("GET", "/metrics").text) == 1)
        #expect(steady.terminate().status == 0)

        // Past 512 bytes a device (20,480 here) a sweep starts and writes the devices again, a
        // share with each request's own, so it spans several requests. Killed right after the
        // request that ended the second one: the log before it has just been dropped.
        let options = ["--device-log-bytes", "1"]
        var folding = try startServer(folder, data: "folding", extra: options)
        var killed = false
        for k in requests.indices {
            #expect(try folding.request("POST", "/v1/fixes", headers: ndjsonType, body: requests[k]).body == steadyAnswers[k], "request \(k)")
            if k == updateAfter {
                // Killed at once: the log made on the old set is in force, and the restart
                // must replay the update on it.
                #expect(try folding.request("PUT", "/v1/fences", body: update).status == 200)
                folding.kill9()
                folding = try startServer(folder, data: "folding", extra: options)
            }
            guard !killed, Self.compactions(try folding.request("GET", "/metrics").text) == 2 else { continue }
            killed = true
            let beforeKill = try ids.map { try folding.request("GET", $0).body }
            folding.kill9()
            folding = try startServer(folder, data: "folding", extra: options)
            #expect(try ids.map { try folding.request("GET", $0).body } == beforeKill, "after request \(k)")
        }
        #expect(killed)
        #expect(try ids.map { try folding.request("GET", $0).body } == steadyDevices)
        #expect(try folding.request("GET", "/v1/events?limit=10000").body == steadyLog)
        folding.kill9()
        folding = try startServer(folder, data: "folding", extra: options)
        #expect(try ids.map { try folding.request("GET", $0).body } == steadyDevices)
        #expect(folding.terminate().status == 0)
    }

    /// `geofence_device_log_compactions_total` in a `/metrics` text.
    static func compactions(_ metrics: String) -> Int {
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("geofence_device_log_compactions_total ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? -1
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

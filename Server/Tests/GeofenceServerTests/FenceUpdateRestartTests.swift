import Foundation
import Synchronization
import Testing

/// Fence updates while fixes flow: the devices a fix changes while an update is prepared are
/// moved again in its finish step, and the checkpoint it commits holds them as they end up.
@Suite("PUT /v1/fences while fixes flow, then kill -9")
struct FenceUpdateRestartTests {
    @Test("devices changed while updates are prepared: kill -9 right after the last, and a restart finds each as it was")
    func changedWhilePrepared() throws {
        let folder = try TestFolder()
        let options = ["--clock", "wall", "--clock-delay", "5"]
        let server = try startServer(folder, extra: options)
        let port = server.port
        let devices = 3_000
        // A tenth of the devices a request, stamped with the wall clock when sent: each device
        // changes only now and then, so one changed while an update was prepared is rarely
        // changed again after it, and what the restart finds for it is what the update stored.
        func body(_ round: Int, all: Bool = false) -> Data {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let items = (0..<devices).filter { all || $0 % 10 == round % 10 }.map { d in
                ClockTests.item("d\(d)", now, (d + round / 10) % 3 == 0 ? ClockTests.home : ClockTests.away)
            }
            return TestWorld.ndjson(items)
        }
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: body(0, all: true)).json["accepted"] as? Int == devices)
        let done = Atomic<Bool>(false)
        let updates = OnThread { () throws -> [Int] in
            defer { done.store(true, ordering: .releasing) }
            var statuses: [Int] = []
            for k in 0..<4 {
                let fences = k % 2 == 0 ? TestWorld.fencesWithoutHome : TestWorld.fencesGeoJSON
                statuses.append(try HTTPTestClient.request(port: port, "PUT", "/v1/fences", body: Data(fences.utf8)).status)
            }
            return statuses
        }
        var round = 1
        while !done.load(ordering: .acquiring) {
            let result = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: body(round))
            #expect((result.json["rejected"] as? [Any] ?? []).isEmpty)
            round += 1
        }
        #expect(try updates.value() == Array(repeating: 200, count: 4))
        let ids = (0..<devices).filter { $0 % 7 == 0 }.map { "d\($0)" }
        let before = try FenceUpdateCheckpointTests.devices(server, ids)
        let log = try server.request("GET", "/v1/events?limit=10000").body
        server.kill9()
        let again = try startServer(folder, extra: options)
        #expect(try FenceUpdateCheckpointTests.devices(again, ids) == before)
        #expect(try again.request("GET", "/v1/events?limit=10000").body == log)
        #expect(again.terminate().status == 0)
    }
}

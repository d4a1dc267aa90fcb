import Foundation
import GeofenceEngine
import Testing

/// Starts a server on `folder`'s fences (written when missing) and data folder `data`.
func startServer(_ folder: TestFolder, data: String = "data", extra: [String] = []) throws -> ServerProcess {
    let fences = folder.path("fences.geojson")
    if !FileManager.default.fileExists(atPath: fences) { _ = try TestWorld.writeFences(in: folder) }
    return try ServerProcess(arguments: ["--fences", fences, "--data", folder.path(data)] + extra, folder: folder.url)
}

let ndjsonType = ["Content-Type": "application/x-ndjson"]

@Suite("POST /v1/fixes")
struct IngestTests {
    @Test("NDJSON: each line accepted or rejected on its own, with its line number and the CLI's reason")
    func ndjsonLines() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let t = TestWorld.start
        let body = """
            {"deviceId":"a","timestamp":\(t),"lat":40.7480,"lng":-73.9800,"accuracy":10}
            not json
            {"deviceId":"a","timestamp":\(t + 10_000),"lat":40.7500,"lng":-73.9800}

            {"deviceId":"b","timestamp":\(t),"lat":91,"lng":-73.98}
            {"deviceId":"b","timestamp":\(t),"lat":40.75,"lng":-73.98,"accuracy":5000}
            {"deviceId":"a","timestamp":\(t + 5_000),"lat":40.7500,"lng":-73.9800}
            {"timestamp":\(t),"lat":40.75,"lng":-73.98}
            {"deviceId":"a","timestamp":\(t + 80_000),"lat":40.7501,"lng":-73.9801}
            """
        let result = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Data(body.utf8))
        #expect(result.status == 200)
        #expect(result.json["accepted"] as? Int == 3)
        let rejected = (result.json["rejected"] as? [[String: Any]] ?? []).map { "\($0["line"] as? Int ?? 0):\($0["reason"] as? String ?? "")" }
        #expect(rejected == ["2:parse", "5:coordinate", "6:accuracy", "7:order", "8:parse"])

        let reference = try TestWorld.Reference(fencesPath: folder.path("fences.geojson"))
        let fixes = [(t, 40.7480, -73.9800, 10.0 as Double?), (t + 10_000, 40.75, -73.98, nil), (t + 80_000, 40.7501, -73.9801, nil)]
        let expected = try reference.feed(fixes.map {
            TestWorld.Item(device: "a", fix: Fix(timestamp: Timestamp(milliseconds: $0.0), latitude: $0.1, longitude: $0.2, accuracy: $0.3))
        })
        #expect(expected.map(\.type) == [.entrance, .dwell], "the reference itself: entrance, then dwell")
        #expect(try TestWorld.events(inResponse: result) == expected)
        #expect(TestWorld.seqsAndIDs(inResponse: result).map(\.seq) == [1, 2])
    }

    @Test("CSV: line numbers count the header; a CSV without a header is a 400")
    func csvLines() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let t = TestWorld.start
        let body = "device_id,timestamp,lat,lon,accuracy\nphone,\(t),40.7500,-73.9800,10\nphone,oops,40.75,-73.98,10\nphone,\(t + 1000),40.75,-190,10\nphone,\(t - 1),40.75,-73.98,10\n"
        let result = try server.request("POST", "/v1/fixes", headers: ["Content-Type": "text/csv"], body: Data(body.utf8))
        #expect(result.status == 200)
        #expect(result.json["accepted"] as? Int == 1)
        let rejected = (result.json["rejected"] as? [[String: Any]] ?? []).map { "\($0["line"] as? Int ?? 0):\($0["reason"] as? String ?? "")" }
        #expect(rejected == ["3:parse", "4:coordinate", "5:order"])
        let events = try TestWorld.events(inResponse: result)
        #expect(events.map(\.geofenceID) == ["home"] && events.map(\.type) == [.entrance])

        let headerless = try server.request("POST", "/v1/fixes", headers: ["Content-Type": "text/csv"], body: Data("a,b\n1,2\n".utf8))
        #expect(headerless.status == 400)
    }

    @Test("many devices in batches: the events are the library's DeviceTracker's, seq strictly increasing, ids unique")
    func eventsEqualTheLibrarys() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let items = TestWorld.walk(devices: 5, steps: 60)
        let reference = try TestWorld.Reference(fencesPath: folder.path("fences.geojson"))
        var seqs: [Int] = []
        var ids: [String] = []
        var served: [GeofenceEvent] = []
        var expected: [GeofenceEvent] = []
        var lines: [String] = []
        // Batches of varying sizes, alternately NDJSON and CSV.
        var start = 0, size = 7, k = 0
        while start < items.count {
            let batch = Array(items[start..<min(items.count, start + size)])
            let csv = k % 2 == 1
            let result = try server.request(
                "POST", "/v1/fixes", headers: ["Content-Type": csv ? "text/csv" : "application/x-ndjson"],
                body: csv ? TestWorld.csv(batch) : TestWorld.ndjson(batch))
            #expect(result.status == 200)
            #expect(result.json["accepted"] as? Int == batch.count)
            served += try TestWorld.events(inResponse: result)
            expected += try reference.feed(batch)
            for entry in TestWorld.seqsAndIDs(inResponse: result) {
                seqs.append(entry.seq)
                ids.append(entry.id)
            }
            for event in result.json["events"] as? [Any] ?? [] {
                lines.append(String(decoding: try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]), as: UTF8.self))
            }
            start += size
            size = size * 3 % 41 + 1
            k += 1
        }
        #expect(expected.count > 50, "the walk makes events")
        #expect(served == expected)
        #expect(seqs == Array(1...expected.count))
        #expect(Set(ids).count == ids.count)

        // The event log holds the same events, in pages.
        var logged: [String] = []
        var after = 0
        while true {
            let page = try server.request("GET", "/v1/events?after=\(after)&limit=17")
            #expect(page.status == 200 && page.headers["content-type"] == "application/x-ndjson")
            let pageLines = page.text.split(separator: "\n").map(String.init)
            if pageLines.isEmpty { break }
            for line in pageLines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
                logged.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
            }
            after = (try JSONSerialization.jsonObject(with: Data(pageLines.last!.utf8)) as? [String: Any])?["seq"] as? Int ?? 0
        }
        #expect(logged == lines)

        // The device's state is the reference tracker's.
        let device = try server.request("GET", "/v1/devices/dev-2")
        #expect(device.status == 200)
        let tracker = reference.trackers["dev-2"]!
        #expect(device.json["inside"] as? [String] == tracker.reportedInside.map { tracker.fenceSet.geofenceID(at: $0) })
        #expect((device.json["lastFix"] as? [String: Any])?["timestamp"] as? Int64 == tracker.lastFix?.timestamp.milliseconds)
        #expect(try server.request("GET", "/v1/devices/nobody").status == 404)
    }

    @Test("a fix older than its device's latest accepted fix, in a later request, is rejected with reason order")
    func orderAcrossRequests() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let t = TestWorld.start
        let first = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Data("{\"deviceId\":\"x\",\"timestamp\":\(t),\"lat\":40.75,\"lng\":-73.98}".utf8))
        #expect(first.json["accepted"] as? Int == 1)
        let second = try server.request(
            "POST", "/v1/fixes", headers: ndjsonType,
            body: Data("{\"deviceId\":\"x\",\"timestamp\":\(t - 1),\"lat\":40.76,\"lng\":-73.97}\n{\"deviceId\":\"y\",\"timestamp\":\(t - 1),\"lat\":40.76,\"lng\":-73.97}".utf8))
        #expect(second.json["accepted"] as? Int == 1)
        let rejected = second.json["rejected"] as? [[String: Any]] ?? []
        #expect(rejected.count == 1 && rejected.first?["line"] as? Int == 1 && rejected.first?["reason"] as? String == "order")
        #expect(try TestWorld.events(inResponse: second).map(\.deviceID) == ["y"], "only y's entrance into office")
    }

    @Test("Idempotency-Key: a key seen before returns the original response and applies nothing, also after a restart")
    func idempotencyKey() throws {
        let folder = try TestFolder()
        var server = try startServer(folder)
        let items = TestWorld.walk(devices: 2, steps: 10)
        let headers = ndjsonType.merging(["Idempotency-Key": "batch-1"]) { $1 }
        let first = try server.request("POST", "/v1/fixes", headers: headers, body: TestWorld.ndjson(items))
        #expect(first.status == 200 && first.headers["idempotent-replayed"] == nil)
        #expect(!(first.json["events"] as? [Any] ?? []).isEmpty)
        // The same key with another body: the first answer, nothing applied.
        let again = try server.request("POST", "/v1/fixes", headers: headers, body: TestWorld.ndjson(TestWorld.walk(devices: 3, steps: 12, seed: 9)))
        #expect(again.status == 200 && again.headers["idempotent-replayed"] == "true")
        #expect(again.body == first.body)
        let log = try server.request("GET", "/v1/events?limit=10000").text.split(separator: "\n")
        #expect(log.count == (first.json["events"] as? [Any] ?? []).count)

        #expect(server.terminate().status == 0)
        server = try startServer(folder)
        let afterRestart = try server.request("POST", "/v1/fixes", headers: headers, body: TestWorld.ndjson(items))
        #expect(afterRestart.body == first.body && afterRestart.headers["idempotent-replayed"] == "true")
        #expect(try server.request("GET", "/v1/events?limit=10000").text.split(separator: "\n").count == log.count)
    }
}

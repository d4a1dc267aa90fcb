import Foundation
import GeofenceEngine
import Testing

/// The server's clock: events due without a new fix fire once it passes their due time.
@Suite("the server's clock")
struct ClockTests {
    static let home = (lat: 40.7500, lng: -73.9800)
    static let away = (lat: 40.7300, lng: -73.9900)

    static func item(_ device: String, _ t: Int64, _ at: (lat: Double, lng: Double)) -> TestWorld.Item {
        TestWorld.Item(device: device, fix: Fix(timestamp: Timestamp(milliseconds: t), latitude: at.lat, longitude: at.lng, accuracy: 10))
    }

    /// Every event line of the server's log, decoded, in sequence order.
    static func log(_ server: ServerProcess) throws -> [GeofenceEvent] {
        try server.request("GET", "/v1/events?limit=10000").text.split(separator: "\n")
            .map { try JSONDecoder().decode(GeofenceEvent.self, from: Data($0.utf8)) }
    }

    @Test("--clock wall: a dwell fires without a new fix, as the library's advance(to:) fires it; a later fix older than it is refused (order)")
    func wallClockFiresDwell() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--clock", "wall", "--clock-delay", "0", "--dwell", "1", "--ignore-period", "1"])
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let fix = Self.item("phone", now, Self.home)
        let posted = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([fix]))
        #expect(try TestWorld.events(inResponse: posted).map(\.type) == [.entrance])

        // The library: the same fix, then time passing to the dwell's due time.
        let fences = folder.path("fences.geojson")
        let reference = try TestWorld.Reference(fencesPath: fences, configuration: TrackerConfiguration(ignorePeriod: 1, dwell: 1))
        var expected = try reference.feed([fix])
        var tracker = reference.trackers["phone"]!
        let due = try #require(tracker.nextDueTime)
        expected += try tracker.advance(to: due).map { var e = $0; e.deviceID = "phone"; return e }
        #expect(expected.map(\.type) == [.entrance, .dwell])

        // Within a few ticks of the due time, with no fix posted.
        let deadline = Date().addingTimeInterval(10)
        var logged: [GeofenceEvent] = []
        while Date() < deadline {
            logged = try Self.log(server)
            if logged.count >= 2 { break }
            usleep(50_000)
        }
        #expect(logged == expected)
        #expect(Date().timeIntervalSince1970 * 1000 - Double(due.milliseconds) < 5_000, "fired within seconds of its due time")

        // The device's time is now the dwell's: a fix from before it comes too late.
        let late = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([Self.item("phone", due.milliseconds - 1, Self.home)]))
        #expect((late.json["rejected"] as? [[String: Any]])?.first?["reason"] as? String == "order")
        #expect(server.terminate().status == 0)
    }

    @Test("--clock data: another device's later fix fires what is due before it, into the log and not the response; a fix at the due time itself comes first, as in the batch evaluator; the clock survives kill -9")
    func dataClock() throws {
        let folder = try TestFolder()
        var server = try startServer(folder)
        let t0 = TestWorld.start
        // a enters home at t0: entrance now, dwell due at t0 + 60 s (the default dwell).
        let first = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([Self.item("a", t0, Self.home)]))
        #expect(try TestWorld.events(inResponse: first).map(\.type) == [.entrance])

        // b's fix at exactly the due time does not fire it (strictly before the clock only).
        let tie = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([Self.item("b", t0 + 60_000, Self.away)]))
        #expect(try TestWorld.events(inResponse: tie).isEmpty)
        #expect(try Self.log(server).count == 1)

        // b's fix after it does; the dwell is in the log, not in b's response.
        let later = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([Self.item("b", t0 + 90_000, Self.away)]))
        #expect(try TestWorld.events(inResponse: later).isEmpty)
        let logged = try Self.log(server)
        #expect(logged.map(\.type) == [.entrance, .dwell] && logged.last?.deviceID == "a" && logged.last?.timestamp.milliseconds == t0 + 60_000)

        // kill -9, restart: the clock is where it was; b's next fix fires nothing again.
        server.kill9()
        server = try startServer(folder)
        _ = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([Self.item("b", t0 + 95_000, Self.away)]))
        #expect(try Self.log(server) == logged)
        #expect(server.terminate().status == 0)
    }

    @Test("--clock data, a fix at a pending event's due time: judged before the event fires, as the library's tracker judges it")
    func fixAtDueTime() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--ignore-period", "30"])
        let t0 = TestWorld.start
        // a leaves home at t0 + 10 s: the exit waits out its 30 s ignore window (due t0 + 40 s)…
        let items = [Self.item("a", t0, Self.home), Self.item("a", t0 + 10_000, Self.away)]
        // …and b's fix at t0 + 40 s moves the clock to that due time, not past it; a is back
        // home at t0 + 40 s, in time to cancel the exit.
        let after = [Self.item("b", t0 + 40_000, Self.away), Self.item("a", t0 + 40_000, Self.home), Self.item("b", t0 + 200_000, Self.away)]
        for item in items + after {
            let result = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson([item]))
            #expect(result.json["accepted"] as? Int == 1)
        }
        let reference = try TestWorld.Reference(fencesPath: folder.path("fences.geojson"), configuration: TrackerConfiguration(ignorePeriod: 30))
        var expected = try reference.feed(items + after)
        var tracker = reference.trackers["a"]!
        // What falls due before the clock (t0 + 200 s) has fired for a as well.
        while let due = tracker.nextDueTime, due.milliseconds < t0 + 200_000 {
            expected += try tracker.advance(to: due).map { var e = $0; e.deviceID = "a"; return e }
        }
        let logged = try Self.log(server)
        #expect(logged.filter { $0.deviceID == "a" } == expected.filter { $0.deviceID == "a" })
        // Firing at the due time before the fix would have given other events: the case tells.
        let other = try TestWorld.Reference(fencesPath: folder.path("fences.geojson"), configuration: TrackerConfiguration(ignorePeriod: 30))
        var wrong = try other.feed(items)
        var early = other.trackers["a"]!
        wrong += try early.advance(to: Timestamp(milliseconds: t0 + 40_000))
        other.trackers["a"] = early
        wrong += try other.feed([after[1]])
        #expect(wrong.map(\.type) != expected.filter { $0.deviceID == "a" }.map(\.type), "the tie matters here")
        #expect(server.terminate().status == 0)
    }
}

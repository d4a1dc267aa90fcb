import Foundation
import GeofenceEngine
import Testing

/// `--retain-events`: old events and idempotency records go; what is kept is a never-compacted
/// twin's log from some sequence number on, and a reader asking for what went is told (410).
@Suite("--retain-events")
struct RetentionTests {
    static func post(_ server: ServerProcess, _ item: TestWorld.Item, key: String) throws -> HTTPResult {
        try server.request("POST", "/v1/fixes", headers: ndjsonType.merging(["Idempotency-Key": key]) { $1 }, body: TestWorld.ndjson([item]))
    }

    /// Waits until `GET /v1/events?after=0` is a 410 naming `through` as the last deleted
    /// event; the answer's message.
    static func waitUntilDeleted(through: Int, _ server: ServerProcess) throws -> String {
        let deadline = Date().addingTimeInterval(15)
        var last = ""
        while Date() < deadline {
            let result = try server.request("GET", "/v1/events?after=0")
            last = "\(result.status) \(result.text)"
            if result.status == 410 && result.text.contains("the oldest kept follow after=\(through)\"") { return result.text }
            usleep(100_000)
        }
        Issue.record("not deleted through \(through) within 15 s; last answer: \(last)")
        return last
    }

    @Test("events and idempotency records older than the retention go, as a prefix of the log; 410 for what went; kill -9 keeps the numbering")
    func retention() throws {
        let folder = try TestFolder()
        var kept = try startServer(folder, data: "kept", extra: ["--retain-events", "10s"])
        let twin = try startServer(folder, data: "twin")
        let t0 = TestWorld.start
        let a = { (t: Int64, at: (lat: Double, lng: Double)) in ClockTests.item("a", t0 + t, at) }
        let b = { (t: Int64) in ClockTests.item("b", t0 + t, ClockTests.away) }

        // a enters home; b's fix at +90 s fires a's dwell (due +60 s) with the clock at +90 s.
        let requests = [(a(0, ClockTests.home), "r1"), (b(5_000), "r2"), (b(90_000), "r3")]
        var answers: [HTTPResult] = []
        for (item, key) in requests {
            answers.append(try Self.post(kept, item, key: key))
            #expect(try Self.post(twin, item, key: key).body == answers.last!.body)
        }
        // The clock is at +90 s: what was made before +80 s goes, the entrance (seq 1).
        let message = try Self.waitUntilDeleted(through: 1, kept)
        #expect(message.contains("events after 0 up to 1 were deleted by --retain-events"))
        let twinLog = try ClockTests.log(twin)
        #expect(twinLog.count == 2)
        #expect(try kept.request("GET", "/v1/events?after=0").status == 410, "after=0 is refused, not answered in part")
        #expect(try kept.request("GET", "/v1/events?after=1").body == twin.request("GET", "/v1/events?after=1").body)
        let stream = try kept.request("GET", "/v1/events", headers: ["Accept": "text/event-stream", "Last-Event-ID": "0"])
        #expect(stream.status == 410)

        // r1's record went with it: a retry is applied anew (its fix is now too old); r3's stays.
        let retried = try Self.post(kept, requests[0].0, key: "r1")
        #expect((retried.json["rejected"] as? [[String: Any]])?.first?["reason"] as? String == "order")
        #expect(try Self.post(kept, requests[2].0, key: "r3").body == answers[2].body)

        // Much later: a leaves home, b's fix far later fires a's exit, and then everything is
        // old. After kill -9 the numbering goes on where the twin's does.
        for (item, key) in [(a(1_000_000, ClockTests.away), "r4"), (b(5_000_000), "r5"), (b(90_000_000), "r6")] {
            #expect(try Self.post(kept, item, key: key).body == Self.post(twin, item, key: key).body)
        }
        let allTwin = try ClockTests.log(twin)
        #expect(allTwin.count > 2)
        _ = try Self.waitUntilDeleted(through: allTwin.count, kept)
        kept.kill9()
        kept = try startServer(folder, data: "kept", extra: ["--retain-events", "10s"])
        #expect(try kept.request("GET", "/v1/events?after=0").status == 410)
        let back = a(90_000_001, ClockTests.home)
        let keptAnswer = try Self.post(kept, back, key: "r7"), twinAnswer = try Self.post(twin, back, key: "r7")
        #expect(keptAnswer.body == twinAnswer.body && !(keptAnswer.json["events"] as? [Any] ?? []).isEmpty)
        #expect(try kept.request("GET", "/v1/events?after=\(allTwin.count)").body
            == twin.request("GET", "/v1/events?after=\(allTwin.count)").body)
        #expect(try kept.request("GET", "/metrics").text.contains("geofence_events_deleted_total"))
        #expect(kept.terminate().status == 0 && twin.terminate().status == 0)
    }

    @Test("--retain-events takes a duration: 7d, 24h, 90m, 3600s or seconds, at least 1 s; anything else exits 2")
    func durations() throws {
        let folder = try TestFolder()
        for (k, text) in ["7d", "24h", "90m", "3600s", "42"].enumerated() {
            let server = try startServer(folder, data: "d\(k)", extra: ["--retain-events", text])
            #expect(server.terminate().status == 0)
        }
        for text in ["a week", "7w", "-1d", "0.5", ""] {
            #expect(throws: ServerProcess.ServerExit.self, "\(text)") { try startServer(folder, data: "bad", extra: ["--retain-events", text]) }
        }
    }
}

import Foundation
import GeofenceEngine
import Testing

@Suite("event stream and metrics")
struct StreamAndMetricsTests {
    /// The `id:` lines of a Server-Sent Events text.
    /// (The text is the raw chunked body: a chunk's size line ends in CR LF, which Swift's
    /// `split` sees as one character, so line breaks are split as unicode scalars.)
    static func ids(_ text: String) -> [Int] {
        text.unicodeScalars.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { String($0) }.filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
    }

    @Test("SSE: resumes after Last-Event-ID with nothing missed or repeated, then delivers new events live")
    func serverSentEvents() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let items = TestWorld.walk(devices: 3, steps: 30)
        let first = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(Array(items[..<45])))
        let firstCount = (first.json["events"] as? [Any] ?? []).count
        #expect(firstCount >= 4)
        let resume = firstCount / 2
        let history = try HTTPTestClient.stream(
            port: server.port, "/v1/events", headers: ["Accept": "text/event-stream", "Last-Event-ID": "\(resume)"], seconds: 10
        ) { Self.ids($0).last == firstCount }
        #expect(Self.ids(history) == Array((resume + 1)...firstCount))

        // A subscriber connected before the next request gets its events as they commit.
        let port = server.port
        // On a thread of its own: it blocks in recv while this test posts.
        let live = OnThread {
            try HTTPTestClient.stream(port: port, "/v1/events?after=\(firstCount)", headers: ["Accept": "text/event-stream"], seconds: 10) {
                Self.ids($0).count >= 3
            }
        }
        usleep(300_000)
        let second = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: TestWorld.ndjson(Array(items[45...])))
        let secondSeqs = TestWorld.seqsAndIDs(inResponse: second).map(\.seq)
        #expect(secondSeqs.count >= 3)
        let text = try live.value()
        #expect(Array(Self.ids(text).prefix(3)) == Array(secondSeqs.prefix(3)))
        #expect(text.contains("data: {\"eventType\""))
    }

    @Test("GET /metrics: fixes accepted and rejected by reason, events by type, in Prometheus's format")
    func metrics() throws {
        let folder = try TestFolder()
        let server = try startServer(folder)
        let t = TestWorld.start
        let body = "{\"deviceId\":\"m\",\"timestamp\":\(t),\"lat\":40.75,\"lng\":-73.98}\nnope\n{\"deviceId\":\"m\",\"timestamp\":\(t - 5),\"lat\":40.75,\"lng\":-73.98}"
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: Data(body.utf8)).status == 200)
        let text = try server.request("GET", "/metrics").text
        #expect(text.contains("geofence_fixes_accepted_total 1"))
        #expect(text.contains("geofence_fixes_rejected_total{reason=\"parse\"} 1"))
        #expect(text.contains("geofence_fixes_rejected_total{reason=\"order\"} 1"))
        #expect(text.contains("geofence_events_total{type=\"entrance\"} 1"))
        #expect(text.contains("geofence_devices 1"))
        #expect(text.contains("geofence_commit_duration_seconds_count 1"))
    }
}

/// A blocking job on a thread of its own (not the concurrency pool's, which blocking calls
/// of several tests at once could fill), and its result.
final class OnThread<T: Sendable>: @unchecked Sendable {
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread {
            self.result = Result { try body() }
            self.done.signal()
        }
        thread.start()
    }

    func value() throws -> T {
        done.wait()
        return try result!.get()
    }
}

@Suite("event stream keep-alive")
struct KeepAliveTests {
    @Test("an idle event stream gets ': keep-alive' comments every --keep-alive seconds")
    func keepAlive() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--keep-alive", "0.2"])
        let start = Date()
        let idle = try HTTPTestClient.stream(port: server.port, "/v1/events", headers: ["Accept": "text/event-stream"], seconds: 5) {
            $0.components(separatedBy: ": keep-alive").count > 3
        }
        #expect(idle.components(separatedBy: ": keep-alive").count > 3)
        #expect(Date().timeIntervalSince(start) < 4)
        #expect(StreamAndMetricsTests.ids(idle).isEmpty)
    }
}

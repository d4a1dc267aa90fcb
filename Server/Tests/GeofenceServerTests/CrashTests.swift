import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Crashes and stops while requests are in flight.
@Suite("kill -9 and SIGTERM mid-ingest")
struct CrashTests {
    /// The walk in requests of 1 to 12 fixes, each with its Idempotency-Key.
    static func requests() -> [(key: String, body: Data)] {
        let items = TestWorld.walk(devices: 6, steps: 60, seed: 11)
        var out: [(String, Data)] = []
        var start = 0, size = 5
        while start < items.count {
            let end = min(items.count, start + size)
            out.append(("req-\(out.count)", TestWorld.ndjson(Array(items[start..<end]))))
            start = end
            size = size * 7 % 12 + 1
        }
        return out
    }

    @Test("kill -9 at random moments, restart, retry the unacknowledged with their keys: the log is a never-killed run's, byte for byte")
    func killMidIngest() throws {
        let folder = try TestFolder()
        let requests = Self.requests()
        let headers = { (key: String) in ndjsonType.merging(["Idempotency-Key": key]) { $1 } }

        let steady = try startServer(folder, data: "steady")
        var steadyAnswers: [Data] = []
        for request in requests {
            steadyAnswers.append(try steady.request("POST", "/v1/fixes", headers: headers(request.key), body: request.body).body)
        }
        let steadyLog = try steady.request("GET", "/v1/events?limit=10000").body
        #expect(steady.terminate().status == 0)

        var generator = SystemRandomNumberGenerator()
        var next = 0
        var kills = 0
        var answers: [Int: Data] = [:]
        while next < requests.count {
            // Device log compactions every few requests (the steady run only appends to the
            // log), so kills fall before, during and after them.
            let server = try startServer(folder, data: "crashing", extra: ["--device-log-bytes", "1"])
            // Killed after a random delay, while the client posts one request after another.
            let pid = server.process.processIdentifier
            let delay = kills < 4 ? UInt32.random(in: 5_000...60_000, using: &generator) : UInt32.max
            let killer = kills < 4 ? OnThread { () -> Bool in
                usleep(delay)
                return kill(pid, SIGKILL) == 0
            } : nil
            while next < requests.count {
                guard let result = try? server.request("POST", "/v1/fixes", headers: headers(requests[next].key), body: requests[next].body),
                      result.status == 200
                else { break }  // Killed: this request may or may not have applied.
                answers[next] = result.body
                next += 1
            }
            if let killer {
                _ = try killer.value()
                server.process.waitUntilExit()
                kills += 1
            } else {
                #expect(server.terminate().status == 0)
            }
        }
        #expect(kills == 4)
        let final = try startServer(folder, data: "crashing", extra: ["--device-log-bytes", "1"])
        #expect(try final.request("GET", "/v1/events?limit=10000").body == steadyLog)
        // Every answer, first or replayed after a crash, is the never-killed run's.
        for (k, answer) in answers { #expect(answer == steadyAnswers[k], "request \(k)") }
    }

    @Test("SIGTERM while requests are in flight: exit 0, and every acknowledged event is in the log after a restart")
    func sigtermUnderLoad() throws {
        let folder = try TestFolder()
        let requests = Self.requests()
        let server = try startServer(folder)
        let port = server.port
        // Four clients posting without pause until the server stops answering, each round
        // with devices of its own (so no fix is refused for its order).
        let bodies = requests.map { String(decoding: $0.body, as: UTF8.self) }
        let clients = (0..<4).map { c in
            OnThread { () -> [String] in
                var acknowledged: [String] = []
                rounds: for round in 0..<1000 {
                    for body in bodies {
                        let renamed = body.replacingOccurrences(of: "\"deviceId\":\"", with: "\"deviceId\":\"c\(c)r\(round)-")
                        guard let result = try? HTTPTestClient.request(
                            port: port, "POST", "/v1/fixes", headers: ndjsonType, body: Data(renamed.utf8)), result.status == 200
                        else { break rounds }
                        acknowledged += (result.json["events"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    }
                }
                return acknowledged
            }
        }
        usleep(500_000)
        let (status, seconds) = server.terminate()
        #expect(status == 0)
        #expect(seconds < 5)
        let acknowledged = try clients.flatMap { try $0.value() }
        #expect(acknowledged.count > 100)
        let restarted = try startServer(folder)
        var logged = Set<String>()
        var after = 0
        while true {
            let page = try restarted.request("GET", "/v1/events?limit=10000&after=\(after)").text.split(separator: "\n")
            let objects = page.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
            if objects.isEmpty { break }
            for object in objects { logged.insert(object["id"] as? String ?? "") }
            after = objects.last?["seq"] as? Int ?? 0
        }
        #expect(Set(acknowledged).isSubset(of: logged))
    }
}

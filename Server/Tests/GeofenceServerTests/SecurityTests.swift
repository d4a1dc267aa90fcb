import Foundation
import Testing

@Suite("authentication, limits, bad input")
struct SecurityTests {
    @Test("tokens: missing or wrong 401, wrong scope 403, right scope 200; admin may do everything")
    func tokens() throws {
        let folder = try TestFolder()
        try "# tokens\ningest-token-1 ingest\nread-token-22 read\nadmin-token-333 admin\n".write(toFile: folder.path("tokens"), atomically: true, encoding: .utf8)
        let server = try startServer(folder, extra: ["--token-file", folder.path("tokens")])
        let body = TestWorld.ndjson(TestWorld.walk(devices: 1, steps: 3))
        func post(_ token: String?) throws -> Int {
            var headers = ndjsonType
            if let token { headers["Authorization"] = "Bearer \(token)" }
            return try server.request("POST", "/v1/fixes", headers: headers, body: body).status
        }
        #expect(try post(nil) == 401)
        #expect(try post("ingest-token-2") == 401)
        #expect(try post("read-token-22") == 403)
        #expect(try post("ingest-token-1") == 200)
        #expect(try post("admin-token-333") == 200)
        #expect(try server.request("GET", "/v1/events", headers: ["Authorization": "Bearer ingest-token-1"]).status == 403)
        #expect(try server.request("GET", "/v1/events", headers: ["Authorization": "Bearer read-token-22"]).status == 200)
        #expect(try server.request("GET", "/v1/events").status == 401)
        #expect(try server.request("PUT", "/v1/fences", headers: ["Authorization": "Bearer read-token-22"], body: Data(TestWorld.fencesGeoJSON.utf8)).status == 403)
        #expect(try server.request("GET", "/healthz").status == 200)
    }

    @Test("without --token-file, a non-loopback address is refused with status 2")
    func loopbackOnly() throws {
        let folder = try TestFolder()
        do {
            _ = try startServer(folder, extra: ["--host", "0.0.0.0"])
            Issue.record("the server started on 0.0.0.0 without tokens")
        } catch let exit as ServerProcess.ServerExit {
            #expect(exit.status == 2)
            #expect(exit.stderr.contains("not a loopback address"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("data/server.sqlite")), "refused before opening anything")
    }

    @Test("a body over the limit gets 413; an unsupported Content-Type 400")
    func limitsAndContentType() throws {
        let folder = try TestFolder()
        let server = try startServer(folder, extra: ["--max-body-bytes", "1000"])
        let big = TestWorld.ndjson(TestWorld.walk(devices: 4, steps: 10))
        #expect(big.count > 1000)
        #expect(try server.request("POST", "/v1/fixes", headers: ndjsonType, body: big).status == 413)
        let small = TestWorld.ndjson(TestWorld.walk(devices: 1, steps: 2))
        let accepted = try server.request("POST", "/v1/fixes", headers: ndjsonType, body: small)
        #expect(accepted.status == 200)
        #expect(try server.request("POST", "/v1/fixes", headers: ["Content-Type": "application/json"], body: small).status == 400)
        #expect(try server.request("POST", "/v1/fixes", body: small).status == 400)
        #expect(try server.request("GET", "/v1/events?after=-3").status == 400)
        // Nothing of the refused bodies was applied.
        let events = (accepted.json["events"] as? [Any] ?? []).count
        #expect(try server.request("GET", "/v1/devices/dev-0").json["events"] as? Int == events)
        #expect(try server.request("GET", "/v1/events").text.split(separator: "\n").count == events)
        // The media type is read without its parameters, case or spaces, and only whole.
        let typed = ["Content-Type": "Application/X-NDJSON \t; charset=utf-8"]
        #expect(try server.request("POST", "/v1/fixes", headers: typed, body: small).status == 200)
        #expect(try server.request("POST", "/v1/fixes", headers: ["Content-Type": "application/x-ndjsonx"], body: small).status == 400)
        #expect(try server.request("POST", "/v1/fixes", headers: ["Content-Type": "; application/x-ndjson"], body: small).status == 400)
    }
}

import Foundation
import Hummingbird

/// `geofence-bare-server`: the baseline of issue 41's single-fix benchmark
/// (Benchmarks/server/bench.sh). A Hummingbird 2 application with one route,
/// `POST /v1/fixes`, that reads the whole body and answers 200 with a small JSON, so the
/// benchmark can tell what the HTTP stack itself costs on this machine from what the
/// geofence server adds (parsing, trackers, the durable group commit).
///
/// It uses the same stack and the same defaults as `geofence-server` (Hummingbird's HTTP/1.1
/// server, no middleware) and prints the same kind of line once it listens:
/// `geofence-bare-server listening on http://127.0.0.1:PORT`. No argument parser: the
/// only option is `--port N` (0, the default, picks a free port), so the target depends on
/// Hummingbird alone.
@main
struct BareServer {
    static func main() async throws {
        let port = parsePort(CommandLine.arguments)
        let router = Router()
        router.post("v1/fixes") { request, _ -> Response in
            // Read the body as the server does (collect, with the same 64 MiB limit), so the
            // baseline pays for the bytes too; the count goes into the answer so the work
            // cannot be skipped.
            let body = try await request.body.collect(upTo: 64 << 20)
            let text = "{\"accepted\":0,\"bytes\":\(body.readableBytes),\"rejected\":[],\"events\":[]}"
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("healthz") { _, _ in "{\"status\":\"ok\"}" }
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "geofence-bare-server"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                // The one line on standard output: the benchmark reads the port from it.
                FileHandle.standardOutput.write(Data("geofence-bare-server listening on http://127.0.0.1:\(bound)\n".utf8))
            })
        // Runs until SIGTERM or SIGINT (Hummingbird's service group handles both).
        try await app.runService()
    }

    /// `--port N`; anything else is a usage error (status 2, as the server's).
    static func parsePort(_ arguments: [String]) -> Int {
        var port = 0
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            if argument == "--port", let value = rest.popFirst().flatMap({ Int($0) }), (0...65535).contains(value) {
                port = value
            } else {
                FileHandle.standardError.write(Data("usage: geofence-bare-server [--port N]\n".utf8))
                exit(2)
            }
        }
        return port
    }
}

import Foundation
import GeofenceEngine
import Hummingbird

/// The HTTP API (described in `Server/openapi.yaml`): each route checks its scope, reads its
/// input and asks the ``Engine``.
struct Routes: Sendable {
    let engine: Engine
    let store: Store
    let metrics: ServerMetrics
    let feed: EventFeed
    /// nil: no authentication (the server then listens on loopback only).
    let tokens: TokenStore?
    let maximumBodyBytes: Int

    func register(on router: Router<BasicRequestContext>) {
        router.get("healthz") { _, _ in HTTPReply.json(await engine.health()) }
        router.post("v1/fixes") { request, _ in await postFixes(request) }
        router.get("v1/events") { request, _ in await getEvents(request) }
        router.get("v1/devices/:id") { request, context in await getDevice(request, id: context.parameters.get("id") ?? "") }
        router.put("v1/fences") { request, _ in await putFences(request) }
        router.get("metrics") { request, _ in getMetrics(request) }
        register(queriesOn: router)
    }

    /// nil when the request may go on; else the 401 or 403 to answer.
    func refusal(_ request: Request, needs scope: Scope) -> Response? {
        guard let tokens else { return nil }
        switch tokens.decide(authorization: request.headers[.authorization], scope: scope) {
        case .allowed: return nil
        case .unauthenticated: return HTTPReply.error(.unauthorized, "a bearer token is required (Authorization: Bearer TOKEN)")
        case .forbidden: return HTTPReply.error(.forbidden, "the token has no \(scope.rawValue) scope")
        }
    }

    /// The whole body, or the 413 to answer: a declared length over the limit is refused
    /// before anything is read, and reading stops at the limit.
    func body(of request: Request) async -> Result<ByteBuffer, BodyRefusal> {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > maximumBodyBytes {
            return .failure(BodyRefusal(response: tooLarge))
        }
        do {
            return .success(try await request.body.collect(upTo: maximumBodyBytes))
        } catch {
            return .failure(BodyRefusal(response: tooLarge))
        }
    }

    var tooLarge: Response { HTTPReply.error(.contentTooLarge, "the body is larger than \(maximumBodyBytes) bytes") }

    /// A response in place of a body.
    struct BodyRefusal: Error {
        var response: Response
    }

    /// `POST /v1/fixes`.
    func postFixes(_ request: Request) async -> Response {
        if let refusal = refusal(request, needs: .ingest) { return refusal }
        let format: FixLines.Format
        switch HTTPReply.mediaType(request.headers[.contentType]) {
        case "application/x-ndjson", "application/ndjson", "application/jsonl": format = .ndjson
        case "text/csv": format = .csv
        default:
            return HTTPReply.error(.badRequest, "Content-Type must be application/x-ndjson or text/csv")
        }
        let buffer: ByteBuffer
        switch await body(of: request) {
        case .success(let bytes): buffer = bytes
        case .failure(let refusal): return refusal.response
        }
        let parsed: (accepted: [FixLines.Accepted], rejected: [FixLines.Rejected])
        do {
            parsed = try buffer.withUnsafeReadableBytes { raw throws(FileError) in
                try FixLines.read(raw, format: format, name: "the request body")
            }
        } catch {
            return HTTPReply.error(.badRequest, "\(error)")
        }
        let key = request.headers[.idempotencyKey]
        if let key, key.isEmpty || key.utf8.count > 255 {
            return HTTPReply.error(.badRequest, "Idempotency-Key must have 1 to 255 bytes")
        }
        let outcome: Engine.Outcome
        do {
            outcome = try await engine.ingest(accepted: parsed.accepted, rejected: parsed.rejected, key: key)
        } catch {
            return HTTPReply.error(.internalServerError, "\(error)")
        }
        // Acknowledged only once durable.
        await outcome.ticket.wait()
        if let key, !outcome.replayed { await engine.settled(key: key) }
        return HTTPReply.json(outcome.response, headers: outcome.replayed ? [.idempotentReplayed: "true"] : [:])
    }

    /// `GET /v1/events?after=SEQ&limit=N`: committed events only, in sequence order.
    func getEvents(_ request: Request) async -> Response {
        if let refusal = refusal(request, needs: .read) { return refusal }
        let query = request.uri.queryParameters
        let after = query.get("after").map { Int64($0) } ?? 0
        let limit = query.get("limit").map { Int($0) } ?? 1000
        guard let after, after >= 0 else { return HTTPReply.error(.badRequest, "after must be a sequence number >= 0") }
        guard let limit, (1...10_000).contains(limit) else { return HTTPReply.error(.badRequest, "limit must be 1 to 10000") }
        if request.headers[.accept]?.contains("text/event-stream") == true {
            // Last-Event-ID (a reconnecting EventSource) wins over `after`.
            let resume = request.headers[.lastEventID].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            return streamEvents(after: max(after, resume ?? 0))
        }
        do {
            return HTTPReply.ndjson(try await store.events(after: after, limit: limit))
        } catch {
            return HTTPReply.error(.internalServerError, "\(error)")
        }
    }

    /// `GET /metrics`: Prometheus's text format. Scope `read`.
    func getMetrics(_ request: Request) -> Response {
        if let refusal = refusal(request, needs: .read) { return refusal }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }

    /// `GET /v1/devices/{id}`.
    func getDevice(_ request: Request, id: String) async -> Response {
        if let refusal = refusal(request, needs: .read) { return refusal }
        let decoded = id.removingPercentEncoding ?? id
        guard let body = await engine.deviceJSON(decoded) else {
            return HTTPReply.error(.notFound, "no device \(decoded) has sent a fix")
        }
        return HTTPReply.json(body)
    }

    /// `PUT /v1/fences[?at=MS]`.
    func putFences(_ request: Request) async -> Response {
        if let refusal = refusal(request, needs: .admin) { return refusal }
        var at: Int64? = nil
        if let text = request.uri.queryParameters.get("at") {
            guard let value = Int64(text) else { return HTTPReply.error(.badRequest, "at must be epoch milliseconds") }
            at = value
        }
        let buffer: ByteBuffer
        switch await body(of: request) {
        case .success(let bytes): buffer = bytes
        case .failure(let refusal): return refusal.response
        }
        let newSet: FenceSet
        let compiled: Data
        do {
            // Parsed outside the engine: fixes keep flowing while a large catalog is read.
            let given = try FenceSet.load(bytes: Array(buffer.readableBytesView), name: "the request body")
            compiled = Data(given.compiledBytes())
            newSet = try FenceSet.load(bytes: compiled, name: "the request body")
        } catch {
            return HTTPReply.error(.badRequest, "\(error)")
        }
        do {
            let (ticket, response) = try await engine.updateFences(to: newSet, compiled: compiled, at: at)
            await ticket.wait()
            return HTTPReply.json(response)
        } catch let refusal as Engine.UpdateRefusal {
            return HTTPReply.error(HTTPResponse.Status(code: refusal.status), refusal.message)
        } catch {
            return HTTPReply.error(.internalServerError, "\(error)")
        }
    }
}

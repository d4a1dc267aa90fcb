import Foundation
import GeofenceEngine
import Hummingbird
import Synchronization

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
    /// `--max-lines`: the most lines a `POST /v1/fixes` body may have.
    let maximumLines: Int

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

    /// The whole body of a `POST /v1/fixes`, or the 413 to answer: over `--max-body-bytes`, or
    /// more than `--max-lines` lines. Lines are counted as the body arrives (line breaks, plus
    /// a last line without one; blank lines and a CSV's header count), so reading stops at the
    /// first chunk that passes the limit, and nothing is parsed before the count is known.
    func fixesBody(of request: Request) async -> Result<ByteBuffer, BodyRefusal> {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > maximumBodyBytes {
            return .failure(BodyRefusal(response: tooLarge))
        }
        var collected = ByteBuffer()
        var breaks = 0
        var lastByte: UInt8? = nil
        do {
            for try await chunk in request.body {
                if chunk.readableBytes > maximumBodyBytes - collected.readableBytes {
                    return .failure(BodyRefusal(response: tooLarge))
                }
                breaks += Self.lineBreaks(in: chunk)
                // More breaks than the limit: at least that many lines and one more.
                if breaks > maximumLines { return .failure(BodyRefusal(response: tooManyLines)) }
                if let last = chunk.readableBytesView.last { lastByte = last }
                collected.writeImmutableBuffer(chunk)
            }
        } catch {
            return .failure(BodyRefusal(response: HTTPReply.error(.badRequest, "the body could not be read: \(error)")))
        }
        let lines = breaks + (lastByte == nil || lastByte == UInt8(ascii: "\n") ? 0 : 1)
        if lines > maximumLines { return .failure(BodyRefusal(response: tooManyLines)) }
        return .success(collected)
    }

    /// The number of `\n` bytes in `buffer`.
    static func lineBreaks(in buffer: ByteBuffer) -> Int {
        buffer.withUnsafeReadableBytes { raw in
            guard var p = raw.baseAddress else { return 0 }
            let end = p + raw.count
            var n = 0
            while p < end, let hit = memchr(p, 0x0A, end - p) {
                n += 1
                p = UnsafeRawPointer(hit) + 1
            }
            return n
        }
    }

    var tooManyLines: Response {
        HTTPReply.error(.contentTooLarge, "the body has more than \(maximumLines) lines (--max-lines \(maximumLines)); nothing was applied")
    }

    var tooLarge: Response { HTTPReply.error(.contentTooLarge, "the body is larger than \(maximumBodyBytes) bytes") }

    /// The epoch milliseconds a fix's timestamp may carry: an optional minus and 1 to 18 digits.
    static let fixTimeRange: ClosedRange<Int64> = -999_999_999_999_999_999...999_999_999_999_999_999

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
        switch await fixesBody(of: request) {
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
        } catch let refusal as Engine.DeviceLimitRefusal {
            return HTTPReply.error(.tooManyRequests, refusal.message)
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
            let start = max(after, resume ?? 0)
            if let gone = gone(after: start, first: nil) { return gone }
            return streamEvents(after: start)
        }
        do {
            let page = try await store.eventsWithSeq(after: after, limit: limit)
            if let gone = gone(after: after, first: page.first?.seq) { return gone }
            return HTTPReply.ndjson(page.map(\.line))
        } catch {
            return HTTPReply.error(.internalServerError, "\(error)")
        }
    }

    /// 410 when events after `after` were deleted by `--retain-events`: a reader would miss
    /// them. `first` is the first event read after `after`, if any: the log has no gaps, so
    /// one that is not the next number means the events between went meanwhile.
    func gone(after: Int64, first: Int64?) -> Response? {
        let deleted = store.deletedThrough.withLock { $0 }
        guard after < deleted || (first != nil && first! != after + 1) else { return nil }
        return HTTPReply.error(
            .gone, "events after \(after) up to \(max(deleted, (first ?? 1) - 1)) were deleted by --retain-events; the oldest kept follow after=\(max(deleted, (first ?? 1) - 1))")
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

    /// `GEOFENCE_SERVER_UPDATE_PAUSE_MS`, for tests only: how long each fence update waits
    /// between moving the devices and its finish step (the devices changed meanwhile are the
    /// ones ``Engine/Premove`` moves as they change).
    static let updatePause: Duration? = ProcessInfo.processInfo.environment["GEOFENCE_SERVER_UPDATE_PAUSE_MS"]
        .flatMap { Int($0) }.map { .milliseconds($0) }

    /// Fence updates being applied at once; past ``maximumUpdatesAtOnce`` one is refused with 429.
    static let updatesAtOnce = Atomic<Int>(0)
    static let maximumUpdatesAtOnce = 2

    /// `PUT /v1/fences[?at=MS]`.
    func putFences(_ request: Request) async -> Response {
        if let refusal = refusal(request, needs: .admin) { return refusal }
        // Each update holds a copy of the catalog being read and up to three threads while it
        // moves the devices: a few at once at most (one overtakes the other anyway).
        guard Self.updatesAtOnce.add(1, ordering: .relaxed).newValue <= Self.maximumUpdatesAtOnce else {
            Self.updatesAtOnce.subtract(1, ordering: .relaxed)
            return HTTPReply.error(.tooManyRequests, "\(Self.maximumUpdatesAtOnce) fence updates are being applied; send this one again once one has answered")
        }
        defer { Self.updatesAtOnce.subtract(1, ordering: .relaxed) }
        var at: Int64? = nil
        if let text = request.uri.queryParameters.get("at") {
            // The range a fix's timestamp may have (1 to 18 digits): devices' clocks move to
            // `at`, so a later time would leave every device unable to send a fix again.
            guard let value = Int64(text), Self.fixTimeRange.contains(value) else {
                return HTTPReply.error(.badRequest, "at must be epoch milliseconds, at most 18 digits (as a fix's timestamp)")
            }
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
            // Devices are moved outside the engine, so fixes keep flowing meanwhile; an update
            // that another one overtook starts again from the set that one installed.
            var attempt = 0
            var outcome: Engine.Finished? = nil
            while outcome == nil {
                attempt += 1
                let begun = try await engine.beginUpdate(to: newSet, at: at)
                do {
                    let move = try await Engine.FenceMove.run(begun)
                    // A test seam: a pause before the finish step, for fixes to arrive in.
                    if let pause = Self.updatePause { try await Task.sleep(for: pause) }
                    outcome = try await engine.finishUpdate(consume move, compiled: compiled)
                    await engine.endUpdate(begun)
                } catch is Engine.UpdateOvertaken where attempt < 5 {
                    await engine.endUpdate(begun)
                    continue
                } catch is Engine.UpdateOvertaken {
                    await engine.endUpdate(begun)
                    return HTTPReply.error(.conflict, "other fence updates kept overtaking this one; send it again")
                } catch {
                    await engine.endUpdate(begun)
                    throw error
                }
            }
            // The devices as they were before the update are freed here, off the engine.
            let finished = outcome.take()!
            await finished.ticket.wait()
            return HTTPReply.json(finished.response)
        } catch let refusal as Engine.UpdateRefusal {
            return HTTPReply.error(HTTPResponse.Status(code: refusal.status), refusal.message)
        } catch {
            return HTTPReply.error(.internalServerError, "\(error)")
        }
    }
}

import Foundation
import Hummingbird

/// `GET /v1/events` with `Accept: text/event-stream`: Server-Sent Events, one per event
/// (`id: SEQ`, `data: LINE`), from the log after `Last-Event-ID` (or `after`), then live as
/// commits complete, with a `: keep-alive` comment every `--keep-alive` seconds the stream
/// is otherwise idle.
extension Routes {
    func streamEvents(after start: Int64) -> Response {
        let store = self.store
        let feed = self.feed
        let body = ResponseBody { writer in
            let (stream, id) = feed.subscribe()
            defer { feed.unsubscribe(id) }
            var wakeUps = stream.makeAsyncIterator()
            var cursor = start
            // A first line at once, so a client knows the stream is open.
            try await writer.write(ByteBuffer(string: ": geofence-server events after \(start)\n\n"))
            reading: while true {
                var wrote = false
                while true {
                    let page = try await store.eventsWithSeq(after: cursor, limit: 1000)
                    // Fallen behind --retain-events: the stream ends, and the client's
                    // reconnection with its Last-Event-ID is answered 410.
                    if let first = page.first?.seq, first != cursor + 1 { break reading }
                    if page.isEmpty { break }
                    var text = ""
                    for (seq, line) in page { text += "id: \(seq)\ndata: \(line)\n\n" }
                    try await writer.write(ByteBuffer(string: text))
                    cursor = page.last!.seq
                    wrote = true
                }
                // nil: the feed closed (shutdown).
                guard let woken = await wakeUps.next() else { break }
                // The feed's keep-alive: a comment keeps proxies from closing an idle stream,
                // and a write to a client that left ends the stream.
                if woken == EventFeed.keepAlive && !wrote { try await writer.write(ByteBuffer(string: ": keep-alive\n\n")) }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}

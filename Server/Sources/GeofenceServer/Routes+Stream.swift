import Foundation
import Hummingbird

/// `GET /v1/events` with `Accept: text/event-stream`: Server-Sent Events, one per event
/// (`id: SEQ`, `data: LINE`), from the log after `Last-Event-ID` (or `after`), then live as
/// commits complete.
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
            while true {
                while true {
                    let page = try await store.eventsWithSeq(after: cursor, limit: 1000)
                    if page.isEmpty { break }
                    var text = ""
                    for (seq, line) in page { text += "id: \(seq)\ndata: \(line)\n\n" }
                    try await writer.write(ByteBuffer(string: text))
                    cursor = page.last!.seq
                }
                // nil: the feed closed (shutdown).
                guard await wakeUps.next() != nil else { break }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}

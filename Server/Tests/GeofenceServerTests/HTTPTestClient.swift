import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as the tests read it.
struct HTTPResult {
    var status: Int
    /// Header names lower-cased.
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
}

/// A minimal HTTP/1.1 client over a blocking socket: one request per connection
/// (`Connection: close`), the response read to the end. The tests need exact control of
/// headers and bodies (no `Expect: 100-continue`, no retries), which URLSession does not give.
enum HTTPTestClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func request(
        port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data()
    ) throws -> HTTPResult {
        let fd = try send(port: port, method, path, headers: headers, body: body, timeout: 30)
        defer { close(fd) }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return try parse(received)
    }

    /// A request whose response does not end (Server-Sent Events): what arrived when `done`
    /// says it is enough, or at the deadline; the connection is then closed.
    static func stream(
        port: Int, _ path: String, headers: [String: String], seconds: Double, until done: (String) -> Bool
    ) throws -> String {
        let fd = try send(port: port, "GET", path, headers: headers, body: Data(), timeout: 0.1)
        defer { close(fd) }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && !done(String(decoding: received, as: UTF8.self)) {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { break }
            if n > 0 { received.append(contentsOf: chunk[0..<n]) }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A connected socket with the request sent; reads time out after `timeout` seconds.
    private static func send(
        port: Int, _ method: String, _ path: String, headers: [String: String], body: Data, timeout seconds: Double
    ) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var message = Data(head.utf8)
        message.append(body)
        // A server may answer (413) and close before reading everything: stop writing then,
        // and read what it said. MSG_NOSIGNAL: no SIGPIPE for the test process.
        message.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                sent += n
            }
        }
        return fd
    }

    static func parse(_ data: Data) throws -> HTTPResult {
        let separator = Data("\r\n\r\n".utf8)
        guard let end = data.range(of: separator) else {
            throw Failure(description: "no complete response head in \(data.count) bytes")
        }
        let lines = String(decoding: data[data.startIndex..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        // A server killed while it answers leaves a response cut short: that is no answer (a
        // client cannot tell what it said), as a connection refused is none.
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            guard let payload = dechunk(body) else { throw Failure(description: "incomplete response: the chunked body has no last chunk") }
            body = payload
        } else if let text = headers["content-length"], let length = Int(text), body.count < length {
            throw Failure(description: "incomplete response: \(body.count) of \(length) body bytes")
        }
        return HTTPResult(status: status, headers: headers, body: body)
    }

    /// The payload of a chunked body, or nil when it stops before its last (empty) chunk.
    static func dechunk(_ data: Data) -> Data? {
        var out = Data()
        var rest = Data(data)
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[rest.startIndex..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else { return nil }
            if size == 0 { return out }
            let start = lineEnd.upperBound
            guard rest.count >= start - rest.startIndex + size + 2 else { return nil }
            out.append(rest[start..<(start + size)])
            rest = Data(rest[(start + size + 2)...])
        }
        return nil
    }
}

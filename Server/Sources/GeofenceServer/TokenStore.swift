import Foundation

/// What a bearer token may do. `admin` may do everything; `read` and `ingest` only their own.
public enum Scope: String, Sendable, CaseIterable {
    /// `POST /v1/fixes`.
    case ingest
    /// `GET /v1/events`, `GET /v1/devices/{id}`.
    case read
    /// `PUT /v1/fences`, and everything the other scopes allow.
    case admin

    func allows(_ needed: Scope) -> Bool { self == .admin || self == needed }
}

/// The tokens of a `--token-file`: lines `TOKEN SCOPE`; blank lines and lines starting with
/// `#` are skipped. A token may appear on several lines, once per scope.
public struct TokenStore: Sendable {
    /// Tokens as bytes with their scopes, compared in constant time (``scopes(of:)``).
    let entries: [(token: [UInt8], scope: Scope)]

    /// The outcome of checking a request's `Authorization` header for a scope.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// No token, or one the file does not hold: 401.
        case unauthenticated
        /// A known token without the scope: 403.
        case forbidden
    }

    public init(entries: [(token: String, scope: Scope)]) {
        self.entries = entries.map { (Array($0.token.utf8), $0.scope) }
    }

    /// Reads a token file.
    /// - Throws: ``ServerError`` naming the line of a malformed entry or an unknown scope,
    ///   or when the file holds no token.
    public static func read(path: String) throws(ServerError) -> TokenStore {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ServerError("--token-file \(path): cannot read it as UTF-8 text")
        }
        var entries: [(token: String, scope: Scope)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2, let scope = Scope(rawValue: String(fields[1])) else {
                throw ServerError("--token-file \(path) line \(index + 1): expected TOKEN SCOPE with a scope of ingest, read or admin")
            }
            guard fields[0].utf8.count >= 8 else {
                throw ServerError("--token-file \(path) line \(index + 1): a token must have at least 8 characters")
            }
            entries.append((String(fields[0]), scope))
        }
        if entries.isEmpty { throw ServerError("--token-file \(path): no token in it") }
        return TokenStore(entries: entries)
    }

    /// Whether `authorization` (the header's value, `Bearer TOKEN`) grants `scope`.
    public func decide(authorization: String?, scope: Scope) -> Decision {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return .unauthenticated
        }
        let given = Array(authorization.utf8.dropFirst(7))
        // Every entry is compared, each in time that depends only on the lengths, so the
        // answer's timing tells nothing about how much of a token matched.
        var known = false, granted = false
        for entry in entries where Self.constantTimeEqual(entry.token, given) {
            known = true
            if entry.scope.allows(scope) { granted = true }
        }
        return granted ? .allowed : known ? .forbidden : .unauthenticated
    }

    /// Byte equality whose time does not depend on where the first difference is.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        if a.count != b.count { difference |= 1 }
        let n = Swift.min(a.count, b.count)
        for k in 0..<n { difference |= a[k] ^ b[k] }
        return difference == 0
    }
}

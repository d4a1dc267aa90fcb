/// Finds named columns in a CSV header: the one place the fix reader and the signal reader
/// (`geofence places`) map header names to field positions.
package enum CSVColumns {
    /// The fix columns' names and aliases (lowercased name → canonical name); the signal
    /// header adds its own columns to these.
    package static let fixAliases: [String: String] = [
        "device_id": "device_id", "timestamp": "timestamp",
        "lat": "lat", "latitude": "lat",
        "lon": "lon", "lng": "lon", "longitude": "lon",
        "accuracy": "accuracy", "level": "level",
    ]

    /// A header line's bytes without a leading UTF-8 byte order mark.
    package static func withoutByteOrderMark(_ line: some Collection<UInt8>) -> [UInt8] {
        line.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(line.dropFirst(3)) : Array(line)
    }

    /// Positions of the canonical columns named in `names` (header fields, quotes removed).
    /// Names are matched through `aliases` (lowercased name → canonical name) without regard
    /// to case or surrounding spaces; other columns are ignored.
    ///
    /// - Throws: the problem in words when a column is named twice or a `required` one is
    ///   missing (the message lists what was expected and what was found).
    package static func locate(
        _ names: [String], aliases: [String: String], required: [String]
    ) throws(CSVHeaderProblem) -> [String: Int] {
        var found: [String: Int] = [:]
        for (index, raw) in names.enumerated() {
            guard let canonical = aliases[raw.trimmingSpaces().lowercased()] else { continue }
            if let earlier = found[canonical] {
                throw CSVHeaderProblem(reason: "header names the \(canonical) column twice (fields \(earlier + 1) and \(index + 1))")
            }
            found[canonical] = index
        }
        let missing = required.filter { found[$0] == nil }
        guard missing.isEmpty else {
            let shown = names.map { $0.trimmingSpaces() }.joined(separator: ",")
            throw CSVHeaderProblem(
                reason: "header has no \(missing.joined(separator: ", ")) column (expected at least \(required.joined(separator: ",")); found \"\(shown.prefix(200))\")")
        }
        return found
    }
}

/// A header's problem, in words; the caller names the file.
package struct CSVHeaderProblem: Error, Hashable, Sendable, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    package func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

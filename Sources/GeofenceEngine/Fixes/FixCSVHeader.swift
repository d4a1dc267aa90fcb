/// Where the fix columns are in a CSV file, read from its header line.
///
/// Required: `device_id`, `timestamp`, `lat`, `lon` (also accepted: `latitude`, `lng`,
/// `longitude`); optional: `accuracy`, `level`. Any order; other columns are ignored.
/// Names are matched without regard to case or surrounding spaces.
package struct FixCSVHeader: Hashable, Sendable {
    package let deviceID: Int
    package let timestamp: Int
    package let latitude: Int
    package let longitude: Int
    package let accuracy: Int?
    package let level: Int?
    /// Number of fields in the header; every row must have as many.
    package let fieldCount: Int
    /// What each field is, by position (see `FieldRole`); the row parser reads this instead of
    /// comparing each field's position with six column numbers.
    package let roles: [UInt8]

    /// True for the usual layout, `device_id,timestamp,lat,lon` and nothing else: the rows
    /// the one-pass parser reads without looking up a field's role
    /// (``FixCSVRow/parseSimple(_:_:limit:header:)``). Decided once here (the columns never
    /// change), so a row pays one test of it, not five comparisons.
    package let isUsualLayout: Bool

    /// Field roles in `roles`.
    package enum FieldRole {
        package static let ignored: UInt8 = 0
        package static let deviceID: UInt8 = 1
        package static let timestamp: UInt8 = 2
        package static let latitude: UInt8 = 3
        package static let longitude: UInt8 = 4
        package static let accuracy: UInt8 = 5
        package static let level: UInt8 = 6
    }

    /// The header's problem, in words; the caller names the file.
    package struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// Reads the header from the bytes of its line (no line break; a UTF-8 BOM is skipped).
    package init(line: UnsafeRawBufferPointer) throws(Problem) {
        var bytes = CSVColumns.withoutByteOrderMark(line)
        if bytes.last == 0x0D { bytes.removeLast() }
        let names = Self.splitHeader(bytes)
        let found: [String: Int]
        do {
            found = try CSVColumns.locate(names, aliases: CSVColumns.fixAliases, required: ["device_id", "timestamp", "lat", "lon"])
        } catch {
            throw Problem(reason: error.reason)
        }
        deviceID = found["device_id"]!
        timestamp = found["timestamp"]!
        latitude = found["lat"]!
        longitude = found["lon"]!
        accuracy = found["accuracy"]
        level = found["level"]
        fieldCount = names.count
        var roles = [UInt8](repeating: FieldRole.ignored, count: names.count)
        roles[deviceID] = FieldRole.deviceID
        roles[timestamp] = FieldRole.timestamp
        roles[latitude] = FieldRole.latitude
        roles[longitude] = FieldRole.longitude
        if let accuracy { roles[accuracy] = FieldRole.accuracy }
        if let level { roles[level] = FieldRole.level }
        self.roles = roles
        isUsualLayout = fieldCount == 4 && deviceID == 0 && timestamp == 1 && latitude == 2 && longitude == 3
    }

    /// Reads the header from its text, as it would stand on the file's first line
    /// (`device_id,timestamp,lat,lon`): for input that has no header line.
    package init(names: String) throws(Problem) {
        var text = names
        let parsed = text.withUTF8 { bytes -> Result<FixCSVHeader, Problem> in
            do throws(Problem) { return .success(try FixCSVHeader(line: UnsafeRawBufferPointer(bytes))) } catch { return .failure(error) }
        }
        self = try parsed.get()
    }

    /// Header fields, quotes removed.
    static func splitHeader(_ bytes: [UInt8]) -> [String] {
        var fields: [String] = []
        var current: [UInt8] = []
        var inQuotes = false
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if inQuotes {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\"") { current.append(b); i += 1 } else { inQuotes = false }
                } else {
                    current.append(b)
                }
            } else if b == UInt8(ascii: "\"") {
                inQuotes = true
            } else if b == UInt8(ascii: ",") {
                fields.append(String(decoding: current, as: UTF8.self))
                current = []
            } else {
                current.append(b)
            }
            i += 1
        }
        fields.append(String(decoding: current, as: UTF8.self))
        return fields
    }
}

import GeofenceEngine

/// The columns of a signals CSV (`geofence places`), read from its header line.
///
/// Required: `timestamp`, `device_id`, `signal`, `geofence_id`, `lat`, `lon` (also
/// `latitude`, `lng`, `longitude`); optional: `level`, `accuracy` (used by `nearby`). Any
/// order; other columns are ignored; names match without regard to case or surrounding
/// spaces; a UTF-8 BOM and a trailing CR are skipped.
struct SignalCSVHeader {
    var timestamp = 0, deviceID = 0, signal = 0, geofenceID = 0, latitude = 0, longitude = 0
    var level: Int?
    var accuracy: Int?
    var fieldCount = 0

    static let aliases = CSVColumns.fixAliases.merging(["signal": "signal", "geofence_id": "geofence_id"]) { a, _ in a }
    static let required = ["timestamp", "device_id", "signal", "geofence_id", "lat", "lon"]

    /// - Throws: the problem in words (the caller names the file).
    init(line: [UInt8]) throws(SignalCSVProblem) {
        let names: [String]
        switch SignalCSVRow.split(CSVColumns.withoutByteOrderMark(line)) {
        case .success(let found): names = found
        case .failure(let problem): throw SignalCSVProblem("header: \(problem.reason)")
        }
        let found: [String: Int]
        do {
            found = try CSVColumns.locate(names, aliases: Self.aliases, required: Self.required)
        } catch {
            throw SignalCSVProblem(error.reason)
        }
        timestamp = found["timestamp"]!
        deviceID = found["device_id"]!
        signal = found["signal"]!
        geofenceID = found["geofence_id"]!
        latitude = found["lat"]!
        longitude = found["lon"]!
        level = found["level"]
        accuracy = found["accuracy"]
        fieldCount = names.count
    }
}

/// A problem with the signals file or one of its rows, in words.
struct SignalCSVProblem: Error {
    var reason: String
    /// A field is not valid UTF-8 (rejection reason `encoding`, not `parse`).
    var isEncoding = false
    init(_ reason: String, isEncoding: Bool = false) {
        self.reason = reason
        self.isEncoding = isEncoding
    }
}

/// One data row of a signals CSV.
struct SignalCSVRow {
    enum Signal: Equatable {
        case entry(String)
        case exit(String)
        case nearby(Fix)
    }

    var deviceID: String
    var timestamp: Timestamp
    var signal: Signal

    /// Parses a row (no line break).
    /// - Throws: why the row is unreadable.
    init(line: [UInt8], header: SignalCSVHeader) throws(SignalCSVProblem) {
        let fields: [String]
        switch Self.split(line) {
        case .success(let found): fields = found
        case .failure(let problem): throw problem
        }
        guard fields.count == header.fieldCount else {
            throw SignalCSVProblem("row has \(fields.count) field(s), the header has \(header.fieldCount)")
        }
        deviceID = fields[header.deviceID]
        guard !deviceID.isEmpty else { throw SignalCSVProblem("empty device_id") }
        switch TimestampParser.parse(fields[header.timestamp].trimmingSpaces()) {
        case .success(let ms): timestamp = Timestamp(milliseconds: ms)
        case .failure(let failure): throw SignalCSVProblem(failure.reason)
        }
        let geofenceID = fields[header.geofenceID]
        switch fields[header.signal].trimmingSpaces().lowercased() {
        case "entry", "exit":
            guard !geofenceID.isEmpty else {
                throw SignalCSVProblem("\(fields[header.signal].trimmingSpaces()) needs a geofence_id")
            }
            signal = fields[header.signal].trimmingSpaces().lowercased() == "entry" ? .entry(geofenceID) : .exit(geofenceID)
        case "nearby":
            let latText = fields[header.latitude].trimmingSpaces(), lonText = fields[header.longitude].trimmingSpaces()
            guard !latText.isEmpty, !lonText.isEmpty else { throw SignalCSVProblem("nearby needs lat and lon") }
            guard let lat = DecimalParser.parse(latText) else { throw SignalCSVProblem("lat is not a decimal number") }
            guard let lon = DecimalParser.parse(lonText) else { throw SignalCSVProblem("lon is not a decimal number") }
            var level: Int? = nil
            if let column = header.level, !fields[column].trimmingSpaces().isEmpty {
                guard let value = Int(fields[column].trimmingSpaces()) else { throw SignalCSVProblem("level is not an integer") }
                level = value
            }
            var accuracy: Double? = nil
            if let column = header.accuracy, !fields[column].trimmingSpaces().isEmpty {
                guard let value = DecimalParser.parse(fields[column].trimmingSpaces()), value >= 0 else {
                    throw SignalCSVProblem("accuracy is not a number of metres >= 0")
                }
                accuracy = value
            }
            signal = .nearby(Fix(timestamp: timestamp, latitude: lat, longitude: lon, accuracy: accuracy, level: level))
        case "":
            throw SignalCSVProblem("empty signal (expected entry, exit or nearby)")
        default:
            throw SignalCSVProblem("signal \(JSONWriter.quoted(fields[header.signal])) is not entry, exit or nearby")
        }
    }

    /// The fields of a line: comma-separated, each optionally quoted (`"a,b"`, `"say ""hi"""`),
    /// quotes removed; a trailing CR is dropped. A field that is not valid UTF-8 is a problem
    /// (`isEncoding`): ids are kept, and decoding would merge distinct ones.
    static func split(_ line: [UInt8]) -> Result<[String], SignalCSVProblem> {
        var bytes = line[...]
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        var fields: [String] = []
        var current: [UInt8] = []
        var inQuotes = false
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if inQuotes {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.endIndex && bytes[i + 1] == UInt8(ascii: "\"") {
                        current.append(b)
                        i += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    current.append(b)
                }
            } else if b == UInt8(ascii: "\"") {
                inQuotes = true
            } else if b == UInt8(ascii: ",") {
                guard let field = String(validating: current, as: UTF8.self) else { return .failure(Self.encodingProblem(current, fields.count)) }
                fields.append(field)
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(b)
            }
            i += 1
        }
        if inQuotes { return .failure(SignalCSVProblem("unterminated quoted field")) }
        guard let field = String(validating: current, as: UTF8.self) else { return .failure(Self.encodingProblem(current, fields.count)) }
        fields.append(field)
        return .success(fields)
    }

    static func encodingProblem(_ bytes: [UInt8], _ index: Int) -> SignalCSVProblem {
        let shown = bytes.withUnsafeBufferPointer { UTF8Validation.escaped($0) }
        return SignalCSVProblem("field \(index + 1) \(shown) is not valid UTF-8", isEncoding: true)
    }
}

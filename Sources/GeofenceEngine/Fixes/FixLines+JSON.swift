extension FixLines.Reader {
    /// One NDJSON line: an object with `deviceId` (a non-empty string), `timestamp` (epoch
    /// milliseconds, as a number or a string, or ISO-8601 with a zone), `lat` and `lng`
    /// (numbers), and optionally `accuracy` (metres, at least 0) and `level` (an integer),
    /// either of which may be null. Other members are ignored. The names are the CLI's event
    /// lines' (`deviceId`, `lat`, `lng`).
    mutating func jsonLine(_ start: Int, _ end: Int, line: Int) {
        guard UTF8Validation.isValid(p, start, end) else {
            refuse(line, .encoding, "the line is not valid UTF-8")
            return
        }
        // The usual line in one pass; anything else, and every refusal, is the generic path's.
        if fastJSON, let (device, fix) = FixLines.fastJSONFix(p, start, end) {
            fastLines += 1
            accept(line, device: device, fix)
            return
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(UnsafeRawBufferPointer(start: p + start, count: end - start))
        } catch {
            refuse(line, .parse, "not JSON: column \(error.column): \(error.reason)")
            return
        }
        guard let object = value.objectValue else {
            refuse(line, .parse, "the line is \(value.typeName), not an object")
            return
        }
        switch Self.fix(object) {
        case .success(let (device, fix)): accept(line, device: device, fix)
        case .failure(let problem): refuse(line, .parse, problem.detail)
        }
    }

    struct Problem: Error {
        var detail: String
    }

    /// The device id and fix an object names, or what is wrong with it.
    static func fix(_ object: JSONObject) -> Result<(String, Fix), Problem> {
        guard let deviceValue = object["deviceId"] else { return .failure(Problem(detail: "deviceId is missing")) }
        guard let device = deviceValue.stringValue else { return .failure(Problem(detail: "deviceId is not a string")) }
        guard !device.isEmpty else { return .failure(Problem(detail: "empty deviceId")) }
        guard let timeValue = object["timestamp"] else { return .failure(Problem(detail: "timestamp is missing")) }
        let timeText: String
        switch timeValue {
        case .number(let text), .string(let text): timeText = text
        default: return .failure(Problem(detail: "timestamp is not a number or a string"))
        }
        guard case .success(let milliseconds) = TimestampParser.parse(timeText) else {
            return .failure(Problem(detail: "timestamp \(timeText) is not epoch milliseconds or ISO-8601 with a zone"))
        }
        var numbers: [Double] = []
        for key in ["lat", "lng"] {
            guard let member = object[key] else { return .failure(Problem(detail: "\(key) is missing")) }
            guard let number = member.doubleValue else { return .failure(Problem(detail: "\(key) is not a number")) }
            numbers.append(number)
        }
        var accuracy: Double? = nil
        if let member = object["accuracy"], member != .null {
            guard let metres = member.doubleValue, metres >= 0 else {
                return .failure(Problem(detail: "accuracy is not a number of metres >= 0"))
            }
            accuracy = metres
        }
        var level: Int? = nil
        if let member = object["level"], member != .null {
            guard let floor = member.intValue else { return .failure(Problem(detail: "level is not an integer")) }
            level = floor
        }
        let fix = Fix(timestamp: Timestamp(milliseconds: milliseconds), latitude: numbers[0], longitude: numbers[1], accuracy: accuracy, level: level)
        return .success((device, fix))
    }
}

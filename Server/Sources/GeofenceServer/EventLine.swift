import GeofenceEngine

/// One event as the server publishes it: the CLI's event line (the names and order of
/// `GeofenceEvent`'s `Codable` form) with `"seq"` and `"id"` added at the end.
///
/// Written here byte by byte rather than with `JSONEncoder`, so that the same event is the
/// same bytes in every process: a restarted server must publish what a never-restarted one
/// would, and an encoder's key order or number style is not promised to be stable.
struct EventLine: Sendable {
    var seq: Int64
    var id: String
    var deviceID: String
    /// The whole line, without a line break.
    var text: String

    /// The line of `event` (its `deviceID` set) with its sequence number and id.
    init(_ event: GeofenceEvent, deviceID: String, seq: Int64, id: String) {
        self.init(prefix: Self.prefix(event, deviceID: deviceID), deviceID: deviceID, seq: seq, id: id)
    }

    /// The line from its ``prefix(_:deviceID:)``, made beforehand (a fence update formats its
    /// events outside the engine, where they get their numbers).
    init(prefix: String, deviceID: String, seq: Int64, id: String) {
        self.seq = seq
        self.id = id
        self.deviceID = deviceID
        var out = prefix
        out += ",\"seq\":\(seq),\"id\":"
        JSONText.appendString(id, to: &out)
        out += "}"
        text = out
    }

    /// The line up to its sequence number: everything the event alone decides.
    static func prefix(_ event: GeofenceEvent, deviceID: String) -> String {
        var out = "{\"eventType\":"
        JSONText.appendString(event.type.name, to: &out)
        out += ",\"timestamp\":\(event.timestamp.milliseconds),\"deviceId\":"
        JSONText.appendString(deviceID, to: &out)
        out += ",\"geofenceId\":"
        JSONText.appendString(event.geofenceID, to: &out)
        // An event that fell due before any fix has no position: JSON has no NaN.
        if event.latitude.isFinite && event.longitude.isFinite {
            out += ",\"lat\":"
            JSONText.appendNumber(event.latitude, to: &out)
            out += ",\"lng\":"
            JSONText.appendNumber(event.longitude, to: &out)
        }
        out += ",\"radius\":"
        JSONText.appendNumber(event.radius, to: &out)
        if let level = event.level { out += ",\"level\":\(level)" }
        out += ",\"geofenceProperties\":"
        JSONText.appendValue(.object(event.properties), to: &out)
        if let reason = event.reason {
            out += ",\"reason\":"
            JSONText.appendString(reason.rawValue, to: &out)
        }
        return out
    }

    /// The event's stable id: a hash of the device, the fence, the type, the time and the
    /// event's ordinal among its device's events (which tells apart two events alike in
    /// everything else). The same fixes give the same ids, in any run, before or after a
    /// restart; 16 hex digits.
    static func id(deviceID: String, event: GeofenceEvent, ordinal: Int64) -> String {
        var hash = StableHash()
        hash.add(deviceID)
        hash.add(event.geofenceID)
        hash.add(event.type.name)
        hash.add(event.timestamp.milliseconds)
        hash.add(ordinal)
        let value = hash.value
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// FNV-1a over length-prefixed fields, then a 64-bit finaliser: the same on every platform
/// and in every process (unlike `Hasher`, which is seeded per process).
struct StableHash {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(byte: UInt8) {
        state ^= UInt64(byte)
        state &*= 0x0000_0100_0000_01b3
    }

    mutating func add(_ value: Int64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(byte: UInt8(truncatingIfNeeded: value >> Int64(shift))) }
    }

    mutating func add(_ text: String) {
        add(Int64(text.utf8.count))
        for byte in text.utf8 { add(byte: byte) }
    }

    /// SplitMix64's finaliser: spreads FNV's weak high bits over the whole word.
    var value: UInt64 {
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// An event with its line formatted up to its sequence number (``EventLine/prefix(_:deviceID:)``):
/// a fence update formats its events outside the engine, which only numbers them.
struct PreparedEvent: Sendable {
    var event: GeofenceEvent
    var prefix: String

    init(_ event: GeofenceEvent, deviceID: String) {
        self.event = event
        prefix = EventLine.prefix(event, deviceID: deviceID)
    }
}

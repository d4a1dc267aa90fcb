/// An event through `Codable`, in the CLI's event line form: `eventType`, `timestamp` (epoch
/// milliseconds), `deviceId` (when set), `geofenceId`, `lat`, `lng`, `radius` (metres),
/// `level` (when the fence has one), `geofenceProperties`, and `reason` (only on a removal
/// exit). `JSONEncoder` with `.sortedKeys` or not, the names are these; the CLI writes them
/// in this order.
extension GeofenceEvent: Codable {
    enum CodingKeys: String, CodingKey {
        case eventType, timestamp, deviceId, geofenceId, lat, lng, radius, level, geofenceProperties, reason
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .eventType)
        guard let type = EventType.allCases.first(where: { $0.name == name }) else {
            throw DecodingError.dataCorruptedError(forKey: .eventType, in: c, debugDescription: "unknown event type \(JSONWriter.quoted(name))")
        }
        self.init(
            type: type, timestamp: Timestamp(milliseconds: try c.decode(Int64.self, forKey: .timestamp)),
            geofenceID: try c.decode(String.self, forKey: .geofenceId),
            latitude: try c.decodeIfPresent(Double.self, forKey: .lat) ?? .nan,
            longitude: try c.decodeIfPresent(Double.self, forKey: .lng) ?? .nan,
            radius: try c.decode(Double.self, forKey: .radius), level: try c.decodeIfPresent(Int.self, forKey: .level),
            properties: try c.decodeIfPresent(JSONObject.self, forKey: .geofenceProperties) ?? JSONObject(),
            reason: try c.decodeIfPresent(Reason.self, forKey: .reason), deviceID: try c.decodeIfPresent(String.self, forKey: .deviceId))
    }

    /// Encodes the CLI's line form. A position that is not a number (an event that fell due
    /// before any fix) is left out, as JSON has no NaN.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type.name, forKey: .eventType)
        try c.encode(timestamp.milliseconds, forKey: .timestamp)
        try c.encodeIfPresent(deviceID, forKey: .deviceId)
        try c.encode(geofenceID, forKey: .geofenceId)
        if latitude.isFinite && longitude.isFinite {
            try c.encode(latitude, forKey: .lat)
            try c.encode(longitude, forKey: .lng)
        }
        try c.encode(radius, forKey: .radius)
        try c.encodeIfPresent(level, forKey: .level)
        try c.encode(properties, forKey: .geofenceProperties)
        try c.encodeIfPresent(reason, forKey: .reason)
    }
}

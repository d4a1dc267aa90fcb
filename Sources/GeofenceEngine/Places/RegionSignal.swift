/// What the OS's region monitoring delivers for one device: an entry into or an exit from
/// a registered fence, named by id, at a time (semantics §6).
public struct RegionSignal: Hashable, Sendable {
    /// Whether the OS reported the device entering or leaving the region.
    public enum Kind: String, Hashable, Sendable, Codable {
        case entry, exit
    }

    public var kind: Kind
    public var geofenceID: String
    public var timestamp: Timestamp

    public init(_ kind: Kind, geofenceID: String, at timestamp: Timestamp) {
        self.kind = kind
        self.geofenceID = geofenceID
        self.timestamp = timestamp
    }

    public static func entry(_ geofenceID: String, at timestamp: Timestamp) -> RegionSignal {
        RegionSignal(.entry, geofenceID: geofenceID, at: timestamp)
    }

    public static func exit(_ geofenceID: String, at timestamp: Timestamp) -> RegionSignal {
        RegionSignal(.exit, geofenceID: geofenceID, at: timestamp)
    }
}

/// One event of one device at one fence (semantics §4, §5).
public struct GeofenceEvent: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of event, in the order events of one fence at one instant are listed.
    public enum EventType: UInt8, Hashable, Sendable, CaseIterable, Codable, Comparable {
        case entrance = 0
        case dwell = 1
        case venueConfirmed = 2
        case exit = 3
        case presence = 4

        /// The name used in outputs (`eventType`).
        public var name: String {
            switch self {
            case .entrance: "entrance"
            case .dwell: "dwell"
            case .venueConfirmed: "venueConfirmed"
            case .exit: "exit"
            case .presence: "presence"
            }
        }

        public static func < (a: EventType, b: EventType) -> Bool { a.rawValue < b.rawValue }
    }

    public var type: EventType
    /// When the event happened: the fix's time, or for an event that fell due between fixes
    /// its due time (never the time it was noticed).
    public var timestamp: Timestamp
    /// The fence's slot in the tracker's ``FenceSet``.
    public var slot: Int32
    /// The fence's id.
    public var geofenceID: String
    /// The fix that produced the event; for an event that fell due between fixes, the last
    /// fix at or before its timestamp.
    public var latitude: Double
    public var longitude: Double

    public init(type: EventType, timestamp: Timestamp, slot: Int32, geofenceID: String, latitude: Double, longitude: Double) {
        self.type = type
        self.timestamp = timestamp
        self.slot = slot
        self.geofenceID = geofenceID
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The fence in `fenceSet` (the tracker's set).
    public func fence(in fenceSet: FenceSet) -> Fence { fenceSet.fence(at: Int(slot)) }

    /// The order of events within one tracker call: timestamp, then fence id (slot order is
    /// id order), then type (entrance, dwell, venueConfirmed, exit, presence).
    @inlinable
    public static func precedes(_ a: GeofenceEvent, _ b: GeofenceEvent) -> Bool {
        if a.timestamp != b.timestamp { return a.timestamp < b.timestamp }
        if a.slot != b.slot { return a.slot < b.slot }
        return a.type < b.type
    }

    public var description: String {
        "\(type.name) \(geofenceID) at \(timestamp.milliseconds) ms (\(latitude), \(longitude))"
    }
}

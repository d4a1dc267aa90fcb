/// One event of one device at one fence (semantics §4, §5).
///
/// An event names its fence by id and carries the fence's radius, level and pass-through
/// properties as they were when the event happened: after a fence update, events carry the
/// new values, and the exit a removed fence causes carries the removed fence's
/// (``reason`` is then ``Reason/fenceRemoved``). Its `Codable` form is the CLI's event line:
/// `eventType, timestamp (ms), deviceId (when set), geofenceId, lat, lng, radius, level (when
/// the fence has one), geofenceProperties, reason (only on a removal exit)`.
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

    /// Why an event happened when it is not a fix or the passing of time.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// An exit because a fence update removed the fence while the device was reported
        /// inside it.
        case fenceRemoved
    }

    // `type`, `reason` and `slot` are stored first, side by side, so that an event packs
    // into 56 bytes: events are copied and sorted on the batch's hot path.
    public var type: EventType
    /// Set on the exit a fence update causes (``Reason/fenceRemoved``); nil otherwise.
    public var reason: Reason?
    /// The fence's slot in the set the event was made under (for a removal exit, the set
    /// before the update); -1 for an event made without a set (decoded, or a removal exit
    /// found while restoring a snapshot).
    package var slot: Int32
    /// When the event happened: the fix's time, or for an event that fell due between fixes
    /// its due time (never the time it was noticed); a removal exit's is the update's time.
    public var timestamp: Timestamp
    /// The fix that produced the event; for an event that fell due between fixes (or a
    /// removal exit), the last fix at or before its timestamp.
    public var latitude: Double
    public var longitude: Double
    /// The device's id, when the producer knows it (a decoded event line, a server); a
    /// ``DeviceTracker`` does not, and leaves it nil.
    public var deviceID: String? {
        get { source?.deviceID }
        set { source = EventSource(geofenceID: geofenceID, fenceSet: fenceSet, detached: detached, deviceID: newValue) }
    }

    /// The fence's id (empty in the batch path, which writes events by slot).
    public var geofenceID: String {
        get { source?.geofenceID ?? "" }
        set { source = EventSource(geofenceID: newValue, fenceSet: fenceSet, detached: detached, deviceID: deviceID) }
    }

    /// The fence's id, where its radius, level and properties are read (the set, by `slot`,
    /// or a copy of them when there is no set), and the device id: one reference, shared by
    /// every event of one fence a context makes, and nil in the batch path, which writes
    /// events from the set's rendered fragments by slot. An event stays 40 bytes with one
    /// reference, cheap to copy and sort (a `String` id and a second reference beside it cost
    /// the batch 15 % of its CPU in copies, retains and releases).
    package var source: EventSource?
    package var fenceSet: FenceSet? { source?.fenceSet }
    var detached: DetachedFence? { source?.detached }

    /// An event with the fence's attributes given (a removal exit restored from a snapshot,
    /// a decoded line, a test).
    public init(
        type: EventType, timestamp: Timestamp, geofenceID: String, latitude: Double, longitude: Double,
        radius: Double, level: Int? = nil, properties: JSONObject = JSONObject(), reason: Reason? = nil, deviceID: String? = nil
    ) {
        self.init(
            type: type, timestamp: timestamp, slot: -1, latitude: latitude, longitude: longitude,
            source: EventSource(
                geofenceID: geofenceID, fenceSet: nil, detached: DetachedFence(radius: radius, level: level, properties: properties),
                deviceID: deviceID))
        self.reason = reason
    }

    /// An event of the fence in `slot`, its attributes read through `source` (nil: the batch
    /// path, see ``source``).
    package init(
        type: EventType, timestamp: Timestamp, slot: Int32, latitude: Double, longitude: Double, source: EventSource?
    ) {
        self.type = type
        self.timestamp = timestamp
        self.slot = slot
        self.latitude = latitude
        self.longitude = longitude
        self.source = source
    }

    /// The fence's radius in metres (a polygon's: its minimum enclosing circle's).
    public var radius: Double {
        if let fenceSet, slot >= 0 { return fenceSet.radius(at: Int(slot)) }
        return detached?.radius ?? 0
    }

    /// The fence's level, or nil for a global fence.
    public var level: Int? {
        if let fenceSet, slot >= 0 { return fenceSet.level(at: Int(slot)) }
        return detached?.level
    }

    /// The fence's pass-through properties.
    public var properties: JSONObject {
        if let fenceSet, slot >= 0 { return fenceSet.properties(at: Int(slot)) }
        return detached?.properties ?? JSONObject()
    }

    /// The fence in `fenceSet`, looked up by id; nil when the set has no such fence (a
    /// removed fence's exit).
    public func fence(in fenceSet: FenceSet) -> Fence? { fenceSet[geofenceID: geofenceID] }

    /// The order of events within one tracker call: timestamp, then fence id, then type
    /// (entrance, dwell, venueConfirmed, exit, presence).
    public static func precedes(_ a: GeofenceEvent, _ b: GeofenceEvent) -> Bool {
        if a.timestamp != b.timestamp { return a.timestamp < b.timestamp }
        if a.slot != b.slot || a.slot < 0 { return a.slot >= 0 && b.slot >= 0 ? a.slot < b.slot : fenceIDPrecedes(a.geofenceID, b.geofenceID) }
        return a.type < b.type
    }

    /// Events are equal when they say the same: type, time, fence id, position, reason and
    /// device id (not where the fence's attributes are read from).
    public static func == (a: GeofenceEvent, b: GeofenceEvent) -> Bool {
        a.type == b.type && a.timestamp == b.timestamp && a.geofenceID == b.geofenceID && a.latitude == b.latitude
            && a.longitude == b.longitude && a.reason == b.reason && a.deviceID == b.deviceID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(timestamp)
        hasher.combine(geofenceID)
        hasher.combine(reason)
    }

    public var description: String {
        "\(type.name) \(geofenceID) at \(timestamp.milliseconds) ms (\(latitude), \(longitude))"
            + (reason.map { " (\($0.rawValue))" } ?? "")
    }
}

extension GeofenceEvent {
    /// An event named by its fence id alone (tests' reference trackers).
    package init(type: EventType, timestamp: Timestamp, slot: Int32, geofenceID: String, latitude: Double, longitude: Double) {
        self.init(
            type: type, timestamp: timestamp, slot: slot, latitude: latitude, longitude: longitude,
            source: EventSource(geofenceID: geofenceID, fenceSet: nil))
    }
}

/// Where events read their fence's id and attributes, and their device id.
package final class EventSource: Sendable {
    let geofenceID: String
    let fenceSet: FenceSet?
    let detached: DetachedFence?
    let deviceID: String?

    package init(geofenceID: String, fenceSet: FenceSet?, detached: DetachedFence? = nil, deviceID: String? = nil) {
        self.geofenceID = geofenceID
        self.fenceSet = fenceSet
        self.detached = detached
        self.deviceID = deviceID
    }
}

/// A fence's attributes held by an event made without its set.
package final class DetachedFence: Sendable {
    let radius: Double
    let level: Int?
    let properties: JSONObject

    init(radius: Double, level: Int?, properties: JSONObject) {
        self.radius = radius
        self.level = level
        self.properties = properties
    }
}

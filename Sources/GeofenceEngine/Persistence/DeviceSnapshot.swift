/// A snapshot type with a format version, as ``SnapshotStore`` writes and reads them.
public protocol VersionedSnapshot: Codable, Sendable {
    /// The version this build writes and reads.
    static var currentVersion: Int { get }
    /// A short name of what the snapshot holds (`device`, `fleet`), checked on reading.
    static var kind: String { get }
    /// The version the value was written with.
    var version: Int { get }
    /// The oldest version this build still reads (the current one unless said otherwise).
    static var oldestReadableVersion: Int { get }
}

extension VersionedSnapshot {
    public static var oldestReadableVersion: Int { currentVersion }
}

/// One device's tracker state, by fence id (so it does not depend on slot numbers), as a
/// plain Codable value. The configuration and the fence set are not in it: the caller gives
/// them when restoring (``DeviceTracker/init(restoring:context:)``).
///
/// Times are epoch milliseconds.
public struct DeviceSnapshot: VersionedSnapshot, Hashable {
    /// Version 2 adds each fence's fingerprint, radius, level and properties (version 1
    /// snapshots are still read: their fences count as unchanged, and a removal exit from
    /// one carries radius 0 and no properties).
    public static let currentVersion = 2
    public static let oldestReadableVersion = 1
    public static let kind = "device"

    /// A fix as stored.
    public struct FixRecord: Codable, Hashable, Sendable {
        public var timestamp: Int64
        public var latitude: Double
        public var longitude: Double
        public var accuracy: Double?
        public var level: Int?
    }

    /// The state at one fence (see the tracker's documentation for the meaning).
    public struct FenceRecord: Codable, Hashable, Sendable {
        public var geofenceID: String
        public var raw: Bool
        public var reported: Bool
        public var lastFlip: Int64
        /// End of the quiet window (exclusive); nil when no event has opened one.
        public var windowEnd: Int64?
        public var visitStart: Int64
        /// Sequence number of the visit's first fix (see `fixCount`).
        public var visitFirstFix: Int64
        public var dwellDone: Bool
        public var venueDone: Bool
        public var lastPresence: Int64
        /// The fence's ``FenceSet/fingerprint(at:)`` when the snapshot was taken (nil in
        /// version 1): restoring onto a set where it differs counts the fence as changed.
        public var fingerprint: UInt64?
        /// The fence's radius, level and properties when the snapshot was taken: what the
        /// exit carries if the fence is gone when the snapshot is restored.
        public var radius: Double?
        public var level: Int?
        public var properties: JSONObject?

        /// The JSON keys (the fence id is `id`, as in snapshots of version 1).
        enum CodingKeys: String, CodingKey {
            case geofenceID = "id"
            case raw, reported, lastFlip, windowEnd, visitStart, visitFirstFix, dwellDone, venueDone, lastPresence
            case fingerprint, radius, level, properties
        }
    }

    /// A fix kept for stop detection.
    public struct StopRecord: Codable, Hashable, Sendable {
        public var sequence: Int64
        public var timestamp: Int64
        public var latitude: Double
        public var longitude: Double
    }

    /// An entered fence of the Places states.
    public struct EnteredRecord: Codable, Hashable, Sendable {
        public var geofenceID: String
        public var since: Int64

        enum CodingKeys: String, CodingKey {
            case geofenceID = "id"
            case since
        }
    }

    /// The Places states.
    public struct PlacesRecord: Codable, Hashable, Sendable {
        public var entered: [EnteredRecord]
        public var current: String?
        public var lastEntered: String?
        public var lastExited: String?
        public var lastUpdate: Int64?
    }

    public var version: Int
    /// Time of the latest accepted input.
    public var latestTime: Int64?
    /// Accepted fixes so far (fixes are numbered from 0 in acceptance order).
    public var fixCount: Int64
    public var lastFix: FixRecord?
    /// Ascending by id.
    public var fences: [FenceRecord]
    public var stopHistory: [StopRecord]
    public var places: PlacesRecord
}

/// Many devices' states, keyed by device id.
public struct FleetSnapshot: VersionedSnapshot, Hashable {
    /// Version 2 holds version 2 device snapshots; version 1 is still read.
    public static let currentVersion = 2
    public static let oldestReadableVersion = 1
    public static let kind = "fleet"

    public var version: Int
    public var devices: [String: DeviceSnapshot]

    public init(devices: [String: DeviceSnapshot]) {
        version = Self.currentVersion
        self.devices = devices
    }
}

/// Why a snapshot could not be written, read or restored; names the file when there is one.
public struct SnapshotError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the snapshot file.
    public enum Problem: Hashable, Sendable {
        /// The file's version is not the one this build reads.
        case wrongVersion(found: Int, expected: Int)
        /// The file ends early (a torn or partial write).
        case truncated(String)
        /// The file is damaged or not a snapshot of the expected kind.
        case corrupt(String)
        /// The file cannot be read or written.
        case io(String)
    }

    public var path: String?
    public var problem: Problem

    public init(path: String?, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        let what: String
        switch problem {
        case .wrongVersion(let found, let expected):
            what = "snapshot version \(found) is not supported (this build reads version \(expected))"
        case .truncated(let detail): what = "snapshot is truncated: \(detail)"
        case .corrupt(let detail): what = "snapshot is corrupt: \(detail)"
        case .io(let detail): what = detail
        }
        return path.map { "\($0): \(what)" } ?? what
    }
}

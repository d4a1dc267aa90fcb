/// What the OS's region monitoring delivers for one device: an entry into or an exit from
/// a registered fence, named by id, at a time (semantics §6).
public struct RegionSignal: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, Codable {
        case entry, exit
    }

    public var kind: Kind
    public var fenceID: String
    public var timestamp: Timestamp

    public init(_ kind: Kind, fenceID: String, at timestamp: Timestamp) {
        self.kind = kind
        self.fenceID = fenceID
        self.timestamp = timestamp
    }

    public static func entry(_ fenceID: String, at timestamp: Timestamp) -> RegionSignal {
        RegionSignal(.entry, fenceID: fenceID, at: timestamp)
    }

    public static func exit(_ fenceID: String, at timestamp: Timestamp) -> RegionSignal {
        RegionSignal(.exit, fenceID: fenceID, at: timestamp)
    }
}

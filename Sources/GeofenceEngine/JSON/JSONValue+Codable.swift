/// JSON values through `Codable`, so that values holding fence properties (events,
/// snapshots) encode with any encoder. Numbers that are integers in range encode as
/// integers, the others as doubles; objects keep their members' order when encoding.
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: JSONKey.self) {
            self = .object(try JSONObject(keyed))
            return
        }
        if var list = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !list.isAtEnd { values.append(try list.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? single.decode(Double.self) {
            guard let number = JSONValue.double(value) else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription: "a number that is not finite")
            }
            self = number
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let object):
            try object.encode(to: encoder)
        case .array(let values):
            var list = encoder.unkeyedContainer()
            for value in values { try list.encode(value) }
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let text):
            var single = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try single.encode(integer)
            } else {
                try single.encode(JSONNumber.parse(text) ?? 0)
            }
        }
    }
}

extension JSONObject: Codable {
    public init(from decoder: any Decoder) throws {
        self = try JSONObject(decoder.container(keyedBy: JSONKey.self))
    }

    init(_ container: KeyedDecodingContainer<JSONKey>) throws {
        self.init(members: try container.allKeys.map { Member(key: $0.stringValue, value: try container.decode(JSONValue.self, forKey: $0)) })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        for member in members { try container.encode(member.value, forKey: JSONKey(member.key)) }
    }
}

/// Any string as a coding key (JSON object members, event fields).
struct JSONKey: CodingKey {
    let stringValue: String
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

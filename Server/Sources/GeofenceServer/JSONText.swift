import GeofenceEngine

/// Writes JSON text the same way in every process: strings escaped as RFC 8259 asks, numbers
/// as Swift's shortest round-trip form, objects in their members' order.
enum JSONText {
    static func appendString(_ string: String, to out: inout String) {
        out.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }

    /// A finite number; an integer value is written without a fraction (`50`, not `50.0`),
    /// as the CLI writes radii. A non-finite number, which JSON cannot hold, becomes null.
    static func appendNumber(_ value: Double, to out: inout String) {
        guard value.isFinite else { out.append("null"); return }
        if value == value.rounded(), abs(value) < 1e15 {
            out.append(String(Int64(value)))
        } else {
            out.append(value.description)
        }
    }

    static func appendValue(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out.append("null")
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .number(let text): out.append(text)
        case .string(let text): appendString(text, to: &out)
        case .array(let values):
            out.append("[")
            for (k, element) in values.enumerated() {
                if k > 0 { out.append(",") }
                appendValue(element, to: &out)
            }
            out.append("]")
        case .object(let object):
            out.append("{")
            for (k, member) in object.members.enumerated() {
                if k > 0 { out.append(",") }
                appendString(member.key, to: &out)
                out.append(":")
                appendValue(member.value, to: &out)
            }
            out.append("}")
        }
    }
}

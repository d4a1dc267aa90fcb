/// Compact JSON text for values, written the way the engine's NDJSON outputs need it.
package enum JSONWriter {
    /// Appends the compact text of `value` to `out`.
    ///
    /// - Complexity: O(n) in the size of the text.
    package static func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(e, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, m) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(m.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The compact text of `value`.
    package static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `s` as a JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else as UTF-8.
    package static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(bytes: $0, to: &out) }
    }

    /// Appends UTF-8 bytes as a JSON string literal (see ``writeString(_:to:)``).
    package static func writeString(bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `s` as a JSON string literal.
    package static func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        writeString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// What `geofence contains` writes (see ``ContainsRun``).
///
/// - `ndjson`: a line per data row, `{"row":N,"geofenceIds":[...]}` or `{"row":N,"error":"..."}`.
/// - `csv`: the answers as pairs, the shape a spatial join gives (DuckDB's `COPY`, a
///   data-frame's join): a header `row,geofenceId,error`, then a line `N,<id>,` per fence that
///   contains row N (ids ascending within a row), nothing for a row no fence contains, and
///   `N,,<reason>: line L: ...` for a rejected row. Fields are quoted as RFC 4180 asks (a
///   comma, a quote or a line break inside). A million fixes with few answers write a few
///   megabytes where the NDJSON writes a line per row.
package enum ContainsFormat: String, CaseIterable, Sendable {
    case ndjson
    case csv

    /// What goes before the first row's output.
    var header: StaticString {
        switch self {
        case .ndjson: ""
        case .csv: "row,geofenceId,error\n"
        }
    }

    /// Every fence's id as its output writes it, by slot: a JSON string (quotes included) or a
    /// CSV field (quoted only when it must be).
    func ids(_ set: FenceSet) -> ByteTable {
        var table = ByteTableBuilder()
        for slot in 0..<set.count {
            switch self {
            case .ndjson: table.appendWriting { JSONWriter.writeString(bytes: set.idBytes(at: slot), to: &$0) }
            case .csv: table.appendWriting { CSVText.writeField(set.idBytes(at: slot), to: &$0) }
            }
        }
        return table.frozen()
    }

    /// The output of a rejected row: row `row` (from 1), `text` its reason and message.
    func rejectedRow(_ row: Int, _ text: String) -> [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .ndjson:
            out.append(contentsOf: "{\"row\":\(row),\"error\":".utf8)
            JSONWriter.writeString(text, to: &out)
            out.append(contentsOf: "}\n".utf8)
        case .csv:
            out.append(contentsOf: "\(row),,".utf8)
            var s = text
            s.withUTF8 { CSVText.writeField($0, to: &out) }
            out.append(0x0A)
        }
        return out
    }

    /// The most bytes one answer adds beside its fence's id: a comma in a JSON line; in a CSV
    /// line, the row's number, two commas and the line break.
    var bytesPerAnswer: Int {
        switch self {
        case .ndjson: 1
        case .csv: DecimalText.maximumBytes + 3
        }
    }
}

/// CSV fields as RFC 4180 writes them.
enum CSVText {
    /// Appends `field` to `out`, in double quotes (each quote doubled) when it holds a comma, a
    /// quote or a line break, as it is otherwise.
    /// - Complexity: O(field's bytes).
    static func writeField(_ field: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let needsQuotes = field.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return out.append(contentsOf: field) }
        out.append(UInt8(ascii: "\""))
        for byte in field {
            out.append(byte)
            if byte == UInt8(ascii: "\"") { out.append(byte) }
        }
        out.append(UInt8(ascii: "\""))
    }
}

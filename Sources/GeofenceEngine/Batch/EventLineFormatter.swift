/// Writes one event as one NDJSON line, in the batch output's key order:
/// `eventType, timestamp, deviceId, geofenceId, lat, lng, radius, level (when the fence has
/// one), geofenceProperties`.
///
/// The parts that depend only on the fence (id, radius, level, properties) are rendered once
/// per fence, so writing an event costs little more than its two coordinates.
struct EventLineFormatter: Sendable {
    /// Every fragment, back to back: the heads by event type, then by slot the id part and
    /// the tail. One buffer read through a pointer: a fragment costs no reference counting.
    private let text: FrozenBuffer<UInt8>
    /// Fragment `k` is `text[starts[k] ..< starts[k + 1]]`: heads first (one per event type),
    /// then for slot s the id part at `heads + 2s` and the tail at `heads + 2s + 1`.
    private let starts: FrozenBuffer<Int>
    private static let headCount = GeofenceEvent.EventType.allCases.count

    init(fenceSet: FenceSet) {
        var text: [UInt8] = []
        var starts: [Int] = [0]
        for type in GeofenceEvent.EventType.allCases {
            // `{"eventType":"…","timestamp":`
            text.append(contentsOf: #"{"eventType":"\#(type.name)","timestamp":"#.utf8)
            starts.append(text.count)
        }
        for fence in fenceSet.fences {
            // `"geofenceId":"…",`
            text.append(contentsOf: #""geofenceId":"#.utf8)
            JSONWriter.writeString(fence.id, to: &text)
            text.append(UInt8(ascii: ","))
            starts.append(text.count)
            // `,"radius":…[,"level":…],"geofenceProperties":{…}}` and the line break
            text.append(contentsOf: #","radius":"#.utf8)
            JSONNumber.write(fence.radius, to: &text)
            if let level = fence.level { text.append(contentsOf: #","level":\#(level)"#.utf8) }
            text.append(contentsOf: #","geofenceProperties":"#.utf8)
            JSONWriter.write(.object(fence.properties), to: &text)
            text.append(contentsOf: "}\n".utf8)
            starts.append(text.count)
        }
        self.text = FrozenBuffer(text)
        self.starts = FrozenBuffer(starts)
    }

    /// `"deviceId":"…",` for a device id; render once per device.
    static func deviceFragment(_ id: String) -> [UInt8] {
        var out: [UInt8] = Array(#""deviceId":"#.utf8)
        JSONWriter.writeString(id, to: &out)
        out.append(UInt8(ascii: ","))
        return out
    }

    @inline(__always)
    private func append(fragment k: Int, to out: inout [UInt8]) {
        let from = starts.pointer[k], to = starts.pointer[k &+ 1]
        out.append(contentsOf: UnsafeBufferPointer(start: text.pointer + from, count: to &- from))
    }

    /// Appends one event line.
    ///
    /// Numbers are written straight into `out` (``JSONNumber/write(_:to:)``), and the fence's
    /// and event type's fragments copied from the one buffer.
    func append(
        type: GeofenceEvent.EventType, timestamp: Int64, device: UnsafeBufferPointer<UInt8>, slot: Int,
        latitude: Double, longitude: Double, to out: inout [UInt8]
    ) {
        append(fragment: Int(type.rawValue), to: &out)
        JSONNumber.write(timestamp, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: device)
        append(fragment: Self.headCount &+ 2 &* slot, to: &out)
        out.append(contentsOf: #""lat":"#.utf8)
        JSONNumber.write(latitude, to: &out)
        out.append(contentsOf: #","lng":"#.utf8)
        JSONNumber.write(longitude, to: &out)
        append(fragment: Self.headCount &+ 2 &* slot &+ 1, to: &out)
    }
}

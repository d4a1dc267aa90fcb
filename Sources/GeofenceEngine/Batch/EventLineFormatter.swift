/// Writes one event as one NDJSON line, in the batch output's key order:
/// `eventType, timestamp, deviceId, geofenceId, lat, lng, radius, level (when the fence has
/// one), geofenceProperties`.
///
/// The parts that depend only on the fence (id, radius, level, properties) are rendered once
/// per fence, so writing an event costs little more than its two coordinates.
struct EventLineFormatter: Sendable {
    /// `"geofenceId":"…",` by slot.
    private let fenceIDs: [[UInt8]]
    /// `,"radius":…[,"level":…],"geofenceProperties":{…}}` + newline, by slot.
    private let fenceTails: [[UInt8]]

    init(fenceSet: FenceSet) {
        var ids: [[UInt8]] = []
        var tails: [[UInt8]] = []
        ids.reserveCapacity(fenceSet.count)
        tails.reserveCapacity(fenceSet.count)
        for fence in fenceSet.fences {
            var id: [UInt8] = Array(#""geofenceId":"#.utf8)
            JSONWriter.writeString(fence.id, to: &id)
            id.append(UInt8(ascii: ","))
            ids.append(id)
            var tail: [UInt8] = Array(#","radius":"#.utf8)
            tail.append(contentsOf: JSONNumber.text(fence.radius).utf8)
            if let level = fence.level { tail.append(contentsOf: #","level":\#(level)"#.utf8) }
            tail.append(contentsOf: #","geofenceProperties":"#.utf8)
            JSONWriter.write(.object(fence.properties), to: &tail)
            tail.append(contentsOf: "}\n".utf8)
            tails.append(tail)
        }
        fenceIDs = ids
        fenceTails = tails
    }

    /// `"deviceId":"…",` for a device id; render once per device.
    static func deviceFragment(_ id: String) -> [UInt8] {
        var out: [UInt8] = Array(#""deviceId":"#.utf8)
        JSONWriter.writeString(id, to: &out)
        out.append(UInt8(ascii: ","))
        return out
    }

    /// Appends one event line.
    func append(
        type: String, timestamp: Int64, device: [UInt8], slot: Int, latitude: Double, longitude: Double,
        to out: inout [UInt8]
    ) {
        out.append(contentsOf: #"{"eventType":""#.utf8)
        out.append(contentsOf: type.utf8)
        out.append(contentsOf: #"","timestamp":"#.utf8)
        out.append(contentsOf: String(timestamp).utf8)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: device)
        out.append(contentsOf: fenceIDs[slot])
        out.append(contentsOf: #""lat":"#.utf8)
        out.append(contentsOf: JSONNumber.text(latitude).utf8)
        out.append(contentsOf: #","lng":"#.utf8)
        out.append(contentsOf: JSONNumber.text(longitude).utf8)
        out.append(contentsOf: fenceTails[slot])
    }
}

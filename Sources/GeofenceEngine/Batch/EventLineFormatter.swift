/// Writes one event as one NDJSON line, in the batch output's key order:
/// `eventType, timestamp, deviceId, geofenceId, lat, lng, radius, level (when the fence has
/// one), geofenceProperties`.
///
/// The parts that depend only on the fence (id, radius, level, properties) are rendered once
/// per fence, so writing an event costs little more than its two coordinates.
struct EventLineFormatter: Sendable {
    /// The heads by event type, back to back: `{"eventType":"…","timestamp":`.
    let heads: FrozenBuffer<UInt8>
    let headStarts: FrozenBuffer<Int>
    /// The fence set's fragments (see ``fenceFragments(ids:circles:levels:properties:)``),
    /// read through pointers: a fragment costs no reference counting.
    let fences: ByteTable

    init(fenceSet: FenceSet) {
        var text: [UInt8] = []
        var starts: [Int] = [0]
        for type in GeofenceEvent.EventType.allCases {
            // `{"eventType":"…","timestamp":`
            text.append(contentsOf: #"{"eventType":"\#(type.name)","timestamp":"#.utf8)
            starts.append(text.count)
        }
        heads = FrozenBuffer(text)
        headStarts = FrozenBuffer(starts)
        fenceSet.storage.requireEverything("event lines")
        fences = fenceSet.storage.eventFragments
    }

    /// The parts of an event line that depend only on the fence, rendered once per fence when
    /// a set is built (and stored in compiled fence files, so opening one renders nothing):
    /// for slot s, string 2s is `"geofenceId":"…",` and string 2s + 1 is
    /// `,"radius":…[,"level":…],"geofenceProperties":{…}}` and the line break.
    ///
    /// - Parameters: by slot, the ids, the circles (radius in lane z), the levels
    ///   (`FenceSet.noLevel` for none) and the pass-through properties as compact JSON.
    /// - Complexity: O(n + b) for n fences and b bytes of ids and properties.
    static func fenceFragments(
        ids: ByteTable, circles: FrozenBuffer<SIMD4<Double>>, levels: FrozenBuffer<Int>, properties: ByteTable
    ) -> ByteTable {
        // Each fragment is written in a small reused array, then appended to the table's
        // memory, reserved for the usual size up front: the table is written once, where
        // building it as a Swift array wrote it about three times (growth, then the copy
        // into the set's buffer) and faulted in as many pages.
        let n = ids.count
        let bytes = ScratchArray<UInt8>(capacity: ids.bytes.count + properties.bytes.count + 96 * n)
        let offsets = ScratchArray<UInt64>(capacity: 2 * n + 1)
        offsets.append(0)
        var text: [UInt8] = []
        text.reserveCapacity(256)
        func commit() {
            text.withUnsafeBufferPointer { bytes.append($0.baseAddress!, count: $0.count) }
            offsets.append(UInt64(bytes.count))
            text.removeAll(keepingCapacity: true)
        }
        for slot in 0..<n {
            text.append(contentsOf: #""geofenceId":"#.utf8)
            JSONWriter.writeString(bytes: ids[slot], to: &text)
            text.append(UInt8(ascii: ","))
            commit()
            text.append(contentsOf: #","radius":"#.utf8)
            JSONNumber.write(circles[slot].z, to: &text)
            if levels[slot] != FenceSet.noLevel {
                text.append(contentsOf: #","level":"#.utf8)
                JSONNumber.write(Int64(levels[slot]), to: &text)
            }
            text.append(contentsOf: #","geofenceProperties":"#.utf8)
            text.append(contentsOf: properties[slot])
            text.append(contentsOf: "}\n".utf8)
            commit()
        }
        return ByteTable(bytes: bytes.frozen(), offsets: offsets.frozen())
    }

    /// `"deviceId":"…",` for a device id; render once per device.
    static func deviceFragment(_ id: String) -> [UInt8] {
        var out: [UInt8] = Array(#""deviceId":"#.utf8)
        JSONWriter.writeString(id, to: &out)
        out.append(UInt8(ascii: ","))
        return out
    }
}

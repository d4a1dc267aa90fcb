@testable import GeofenceEngine

extension EventLineFormatter {
    /// The obvious event line writer, the twin of the batch's pointer writer
    /// (``EventLineFormatter/write(type:timestamp:device:slot:latitude:longitude:text:to:)``):
    /// the head, the time, the device, the fence's first fragment, the coordinates and its
    /// second fragment, appended one after the other.
    func append(
        type: GeofenceEvent.EventType, timestamp: Int64, device: UnsafeBufferPointer<UInt8>, slot: Int,
        latitude: Double, longitude: Double, to out: inout [UInt8]
    ) {
        func fragment(_ k: Int) {
            let from = Int(fences.offsets.pointer[k]), to = Int(fences.offsets.pointer[k + 1])
            out.append(contentsOf: UnsafeBufferPointer(start: fences.bytes.pointer + from, count: to - from))
        }
        let head = Int(type.rawValue), from = headStarts.pointer[head], to = headStarts.pointer[head + 1]
        out.append(contentsOf: UnsafeBufferPointer(start: heads.pointer + from, count: to - from))
        JSONNumber.write(timestamp, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: device)
        fragment(2 * slot)
        out.append(contentsOf: #""lat":"#.utf8)
        JSONNumber.write(latitude, to: &out)
        out.append(contentsOf: #","lng":"#.utf8)
        JSONNumber.write(longitude, to: &out)
        fragment(2 * slot + 1)
    }

    /// ``append(type:timestamp:device:slot:latitude:longitude:to:)`` with the device fragment
    /// as an array.
    func append(
        type: GeofenceEvent.EventType, timestamp: Int64, device: [UInt8], slot: Int, latitude: Double,
        longitude: Double, to out: inout [UInt8]
    ) {
        device.withUnsafeBufferPointer {
            append(type: type, timestamp: timestamp, device: $0, slot: slot, latitude: latitude, longitude: longitude, to: &out)
        }
    }
}

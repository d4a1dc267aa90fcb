import GeofenceGeometry
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

@Suite("Event line formatter")
struct EventLineFormatterTests {
    /// The JSON number rule written out independently: an integer below 10^15 without a
    /// fraction, anything else as Swift describes the double.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// The slow, obvious twin of ``EventLineFormatter/append``: the line built by string
    /// interpolation from `String(Int64)` and ``number(_:)``.
    static func expectedLine(
        _ type: GeofenceEvent.EventType, _ timestamp: Int64, device: String, fence: Fence, latitude: Double, longitude: Double
    ) -> String {
        var line = #"{"eventType":"\#(type.name)","timestamp":\#(String(timestamp)),"deviceId":\#(JSONWriter.quoted(device)),"#
        line += #""geofenceId":\#(JSONWriter.quoted(fence.geofenceID)),"lat":\#(number(latitude)),"lng":\#(number(longitude)),"#
        line += #""radius":\#(number(fence.radius)),"#
        if let level = fence.level { line += #""level":\#(level),"# }
        line += #""geofenceProperties":\#(JSONWriter.string(.object(fence.properties)))}"# + "\n"
        return line
    }

    @Test("JSON number text equals its independent twin", arguments: testSeeds(3))
    func numberText(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let fixed: [Double] = [0, -0.0, 1, -1, 1e15, -1e15, 999_999_999_999_999, 1e-7, Double.leastNonzeroMagnitude, .infinity, -.infinity, 40.8693766]
        for k in 0..<5_000 {
            let value = k < fixed.count ? fixed[k] : rng.chance(0.3) ? Double(rng.int(-1_000_000...1_000_000)) : Double(bitPattern: rng.next())
            // NaN has no JSON form (JSONValue refuses it); its text is just "nan".
            if value.isNaN { continue }
            #expect(JSONNumber.text(value) == Self.number(value), "seed \(seed): \(value)")
        }
    }

    @Test("lines equal the interpolated twin over random numbers")
    func equalsTwin() throws {
        let fences = [
            Fence(geofenceID: "c\"1", shape: .circle(center: Coordinate(latitude: 1, longitude: 2), radius: 75.25), properties: JSONObject(members: [.init(key: "k", value: .string("v"))])),
            Fence(geofenceID: "c2", shape: .circle(center: Coordinate(latitude: -3, longitude: 4), radius: 100), level: -2),
        ]
        let set = try FenceSet(fences)
        let formatter = EventLineFormatter(fenceSet: set)
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<2_000 {
                let type = GeofenceEvent.EventType.allCases[rng.int(0...4)]
                let timestamp: Int64 =
                    switch rng.int(0...4) {
                    case 0: [0, 1, -1, 9, 10, Int64.max, Int64.min, 999_999_999_999_999_999][rng.int(0...7)]
                    case 1: Int64(rng.int(-1_000_000...1_000_000))
                    default: Int64(bitPattern: rng.next()) >> rng.int(0...63)
                    }
                func coordinate(_ limit: Double) -> Double {
                    switch rng.int(0...5) {
                    case 0: return Double(rng.int(-180...180))  // integral: written without a fraction
                    case 1: return (rng.double(-limit...limit) * 1e7).rounded() / 1e7  // 7 decimals, as GPS files
                    case 2: return [0.0, -0.0, 1e-5, -1e-7, 1e15, 1.5e15, Double.leastNonzeroMagnitude][rng.int(0...6)]
                    default: return rng.double(-limit...limit)
                    }
                }
                let latitude = coordinate(90), longitude = coordinate(180)
                let slot = rng.int(0...1)
                let device = "dev-\(rng.int(0...99))"
                var out: [UInt8] = []
                formatter.append(
                    type: type, timestamp: timestamp, device: EventLineFormatter.deviceFragment(device), slot: slot,
                    latitude: latitude, longitude: longitude, to: &out)
                let expected = Self.expectedLine(
                    type, timestamp, device: device, fence: set.fences[slot], latitude: latitude, longitude: longitude)
                #expect(String(decoding: out, as: UTF8.self) == expected, "seed \(seed): \(timestamp) \(latitude) \(longitude)")
            }
        }
    }

    /// The batch's pointer writer against ``EventLineFormatter/append``, one device's lines
    /// into one buffer grown from one byte: coordinates that repeat, return after others, or
    /// differ only in sign or last bit (the reused text must be the number's own).
    @Test("the pointer writer's lines equal append's", arguments: testSeeds(sized(full: 3, quick: 1)))
    func pointerWriterEqualsAppend(seed: UInt64) throws {
        let fences = [
            Fence(geofenceID: "a", shape: .circle(center: Coordinate(latitude: 1, longitude: 2), radius: 75.25), properties: JSONObject(members: [.init(key: "k", value: .string("v\u{1F600}"))])),
            Fence(geofenceID: String(repeating: "long id ", count: 40), shape: .circle(center: Coordinate(latitude: -3, longitude: 4), radius: 100), level: 7),
        ]
        let set = try FenceSet(fences)
        let formatter = EventLineFormatter(fenceSet: set)
        var rng = SplitMix64(seed: seed)
        let pool: [Double] = [0, -0.0, 1, -1, 30.2672, 30.2672.nextUp, -97.7431, 1e15, 999_999_999_999_999.9, Double.leastNonzeroMagnitude, -1.2345678901234567e-300]
        for _ in 0..<40 {
            let device = EventLineFormatter.deviceFragment(rng.chance(0.5) ? "d\(rng.int(0...9))" : String(repeating: "\"x\"", count: rng.int(1...300)))
            let lines = ScratchArray<UInt8>(capacity: 1)
            var text = EventLineFormatter.CoordinateText()
            var expected: [UInt8] = []
            var latitude = 0.0, longitude = 0.0
            for _ in 0..<rng.int(0...400) {
                func next(_ current: Double, _ limit: Double) -> Double {
                    switch rng.int(0...5) {
                    case 0, 1: return current  // the same fix
                    case 2: return pool[rng.int(0...pool.count - 1)]
                    case 3: return Double(rng.int(-180...180))
                    default: return rng.double(-limit...limit)
                    }
                }
                latitude = next(latitude, 90)
                longitude = next(longitude, 180)
                let type = GeofenceEvent.EventType.allCases[rng.int(0...4)]
                let timestamp = rng.chance(0.1) ? [Int64.min, Int64.max, 0, -1][rng.int(0...3)] : Int64(bitPattern: rng.next()) >> rng.int(1...63)
                let slot = rng.int(0...1)
                device.withUnsafeBufferPointer { d in
                    formatter.write(
                        type: type, timestamp: timestamp, device: d, slot: slot, latitude: latitude, longitude: longitude, text: &text,
                        to: lines)
                    formatter.append(
                        type: type, timestamp: timestamp, device: d, slot: slot, latitude: latitude, longitude: longitude, to: &expected)
                }
            }
            let written = Array(UnsafeBufferPointer(start: lines.base, count: lines.count))
            let differs = (0..<Swift.min(written.count, expected.count)).first { written[$0] != expected[$0] } ?? Swift.min(written.count, expected.count)
            #expect(written == expected, "seed \(seed): \(written.count) bytes against \(expected.count), first difference at \(differs)")
        }
    }
}

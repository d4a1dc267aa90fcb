@testable import GeofenceEngine
import GeofenceTestSupport
import Testing

/// The straight path for the usual layout (`device_id,timestamp,lat,lon`) against its slow
/// twin, the field-by-role loop every other layout takes: on seeded random files of plain and
/// odd rows, at every line, with the rest of the file readable after the line (as in a
/// block) and with the line's own end as the limit, both must return the same index (or both
/// nil) and set the same fields, bit for bit.
@Suite("Usual-layout rows")
struct UsualRowParsingTests {
    /// A random field of `kind` (0 device, 1 timestamp, 2 latitude, 3 longitude), usually
    /// plain, sometimes in a form the one-pass parsers leave to the full parser.
    static func field(_ kind: Int, _ rng: inout SplitMix64) -> String {
        if rng.chance(0.08) {
            let odd = ["", " ", "\"", "\"a,b\"", "1e3", "-1E-2", "+7", ".5", "5.", "-", "nan", "0x1", "\r", "12345678901234567890",
                       "2016-11-24T06:00:00Z", "0.000000000000000000001", "9007199254740993", "1.7976931348623157e309"]
            return odd[rng.int(0...(odd.count - 1))]
        }
        switch kind {
        case 0:
            let length = rng.int(1...20)
            return String((0..<length).map { _ in Character(UnicodeScalar(UInt8(rng.int(0x61...0x7A)))) })
        case 1:
            let digits = rng.int(1...19)
            let text = String((0..<digits).map { _ in Character(String(rng.int(0...9))) })
            return (rng.chance(0.1) ? "-" : "") + text
        default:
            let sign = rng.chance(0.4) ? "-" : ""
            let whole = String((0..<rng.int(0...4)).map { _ in Character(String(rng.int(0...9))) })
            let fraction = String((0..<rng.int(0...17)).map { _ in Character(String(rng.int(0...9))) })
            return sign + whole + (rng.chance(0.85) ? "." + fraction : "")
        }
    }

    @Test("the usual layout's straight path agrees with the field-by-role loop")
    func usualPathMatchesRoleLoop() throws {
        let header = try Array("device_id,timestamp,lat,lon".utf8).withUnsafeBytes { try FixCSVHeader(line: $0) }
        #expect(header.isUsualLayout)
        for other in ["device_id,timestamp,lon,lat", "device_id,timestamp,lat,lon,accuracy", "timestamp,device_id,lat,lon", "x,device_id,timestamp,lat,lon"] {
            let layout = try Array(other.utf8).withUnsafeBytes { try FixCSVHeader(line: $0) }
            #expect(!layout.isUsualLayout, "\(other)")
        }
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            var text = ""
            for _ in 0..<4_000 {
                var fields = (0..<4).map { Self.field($0, &rng) }
                if rng.chance(0.03) { fields.append(Self.field(rng.int(0...3), &rng)) }  // a field too many
                if rng.chance(0.03) { fields.removeLast() }  // or too few
                text += fields.joined(separator: ",") + ["\n", "\r\n", "\r", "\n\n"][rng.chance(0.9) ? 0 : rng.int(1...3)]
            }
            let bytes = Array(text.utf8)
            var taken = 0, lines = 0
            bytes.withUnsafeBufferPointer { b in
                let p = b.baseAddress!
                var start = 0
                while start < b.count {
                    let lineEnd = Platform.firstLineBreak(in: p, from: start, to: b.count)
                    for limit in [b.count, Swift.min(b.count, lineEnd + 1), lineEnd] where limit >= start {
                        var fast = FixCSVRow(), slow = FixCSVRow()
                        let fastEnd = fast.parseUsual(p, start, limit: limit)
                        let slowEnd = slow.parseByRoles(p, start, limit: limit, header: header)
                        let line = String(decoding: b[start..<lineEnd], as: UTF8.self)
                        #expect(fastEnd == slowEnd, "seed \(seed), limit \(limit - start): \(line)")
                        guard let fastEnd, fastEnd == slowEnd else { continue }
                        taken += 1
                        #expect(
                            fast.deviceStart == slow.deviceStart && fast.deviceEnd == slow.deviceEnd
                                && fast.deviceQuoted == slow.deviceQuoted && fast.timestamp == slow.timestamp,
                            "seed \(seed): \(line)")
                        #expect(
                            fast.latitude.bitPattern == slow.latitude.bitPattern && fast.longitude.bitPattern == slow.longitude.bitPattern
                                && fast.accuracy.bitPattern == slow.accuracy.bitPattern && fast.level == slow.level,
                            "seed \(seed): \(line)")
                    }
                    lines += 1
                    start = lineEnd + 1
                }
            }
            // Most lines are plain: the straight path must have taken them.
            #expect(taken > lines, "seed \(seed): \(taken) rows taken of \(lines) lines (three limits each)")
        }
    }
}

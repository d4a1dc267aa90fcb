import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// `FixLines`: bodies of fixes read line by line, CSV and NDJSON alike.
@Suite("Fix lines: CSV and NDJSON bodies")
struct FixLinesTests {
    typealias Reason = BatchSummary.RejectionReason

    static func read(_ text: String, _ format: FixLines.Format) throws -> (accepted: [FixLines.Accepted], rejected: [FixLines.Rejected]) {
        try FixLines.read(Array(text.utf8), format: format, name: "body", maximumLineBytes: 200)
    }

    static func reasons(_ rejected: [FixLines.Rejected]) -> [String] { rejected.map { "\($0.line):\($0.reason.rawValue)" } }

    @Test("CSV: the header located as evaluate reads it, each row accepted or refused with its line and reason")
    func csv() throws {
        let body = """
            lat,timestamp,Device_ID,lng,accuracy,level\r
            30.1,1000,a,-97.2,5,2\r

            30.1,2016-11-26T22:17:03Z,"b,""x""\",-97.2,,
            95,1000,c,-97.2,,
            30.1,1000,d,-97.2
            30.1,soon,e,-97.2,,
            30.1,1000,,-97.2,,
            30.1,1000,f,-97.2,-1,
            30.1,1000,g,-97.2,,1.5
            30.1,1000,\(String(repeating: "h", count: 300)),-97.2,,
            30.1,3000,a,-97.3,,
            """
        let (accepted, rejected) = try Self.read(body, .csv)
        #expect(accepted.map(\.line) == [2, 4, 12])
        #expect(accepted.map(\.deviceID) == ["a", "b,\"x\"", "a"])
        #expect(accepted[0].fix == Fix(timestamp: Timestamp(milliseconds: 1000), latitude: 30.1, longitude: -97.2, accuracy: 5, level: 2))
        #expect(accepted[1].fix.timestamp.milliseconds == 1_480_198_623_000 && accepted[1].fix.accuracy == nil && accepted[1].fix.level == nil)
        #expect(Self.reasons(rejected) == ["5:coordinate", "6:parse", "7:parse", "8:parse", "9:parse", "10:parse", "11:lineLength"])
        #expect(rejected[1].detail == "row has 4 field(s), the header has 6")
    }

    @Test("NDJSON: names as the event lines', numbers or ISO times, null optional members, each line on its own")
    func ndjson() throws {
        let body = """
            {"deviceId":"a","timestamp":1000,"lat":30.1,"lng":-97.2,"accuracy":5,"level":2}
            {"deviceId":"b","timestamp":"2016-11-26T22:17:03Z","lat":30.1,"lng":-97.2,"accuracy":null,"level":null,"extra":[1]}

            not json
            [1,2]
            {"timestamp":1000,"lat":30.1,"lng":-97.2}
            {"deviceId":"","timestamp":1000,"lat":30.1,"lng":-97.2}
            {"deviceId":"c","timestamp":"1000","lat":"30.1","lng":-97.2}
            {"deviceId":"c","timestamp":1000,"lat":30.1}
            {"deviceId":"c","timestamp":1000,"lat":30.1,"lng":-197.2}
            {"deviceId":"c","timestamp":1000,"lat":30.1,"lng":-97.2,"level":1.5}
            {"deviceId":"c","timestamp":1000,"lat":30.1,"lng":-97.2,"accuracy":-2}
            {"deviceId":"c","timestamp":true,"lat":30.1,"lng":-97.2}
            {"deviceId":"c","timestamp":"1000","lat":30.1,"lng":-97.2}
            """
        let (accepted, rejected) = try Self.read(body, .ndjson)
        #expect(accepted.map(\.line) == [1, 2, 14])
        #expect(accepted[0].fix == Fix(timestamp: Timestamp(milliseconds: 1000), latitude: 30.1, longitude: -97.2, accuracy: 5, level: 2))
        #expect(accepted[1].fix.timestamp.milliseconds == 1_480_198_623_000 && accepted[1].fix.accuracy == nil)
        #expect(Self.reasons(rejected) == ["4:parse", "5:parse", "6:parse", "7:parse", "8:parse", "9:parse", "10:coordinate", "11:parse", "12:parse", "13:parse"])
        #expect(rejected[2].detail == "deviceId is missing" && rejected[4].detail == "lat is not a number" && rejected[5].detail == "lng is missing")
    }

    @Test("invalid UTF-8 is refused with reason encoding; a CSV body without a header throws naming it")
    func encodingAndHeader() throws {
        var csv = Array("device_id,timestamp,lat,lon\n".utf8) + [0xC3, 0x28] + Array(",1000,30,-97\nok,1000,30,-97\n".utf8)
        var r = try FixLines.read(csv, format: .csv, name: "body")
        #expect(Self.reasons(r.rejected) == ["2:encoding"] && r.accepted.map(\.deviceID) == ["ok"])
        csv = Array(#"{"deviceId":""#.utf8) + [0xFF] + Array(#"","timestamp":1,"lat":1,"lng":1}"#.utf8)
        r = try FixLines.read(csv, format: .ndjson, name: "body")
        #expect(Self.reasons(r.rejected) == ["1:encoding"])
        for bad in ["", "a,b,c\n1,2,3\n", "\n"] {
            #expect(throws: FileError.self) { try FixLines.read(Array(bad.utf8), format: .csv, name: "body") }
        }
        #expect(try FixLines.read([UInt8](), format: .ndjson, name: "body").accepted.isEmpty)
    }

    @Test("the same seeded fixes as CSV and as NDJSON read alike", arguments: testSeeds(3))
    func formatsAgree(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var csv = "timestamp,device_id,lat,lon,accuracy,level\n", json = ""
        var expected: [(String, Fix)] = []
        for k in 0..<300 {
            let device = "d\(rng.int(0...20))", t = Int64(rng.int(0...1_000_000_000))
            let lat = rng.double(-89...89), lng = rng.double(-179...179)
            let accuracy: Double? = rng.chance(0.5) ? Double(rng.int(0...90)) : nil
            let level: Int? = rng.chance(0.3) ? rng.int(-3...9) : nil
            csv += "\(t),\(device),\(lat),\(lng),\(accuracy.map { "\($0)" } ?? ""),\(level.map { "\($0)" } ?? "")\n"
            json += #"{"deviceId":"\#(device)","timestamp":\#(t),"lat":\#(lat),"lng":\#(lng)"#
                + (accuracy.map { #","accuracy":\#($0)"# } ?? "") + (level.map { #","level":\#($0)"# } ?? "") + "}\n"
            expected.append((device, Fix(timestamp: Timestamp(milliseconds: t), latitude: lat, longitude: lng, accuracy: accuracy, level: level)))
            _ = k
        }
        let a = try FixLines.read(Array(csv.utf8), format: .csv, name: "csv"), b = try FixLines.read(Array(json.utf8), format: .ndjson, name: "json")
        #expect(a.rejected.isEmpty && b.rejected.isEmpty)
        #expect(a.accepted.map(\.deviceID) == expected.map(\.0) && b.accepted.map(\.deviceID) == expected.map(\.0))
        #expect(a.accepted.map(\.fix) == expected.map(\.1) && b.accepted.map(\.fix) == expected.map(\.1))
        #expect(a.accepted.map(\.line) == Array(2...301) && b.accepted.map(\.line) == Array(1...300))
    }
}

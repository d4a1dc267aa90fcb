import Foundation
@testable import GeofenceEngine
import GeofenceTestSupport
import Testing


@Suite("Fix parsing")
struct FixParsingTests {
    @Test("timestamps: epoch milliseconds and ISO-8601 with a zone", arguments: [
        ("1479967200000", Int64(1_479_967_200_000)),
        ("-1000", Int64(-1000)),
        ("2016-11-24T06:00:00Z", Int64(1_479_967_200_000)),
        ("2016-11-24T00:00:00-06:00", Int64(1_479_967_200_000)),
        ("2016-11-24 07:30:00.250+0130", Int64(1_479_967_200_250)),
        ("2016-11-24T06:00:00.1234567z", Int64(1_479_967_200_123)),
        ("2000-02-29T00:00:00+00", Int64(951_782_400_000)),
        ("1969-12-31T23:59:59.999Z", Int64(-1)),
        ("2016-12-31T23:59:60Z", Int64(1_483_228_800_000)),
    ])
    func timestamps(text: String, expected: Int64) {
        #expect(TimestampParser.parse(text) == .success(expected))
    }

    @Test("bad timestamps say why", arguments: [
        ("", TimestampParser.Failure.empty),
        ("2016-11-24T06:00:00", .missingZone),
        ("2016-13-24T06:00:00Z", .outOfRange("month 13")),
        ("2015-02-29T06:00:00Z", .outOfRange("day 29")),
        ("2016-11-24T24:00:00Z", .outOfRange("hour 24")),
        ("2016-11-24T06:00:00Q", .malformed),
        ("2016-11-24T06:00:00Z junk", .malformed),
        ("1.5", .malformed),
        ("yesterday", .malformed),
    ])
    func badTimestamps(text: String, failure: TimestampParser.Failure) {
        #expect(TimestampParser.parse(text) == .failure(failure))
    }

    @Test("ISO text of a timestamp reads back", arguments: [Int64(0), -1, 1_479_967_200_250, 253_402_300_799_999])
    func isoRoundTrip(ms: Int64) {
        #expect(TimestampParser.parse(TimestampParser.iso8601(Timestamp(milliseconds: ms))) == .success(ms))
    }

    /// The fast decimal parser equals strtod, bit for bit, on random decimal texts.
    @Test("decimal parsing equals strtod")
    func decimalsMatchStrtod() {
        for seed in testSeeds(10) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<5_000 {
                var text = rng.chance(0.5) ? "-" : ""
                let intDigits = rng.int(0...6), fracDigits = rng.int(0...20)
                text += String((0..<max(1, intDigits)).map { _ in Character(String(rng.int(0...9))) })
                if fracDigits > 0 { text += "." + String((0..<fracDigits).map { _ in Character(String(rng.int(0...9))) }) }
                if rng.chance(0.2) { text += "e\(rng.int(-30...30))" }
                let expected = strtod(text, nil)
                let got = DecimalParser.parse(text)
                #expect(got?.bitPattern == expected.bitPattern, "seed \(seed): \(text) → \(String(describing: got)) vs \(expected)")
                // The same text followed by a separator and more bytes that may be loaded:
                // the fraction is then read eight digits at a time.
                let padded = Array((text + ",12345678,9").utf8)
                let (scanned, stop) = padded.withUnsafeBufferPointer { DecimalParser.scan($0.baseAddress!, 0, text.utf8.count, readable: $0.count) }
                #expect(scanned?.bitPattern == expected.bitPattern && stop == text.utf8.count, "seed \(seed): \(text) read eight at a time → \(String(describing: scanned))")
            }
        }
        for bad in ["", "-", ".", "1e", "nan", "inf", "0x10", "1.2.3", "1,5", " 1"] {
            #expect(DecimalParser.parse(bad) == nil, "\(bad)")
        }
    }

    /// The powers of ten the fast paths multiply and divide by, from their vector constants,
    /// are exactly the C library's `10^e` for every exponent they are used with.
    @Test("powers of ten are exact")
    func powersOfTen() {
        for e in 0...22 {
            #expect(DecimalParser.powerOfTen(e).bitPattern == strtod("1e\(e)", nil).bitPattern, "10^\(e)")
        }
        var power: UInt64 = 1
        for n in 0...8 {
            #expect(DecimalParser.smallPowerOfTen(n) == power, "10^\(n)")
            power *= 10
        }
    }

    /// `scan` reads a number up to the first byte that cannot continue it and agrees with
    /// `parse` on the number's own bytes.
    @Test("scanning a number stops at its end and equals parse")
    func decimalScan() {
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<2_000 {
                var number = rng.chance(0.3) ? "-" : ""
                number += String((0..<rng.int(1...4)).map { _ in Character(String(rng.int(0...9))) })
                if rng.chance(0.8) { number += "." + String((0..<rng.int(1...17)).map { _ in Character(String(rng.int(0...9))) }) }
                let tail = [",", "", " ", ",x", "\r"][rng.int(0...4)]
                let bytes = Array((number + tail).utf8)
                for readable in [bytes.count, nil] {
                    let (value, stop) = bytes.withUnsafeBufferPointer { DecimalParser.scan($0.baseAddress!, 0, $0.count, readable: readable) }
                    #expect(stop == number.utf8.count, "seed \(seed): \(number + tail)")
                    #expect(value?.bitPattern == DecimalParser.parse(number)?.bitPattern, "seed \(seed): \(number)")
                }
            }
        }
    }

    /// The slow, obvious twin of the one-pass row parser is the full parser: on random rows,
    /// plain and odd, in several column layouts, whenever the one-pass parser takes a row it
    /// must read exactly what the full parser reads; and it must take every plain row.
    @Test("the one-pass row parser agrees with the full parser")
    func simpleRowsMatchFullParser() throws {
        let headers = [
            "device_id,timestamp,lat,lon,accuracy,level", "lon,level,device_id,accuracy,timestamp,lat",
            "device_id,timestamp,lat,lon", "extra,device_id,timestamp,lat,lon,note",
        ]
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            var taken = 0
            for headerText in headers {
                let header = try Array(headerText.utf8).withUnsafeBytes { try FixCSVHeader(line: $0) }
                let names = headerText.split(separator: ",").map(String.init)
                for _ in 0..<3_000 {
                    let odd = rng.chance(0.4)
                    var fields: [String] = names.map { name in
                        switch name {
                        case "device_id": return "dev-\(rng.int(0...99))"
                        case "timestamp": return String(rng.int(0...1_900_000_000_000))
                        case "lat": return String(format: "%.\(rng.int(0...9))f", rng.double(-90...90))
                        case "lon": return String(format: "%.\(rng.int(0...9))f", rng.double(-180...180))
                        case "accuracy": return rng.chance(0.3) ? "" : String(rng.int(0...80))
                        case "level": return rng.chance(0.5) ? "" : String(rng.int(-3...9))
                        default: return rng.chance(0.5) ? "" : "x\(rng.int(0...9))"
                        }
                    }
                    if odd {
                        let k = rng.int(0...(fields.count - 1))
                        let oddities = [" ", "\"", "\"a,b\"", "1e3", "2016-11-24T06:00:00Z", "", "-", "+1", ".5", "5.", "nan", "1,2", "\r", "0x1", "99999999999999999999"]
                        let o = oddities[rng.int(0...(oddities.count - 1))]
                        switch rng.int(0...2) {
                        case 0: fields[k] = o
                        case 1: fields[k] += o
                        default: fields[k] = o + fields[k]
                        }
                    }
                    let line = fields.joined(separator: ",")
                    // The line alone, or followed by its break (LF or CRLF) and the next line.
                    let ending = ["", "\n", "\r\n"][rng.int(0...2)]
                    let bytes = Array((line + ending + (ending.isEmpty ? "" : "next,1,2,3")).utf8)
                    var fast = FixCSVRow(), full = FixCSVRow()
                    let (end, failure) = bytes.withUnsafeBufferPointer { b -> (Int?, FixCSVRow.Failure?) in
                        let p = b.baseAddress ?? UnsafePointer(bitPattern: 1)!
                        return (fast.parseSimple(p, 0, limit: b.count, header: header), full.parse(p, 0, line.utf8.count, header: header))
                    }
                    if !odd { #expect(end != nil, "seed \(seed): plain row not taken: \(line)") }
                    guard let end else { continue }
                    let expectedEnd = ending.isEmpty ? line.utf8.count : line.utf8.count + ending.utf8.count - 1
                    #expect(end == expectedEnd, "seed \(seed): line end \(end), expected \(expectedEnd): \(line)")
                    taken += 1
                    #expect(failure == nil, "seed \(seed): one-pass took a row the full parser rejects: \(line)")
                    #expect(fast.deviceStart == full.deviceStart && fast.deviceEnd == full.deviceEnd && fast.deviceQuoted == full.deviceQuoted, "seed \(seed): \(line)")
                    #expect(fast.timestamp == full.timestamp && fast.latitude.bitPattern == full.latitude.bitPattern && fast.longitude.bitPattern == full.longitude.bitPattern, "seed \(seed): \(line)")
                    #expect(fast.accuracy.bitPattern == full.accuracy.bitPattern && fast.level == full.level, "seed \(seed): \(line)")
                }
            }
            #expect(taken > 6_000, "seed \(seed)")
        }
    }

    /// The word-at-a-time field end against a byte loop, on seeded random bytes where stops,
    /// their neighbours (0x2B, 0x2D, 0x0B, 0x0C, 0x0E), their high-bit twins (0xAC, 0x8A,
    /// 0x8D), zero and one are common, at every start and limit, so words straddle the limit.
    @Test("a plain field's end, eight bytes a step, agrees with a byte loop")
    func plainFieldEndMatchesByteLoop() {
        let alphabet: [UInt8] = [0x2C, 0x0A, 0x0D, 0x2B, 0x2D, 0x0B, 0x0C, 0x0E, 0xAC, 0x8A, 0x8D, 0x00, 0x01, 0x80, 0xFF, 0x61, 0x30]
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            var stops = 0
            for _ in 0..<400 {
                let count = rng.int(0...40)
                // Runs of plain bytes between rare alphabet bytes, so fields are of every length.
                let bytes: [UInt8] = (0..<count).map { _ in
                    rng.chance(0.25) ? alphabet[rng.int(0...(alphabet.count - 1))] : UInt8(rng.int(0x41...0x7A))
                }
                bytes.withUnsafeBufferPointer { b in
                    let p = b.baseAddress ?? UnsafePointer(bitPattern: 1)!
                    for start in 0...count {
                        for limit in start...count {
                            var expected = start
                            while expected < limit && ![0x2C, 0x0A, 0x0D].contains(b[expected]) { expected += 1 }
                            let got = FixCSVRow.plainFieldEnd(p, start, limit: limit)
                            if expected < limit { stops += 1 }
                            #expect(got == expected, "seed \(seed): bytes \(bytes) from \(start) to \(limit): \(got), expected \(expected)")
                        }
                    }
                }
            }
            #expect(stops > 10_000, "seed \(seed)")
        }
    }

    func parseRow(_ line: String, header: String = "device_id,timestamp,lat,lon,accuracy,level") throws -> Result<FixCSVRow, FixCSVRow.Failure> {
        let h = try Array(header.utf8).withUnsafeBytes { try FixCSVHeader(line: $0) }
        var row = FixCSVRow()
        let bytes = Array(line.utf8)
        let failure = bytes.withUnsafeBufferPointer { row.parse($0.baseAddress!, 0, $0.count, header: h) }
        return failure.map { .failure($0) } ?? .success(row)
    }

    @Test("rows: quoted fields, CRLF, spaces, optional columns")
    func rows() throws {
        let row = try parseRow("\"dev \"\"1\"\", x\",1000, 30.5 ,-97.25,12.5,-1\r").get()
        #expect(row.timestamp == 1000 && row.latitude == 30.5 && row.longitude == -97.25)
        #expect(row.accuracy == 12.5 && row.level == -1)
        Array("\"dev \"\"1\"\", x\",1000".utf8).withUnsafeBufferPointer { b in
            #expect(row.deviceID(in: b.baseAddress!) == "dev \"1\", x")
        }
        let bare = try parseRow("d,1000,1,2,,").get()
        #expect(bare.accuracy.isNaN && bare.level == Int.min)
    }

    @Test("bad rows are parse failures with a reason", arguments: [
        ("d,1000,1", "row has 3 field(s), the header has 6"),
        ("d,1000,1,2,3,4,5", "row has 7 field(s), the header has 6"),
        (",1000,1,2,,", "empty device_id"),
        ("d,1000,north,2,,", "lat is not a decimal number"),
        ("d,1000,1,,,", "lon is not a decimal number"),
        ("d,soon,1,2,,", "neither epoch milliseconds"),
        ("d,1000,1,2,-3,", "accuracy is not"),
        ("d,1000,1,2,,2.5", "level is not an integer"),
        ("\"d,1000,1,2,,", "unterminated quoted field"),
    ])
    func badRows(line: String, reason: String) throws {
        guard case .failure(let f) = try parseRow(line) else { Issue.record("accepted \(line)"); return }
        #expect(f.reason.contains(reason), "\(line): \(f.reason)")
    }

    @Test("headers: any order, aliases, BOM; missing columns named", arguments: [
        ("\u{FEFF}lon,Device_ID,timestamp,lat", true),
        ("device_id,timestamp,latitude,lng,accuracy,level,extra", true),
        ("device_id,timestamp,lat", false),
        ("id,time,lat,lon", false),
        ("device_id,timestamp,lat,lat,lon", false),
    ])
    func headers(line: String, ok: Bool) {
        let result = Array(line.utf8).withUnsafeBytes { bytes in Result { try FixCSVHeader(line: bytes) } }
        switch result {
        case .success: #expect(ok, "\(line)")
        case .failure(let e): #expect(!ok, "\(line): \(e)")
        }
    }

    /// Random bytes never crash the row parser; they parse or fail with a reason.
    @Test("random garbage rows fail cleanly")
    func garbage() throws {
        let h = try Array("device_id,timestamp,lat,lon,accuracy,level".utf8).withUnsafeBytes { try FixCSVHeader(line: $0) }
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            let alphabet = Array("0123456789-+.,eE\"Z T:\r xq".utf8) + [0xFF, 0x00]
            for _ in 0..<20_000 {
                let bytes = (0..<rng.int(0...60)).map { _ in alphabet[rng.int(0...(alphabet.count - 1))] }
                var row = FixCSVRow()
                let failure = bytes.withUnsafeBufferPointer { b in
                    b.baseAddress.map { row.parse($0, 0, b.count, header: h) } ?? .emptyDeviceID
                }
                if let failure { #expect(!failure.reason.isEmpty, "seed \(seed)") }
            }
        }
    }
}

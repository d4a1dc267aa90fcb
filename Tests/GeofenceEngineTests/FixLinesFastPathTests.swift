import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The NDJSON fast path (`FixLines.fastJSONFix`) against its twin, the generic JSON parse:
/// the same bodies read with and without it give the same accepted and refused lines.
@Suite("Fix lines: the NDJSON fast path and the generic parser read alike")
struct FixLinesFastPathTests {
    typealias Read = (accepted: [FixLines.Accepted], rejected: [FixLines.Rejected], fastLines: Int)

    static func read(_ bytes: [UInt8], fast: Bool) throws -> Read {
        try FixLines.read(bytes, format: .ndjson, name: "body", fastJSON: fast)
    }

    /// Every field of a read, exactly: the id's bytes (String equality would take `é` and
    /// `e` + U+0301 for one) and the doubles' bits (== would take -0 for 0).
    static func exact(_ read: Read) -> [String] {
        read.accepted.map { a in
            let f = a.fix
            return "\(a.line) ok \(Array(a.deviceID.utf8)) \(f.timestamp.milliseconds) \(f.latitude.bitPattern) \(f.longitude.bitPattern) "
                + "\(f.accuracy.map { "\($0.bitPattern)" } ?? "nil") \(f.level.map { "\($0)" } ?? "nil")"
        } + read.rejected.map { "\($0.line) \($0.reason.rawValue) \($0.detail)" }
    }

    @Test("the usual line is read by the fast path, as the generic parser reads it; an escaped one is left to the generic parser")
    func usualLineTakesTheFastPath() throws {
        let usual = #"{"deviceId":"d1","timestamp":1700000000000,"lat":48.85,"lng":2.35}"#
        let fast = try #require(FixLines.fastJSONFix(Array(usual.utf8)))
        #expect(fast.deviceID == "d1")
        #expect(fast.fix == Fix(timestamp: Timestamp(milliseconds: 1_700_000_000_000), latitude: 48.85, longitude: 2.35))
        let escaped = #"{"deviceId":"d\u0031","timestamp":1700000000000,"lat":48.85,"lng":2.35}"#
        #expect(FixLines.fastJSONFix(Array(escaped.utf8)) == nil)
        // Both read as d1 all the same, the second by the generic parser.
        let body = Array((usual + "\n" + escaped + "\n").utf8)
        let read = try Self.read(body, fast: true)
        #expect(read.fastLines == 1 && read.accepted.map(\.deviceID) == ["d1", "d1"] && read.rejected.isEmpty)
        #expect(Self.exact(read) == Self.exact(try Self.read(body, fast: false)))
        #expect(try Self.read(body, fast: false).fastLines == 0)
    }

    @Test("the fast path takes the usual shapes: any order and whitespace, unknown members, null optionals, string times")
    func shapesTaken() throws {
        let lines = [
            #" { "lng" : -97.2 ,\#t"extra":"x", "lat":30.1,"timestamp":"2016-11-26T22:17:03Z","deviceId":"é🚚" , "n":null,"b":true,"c":false,"z":-1.5e-3 }"#,
            #"{"deviceId":"a","timestamp":"1000","lat":-0,"lng":1E2,"accuracy":null,"level":null}"#,
            #"{"deviceId":"a","timestamp":-0,"lat":0.5e1,"lng":-2.5E-1,"accuracy":-0,"level":2e0,"Lat":"x","lat\#u{301}":1,"x":"","x":2}"#,
            #"{"deviceId":"a","timestamp":1,"lat":95,"lng":1,"accuracy":1e400,"level":-8999999999999999}"#,
        ]
        for line in lines {
            let bytes = Array(line.utf8)
            #expect(FixLines.fastJSONFix(bytes) != nil, "\(line)")
            #expect(Self.exact(try Self.read(bytes, fast: true)) == Self.exact(try Self.read(bytes, fast: false)), "\(line)")
        }
    }

    @Test("lines the fast path leaves to the generic parser, refused or accepted there, read alike")
    func handOffs() throws {
        let ok = #""deviceId":"d","timestamp":1000,"lat":30.1,"lng":-97.2"#
        var lines = [
            // Accepted by the generic parser only: escapes, nesting, a second member, a BOM.
            #"{"deviceId":"a\"b","timestamp":1000,"lat":30.1,"lng":-97.2}"#,
            #"{"deviceI\u0064":"d","timestamp":1000,"lat":30.1,"lng":-97.2}"#,
            "{\(ok),\"x\":[1,{\"y\":2}]}", "{\(ok),\"x\":{}}", "{\(ok),\"lat\":31}", "{\(ok),\"accuracy\":5,\"accuracy\":null}", "{\(ok),\"level\":1,\"level\":null}", #"{"lat":"x","#.appending(ok + "}"),
            "\u{FEFF}{\(ok)}",
            // Refused: not one object, bad syntax, bad members.
            "{}", "[]", "null", "1", #""s""#, "{", "{\(ok)", "{\(ok),}", "{\(ok)}x", "{\(ok)}}", "{\(ok)} ,", "{\(ok),\"a\"}", "{\(ok),\"a\":}",
            "{\(ok),\"a\" 1}", "{\(ok) \"a\":1}", "{\(ok),\"a\":tru}", "{\(ok),\"a\":nul}", "{\(ok),\"a\":falsey}", "{\(ok),\"a\":\"\u{01}\"}",
            "{\(ok),\"a\":\"\t\"}", "{\(ok),'a':1}", "{\(ok),a:1}",
            #"{"deviceId":"","timestamp":1000,"lat":30.1,"lng":-97.2}"#, #"{"deviceId":1,"timestamp":1000,"lat":30.1,"lng":-97.2}"#,
            #"{"deviceId":"d","timestamp":true,"lat":30.1,"lng":-97.2}"#, #"{"deviceId":"d","timestamp":1e3,"lat":30.1,"lng":-97.2}"#,
            #"{"deviceId":"d","timestamp":"2016-11-26T22:17:03","lat":30.1,"lng":-97.2}"#, #"{"deviceId":"d","timestamp":null,"lat":30.1,"lng":-97.2}"#,
            #"{"deviceId":"d","timestamp":1000,"lat":"30.1","lng":-97.2}"#, #"{"deviceId":"d","timestamp":1000,"lat":null,"lng":-97.2}"#,
            #"{"deviceId":"d","timestamp":1000,"lng":-97.2}"#, "{\(ok),\"accuracy\":-1}", "{\(ok),\"accuracy\":\"1\"}", "{\(ok),\"accuracy\":true}",
            "{\(ok),\"level\":1.5}", "{\(ok),\"level\":9e15}", "{\(ok),\"level\":\"1\"}", "{\(ok),\"level\":1e400}",
        ]
        for bad in ["01", "-01", "00", "1.", ".5", "+1", "1e", "1e+", "-", "--1", "1.e5", "0x1", "1.5.2", "NaN", "Infinity", "-Infinity", "1,5"] {
            lines.append(#"{"deviceId":"d","timestamp":1000,"lat":\#(bad),"lng":-97.2}"#)
            lines.append("{\(ok),\"x\":\(bad)}")
        }
        lines.append(#"{"deviceId":"d","timestamp":1000,"lat":1\#(String(repeating: "0", count: 400)),"lng":-97.2}"#)
        for line in lines {
            let bytes = Array(line.utf8)
            #expect(FixLines.fastJSONFix(bytes) == nil, "\(line)")
            #expect(Self.exact(try Self.read(bytes, fast: true)) == Self.exact(try Self.read(bytes, fast: false)), "\(line)")
        }
    }

    @Test("seeded random bodies, usual and broken lines, read alike with and without the fast path", arguments: testSeeds(4))
    func twins(seed: UInt64) throws {
        var maker = FixJSONLineMaker(rng: SplitMix64(seed: seed))
        var lines = 0, fastLines = 0, accepted = 0, rejected = 0
        while lines < 2500 {
            var body = ""
            for _ in 0..<maker.rng.int(1...60) {
                body += maker.line() + (maker.rng.chance(0.1) ? "\r\n" : "\n") + (maker.rng.chance(0.03) ? "\n" : "")
                lines += 1
            }
            if maker.rng.chance(0.5) { body.removeLast() }
            let bytes = Array(body.utf8)
            let fast = try Self.read(bytes, fast: true), generic = try Self.read(bytes, fast: false)
            #expect(Self.exact(fast) == Self.exact(generic), "seed \(seed): \(body)")
            #expect(fast.accepted == generic.accepted && fast.rejected == generic.rejected, "seed \(seed)")
            #expect(generic.fastLines == 0)
            fastLines += fast.fastLines
            accepted += generic.accepted.count
            rejected += generic.rejected.count
        }
        // Teeth: most lines are taken, some accepted lines are not, many are refused.
        #expect(fastLines > lines / 3 && fastLines < accepted && rejected > lines / 5, "seed \(seed): \(fastLines) fast, \(accepted) accepted, \(rejected) refused of \(lines)")
    }
}

/// NDJSON fix lines, mostly well formed with members shuffled, spaced and mixed with
/// unknown members, a third of them broken one way or another.
private struct FixJSONLineMaker {
    var rng: SplitMix64

    mutating func pick(_ choices: [String]) -> String { choices[rng.int(0...(choices.count - 1))] }

    mutating func space() -> String { rng.chance(0.7) ? "" : pick([" ", "  ", "\t", "\r", " \t ", "\r "]) }

    mutating func device() -> String {
        pick(["d1", "truck-17", "é", "e\u{301}", "Ωmega", "🚚🚚", "设备7", "a b", "x/y", "\u{7F}", "1234567890123456", String(repeating: "long", count: 12)])
    }

    /// A coordinate in one of the ways a JSON writer might spell it.
    mutating func coordinate(_ limit: Double) -> String {
        let d = rng.double(-limit...limit)
        switch rng.int(0...9) {
        case 0: return String(format: "%.6f", d)
        case 1: return String(format: "%.4e", d)
        case 2: return String(format: "%.3E", d)
        case 3: return "\(Int(d))"
        case 4: return pick(["-0", "0", "-0.0", "0.0e0", "0E-0", "-0e+5"])
        case 5: return String(format: "%.20f", d)
        case 6: return "\(d)00"
        default: return "\(d)"
        }
    }

    mutating func timestamp() -> String {
        let ms = rng.int(0...2_000_000_000_000)
        switch rng.int(0...15) {
        case 0...7: return "\(ms)"
        case 8: return "\"\(ms)\""
        case 9: return "-\(ms)"
        case 10...13:
            let y = rng.int(1960...2040), mo = rng.int(1...12), d = rng.int(1...28), h = rng.int(0...23), mi = rng.int(0...59), s = rng.int(0...60)
            let fraction = pick(["", ".5", ".250", ".123456", ",7"]), zone = pick(["Z", "Z", "z", "+02:00", "-0630", "-06", "+24:00", ""])
            let separator = pick(["T", " ", "t"])
            return "\"" + String(format: "%04d-%02d-%02d", y, mo, d) + separator + String(format: "%02d:%02d:%02d", h, mi, s) + fraction + zone + "\""
        default: return pick(["0", "-0", "1e3", "1.5", "1234567890123456789", "\"\"", "\"soon\"", "\" 1000\"", "\"2016-02-30T00:00:00Z\"", "\"1e3\""])
        }
    }

    mutating func accuracy() -> String {
        rng.chance(0.6) ? "\(rng.int(0...90))" : pick(["0", "-0", "12.5", "1e1", "null", "-1", "-0.0", "1e400", "3.0E-2", "-1e-9"])
    }

    mutating func level() -> String {
        rng.chance(0.6) ? "\(rng.int(-3...9))" : pick(["-0", "2.0", "2e0", "20E-1", "null", "1.5", "9e15", "8999999999999999", "1e400", "12345678901234567890"])
    }

    /// A value of any JSON kind, for a member the reader ignores.
    mutating func anything() -> String {
        pick(["\"x\"", "\"\"", "\"ü ✓\"", "1", "-2.5e-3", "0", "true", "false", "null", "[]", "[1,\"a\",null]", "{}", "{\"a\":{\"b\":[]}}", "\"a\\\"b\""])
    }

    mutating func badNumber() -> String {
        pick(["01", "-01", "00", "1.", ".5", "+1", "1e", "1e+", "-", "--1", "1.e5", "0x1", "1.5.2", "NaN", "Infinity", "1e400", "-1e400", "1E-400",
            "1" + String(repeating: "0", count: 25), "0." + String(repeating: "3", count: 398), "1" + String(repeating: "0", count: 400)])
    }

    mutating func line() -> String {
        if rng.chance(0.03) { return pick(["{}", "[]", "null", "1", "\"s\"", "{", "}", "not json", "[{\"deviceId\":\"d\"}]", " "]) }
        var members: [(String, String)] = [("deviceId", "\"\(device())\""), ("timestamp", timestamp()), ("lat", coordinate(rng.chance(0.05) ? 95 : 90)), ("lng", coordinate(rng.chance(0.05) ? 185 : 180))]
        if rng.chance(0.4) { members.append(("accuracy", accuracy())) }
        if rng.chance(0.3) { members.append(("level", level())) }
        for _ in 0..<(rng.chance(0.4) ? rng.int(1...3) : 0) {
            members.append((pick(["extra", "speed", "Lat", "LAT", "lat ", "deviceid", "", "é", "time_stamp", "accuracy2", "levels", "lng\u{301}"]), anything()))
        }
        members.shuffle(using: &rng)
        let broken = rng.chance(0.35) ? rng.int(0...12) : -1
        let known = ["deviceId", "timestamp", "lat", "lng", "accuracy", "level"]
        switch broken {
        case 0:  // an escape in a name or a string
            let k = rng.int(0...(members.count - 1))
            if rng.chance(0.5) {
                members[k].0 = members[k].0.isEmpty ? "\\/" : String(members[k].0.dropLast()) + "\\u00" + String(format: "%02x", members[k].0.utf8.last!)
            } else {
                members[k].1 = "\"" + pick(["a\\\"b", "\\n", "\\u0064", "\\\\", "\\/", "\\uD83D\\uDE9A", "\\q", "\\u12"]) + "\""
            }
        case 1:  // a second member of a name the reader reads
            // Mostly of a member the line has (JSONObject keeps the last), often null.
            let present = members.map(\.0).filter(known.contains)
            let value = [coordinate(90), anything(), "null", "null", accuracy(), level(), "\"\(device())\""].randomElement(using: &rng)!
            members.insert((rng.chance(0.8) ? pick(present) : pick(known), value), at: rng.int(0...members.count))
        case 2:  // a bad number
            members[rng.int(0...(members.count - 1))].1 = badNumber()
        case 3:  // a nested value
            members[rng.int(0...(members.count - 1))].1 = pick(["[1]", "{\"a\":1}", "[]", "{}"])
        case 4:  // a member missing
            members.remove(at: rng.int(0...(members.count - 1)))
        case 5:  // a value of the wrong type
            members[rng.int(0...(members.count - 1))].1 = pick(["true", "false", "null", "\"48.1\"", "7", "\"\""])
        case 6:  // a control character in a string
            let k = members.firstIndex { $0.0 == "deviceId" }!
            members[k].1 = "\"" + pick(["\u{01}", "\t", "a\u{1F}"]) + "\""
        case 7:  // a negative accuracy or a level that is not an integer
            members.append(rng.chance(0.5) ? ("accuracy", pick(["-1", "-0.001", "-1e400"])) : ("level", pick(["1.5", "1e-1", "9.5e15", "\"2\""])))
        default: break
        }
        var text = space() + "{" + members.map { space() + "\"" + $0.0 + "\"" + space() + ":" + space() + $0.1 + space() }.joined(separator: ",") + "}" + space()
        switch broken {
        case 8:  // cut short
            var bytes = Array(text.utf8)
            bytes.removeLast(rng.int(1...bytes.count))
            text = String(decoding: bytes, as: UTF8.self)
        case 9:  // text after the object, or a trailing comma
            text = pick(["", " "]) + (rng.chance(0.5) ? text + pick([",", "}", "x", " x", "]", "{}", "\u{0}", "1"]) : text.replacingOccurrences(of: "}", with: ",}"))
        case 10:  // before it
            text = pick(["\u{FEFF}", "[", "x", "\u{0}", "\u{A0}"]) + text
        case 11, 12:  // a byte replaced by one that means something in JSON
            var bytes = Array(text.utf8)
            bytes[rng.int(0...(bytes.count - 1))] = Array("{}[]:,\"\\ 0123456789.eE+-tfnul\t".utf8).randomElement(using: &rng)!
            text = String(decoding: bytes, as: UTF8.self)
        default: break
        }
        return text
    }
}

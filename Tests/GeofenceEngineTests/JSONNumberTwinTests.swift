import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The fence reader's one-pass number conversion against the C library's `strtod`
/// (``JSONNumber/parse(_:)-5ct5m``), which the tree reader used.
@Suite("Number conversion")
struct JSONNumberTwinTests {
    /// The reader's value of a literal, followed by `trailer` (long trailers let the reader
    /// load eight bytes at a time past the literal's end, as inside a file).
    static func read(_ literal: String, trailer: String = ",") -> Double?? {
        let bytes = Array(literal.utf8) + Array(trailer.utf8)
        return bytes.withUnsafeBufferPointer { b -> Double?? in
            var s = GeoJSONScanner(base: b.baseAddress!, from: 0, end: b.count)
            guard let (range, value) = try? s.numberAndValue(), range.count == literal.utf8.count else { return nil }
            return .some(value)
        }
    }

    static func agree(_ literal: String, trailer: String = ",") -> Bool {
        guard let mine = read(literal, trailer: trailer) else { return false }
        let reference = cLibrary(literal)
        guard let a = mine, let b = reference else { return mine == nil && reference == nil }
        return a.bitPattern == b.bitPattern
    }

    @Test("random literals, coordinates' 15 to 19 digits, exact halfway cases and limits", arguments: [1, 2, 3] as [UInt64])
    func twin(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var literals = ["0", "-0", "0.0", "-0.0", "1", "-1", "0.5", "1e22", "1e23", "9007199254740993", "1e-19", "12345678901234567890.5",
                        "0.00000000000000000001", "179.99999999999997", "-89.999999999999986", "1.7976931348623157e308", "5e-324",
                        String(repeating: "9", count: 399), String(repeating: "9", count: 400), "1" + String(repeating: "0", count: 30) + ".5"]
        // Ties: (2^53 + 1 + 2j) · 5^k / 10^k, exactly halfway between two doubles.
        for k in 1...3 {
            for j in 0..<20 {
                var power5: UInt64 = 1
                for _ in 0..<k { power5 *= 5 }
                let (m, overflow) = (UInt64(1 << 53) + 1 + 2 * UInt64(j)).multipliedReportingOverflow(by: power5)
                guard !overflow, m < 10_000_000_000_000_000_000 else { continue }
                var digits = String(m)
                digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -k))
                literals.append(digits)
            }
        }
        // 200,000 random literals a seed under `make test-long`, 30,000 under `make test`.
        for _ in 0..<sized(full: 200_000, quick: 30_000) {
            let intDigits = rng.int(0...3), fractionDigits = rng.int(0...20)
            var text = rng.chance(0.5) ? "-" : ""
            text += intDigits == 0 ? "0" : String(rng.int(1...9)) + String((1..<intDigits).map { _ in Character(String(rng.int(0...9))) })
            if fractionDigits > 0 { text += "." + String((0..<fractionDigits).map { _ in Character(String(rng.int(0...9))) }) }
            if rng.chance(0.1) { text += (rng.chance(0.5) ? "e" : "E-") + String(rng.int(0...30)) }
            literals.append(text)
        }
        let trailers = [",", "]", ",12345678901234567890]", "],[-73.9,40.7]]]}", " \n\t,0.5"]
        for (k, literal) in literals.enumerated() {
            let trailer = trailers[k % trailers.count]
            #expect(
                Self.agree(literal, trailer: trailer),
                "seed \(seed): \(literal) before \(trailer): \(String(describing: Self.read(literal, trailer: trailer))) against \(String(describing: Self.cLibrary(literal)))")
        }
    }

    static func cLibrary(_ literal: String) -> Double? {
        Array(literal.utf8).withUnsafeBytes { JSONNumber.parseWithCLibrary($0) }
    }

    @Test("JSONNumber.parse (through DecimalParser) is strtod, bit for bit", arguments: [4, 5] as [UInt64])
    func parseIsStrtod(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var literals = ["", "-", ".", "-.", "5.", ".5", "-.5", "-0", "0", "-0.0", "00.5", "1.2.3", "--1", "1-", "+1", "1e5", "0.1",
                        "999999999999999", "9999999999999999", "0.000000000000001", "-48.856613", "2.352222", "1796679070919",
                        "123456789012345.", ".123456789012345", "0000000000000001", "1e400", "-1e-400", "1E+2", "1e", "e5",
                        String(repeating: "9", count: 399), String(repeating: "9", count: 400)]
        for _ in 0..<sized(full: 200_000, quick: 30_000) {
            let whole = rng.int(0...8), fraction = rng.int(0...12)
            var text = rng.chance(0.3) ? "-" : ""
            text += String((0..<whole).map { _ in Character(String(rng.int(0...9))) })
            if fraction > 0 || rng.chance(0.1) { text += "." + String((0..<fraction).map { _ in Character(String(rng.int(0...9))) }) }
            if rng.chance(0.1) { text += (rng.chance(0.5) ? "e" : "E-") + String(rng.int(0...30)) }
            literals.append(text)
        }
        for literal in literals {
            let bytes = Array(literal.utf8)
            let (value, reference) = bytes.withUnsafeBytes { (JSONNumber.parse($0), JSONNumber.parseWithCLibrary($0)) }
            #expect(value?.bitPattern == reference?.bitPattern, "seed \(seed): \(literal): \(String(describing: value)) against strtod's \(String(describing: reference))")
        }
    }

    @Test("malformed numbers are syntax errors")
    func grammar() {
        for bad in ["-", "1.", ".5", "1e", "1e+", "-.5", "+1"] {
            let bytes = Array(bad.utf8)
            let threw = bytes.withUnsafeBufferPointer { b -> Bool in
                var s = GeoJSONScanner(base: b.baseAddress!, from: 0, end: b.count)
                return (try? s.numberAndValue()) == nil
            }
            #expect(threw, "\(bad)")
        }
    }
}

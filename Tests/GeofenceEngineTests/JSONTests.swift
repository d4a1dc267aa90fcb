import GeofenceEngine
import GeofenceTestSupport
import Testing

@Suite("JSON reader and writer")
struct JSONTests {
    @Test("numbers keep their literal text and members keep their order")
    func untouched() throws {
        let text = #"{"z":1.50,"a":-3e2,"m":{"k":[true,false,null,"x\ny"]},"u":"\u00e9\ud83d\ude00"}"#
        let value = try JSONParser.parse(text)
        #expect(JSONWriter.string(value) == #"{"z":1.50,"a":-3e2,"m":{"k":[true,false,null,"x\ny"]},"u":"é😀"}"#)
        #expect(value.objectValue?["a"]?.doubleValue == -300)
        #expect(value.objectValue?["z"]?.intValue == nil)
    }

    @Test("malformed JSON is an error with line and column", arguments: [
        ("{\"a\":1,}", 1, 8), ("[1,2", 1, 5), ("{\"a\" 1}", 1, 6), ("\n\n  nul", 3, 3), ("[1] x", 1, 5),
        ("\"tab\there\"", 1, 5), ("01", 1, 2), ("[-]", 1, 2), ("\"\\x\"", 1, 2), ("", 1, 1),
    ])
    func malformed(text: String, line: Int, column: Int) {
        do {
            _ = try JSONParser.parse(text)
            Issue.record("parsed \(text.debugDescription)")
        } catch {
            #expect(error.line == line && error.column == column, "\(text.debugDescription): \(error)")
        }
    }

    @Test("deep nesting is refused, not a stack overflow")
    func depthLimit() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
    }

    @Test("invalid UTF-8 and lone surrogates are refused")
    func encoding() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(#""\ud800""#) }
    }

    @Test("strings round-trip through the writer")
    func stringRoundTrip() throws {
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<200 {
                let scalars = (0..<rng.int(0...20)).map { _ -> Character in
                    let pick = rng.int(0...3)
                    let v: UInt32 = pick == 0 ? UInt32(rng.int(0...0x1F)) : pick == 1 ? UInt32(rng.int(0x20...0x7E))
                        : pick == 2 ? UInt32(rng.int(0xA0...0xD7FF)) : UInt32(rng.int(0x10000...0x10FFFF))
                    return Character(Unicode.Scalar(v)!)
                }
                let s = String(scalars)
                let back = try JSONParser.parse(JSONWriter.quoted(s))
                #expect(back == .string(s), "seed \(seed): \(s.debugDescription)")
            }
        }
    }
}

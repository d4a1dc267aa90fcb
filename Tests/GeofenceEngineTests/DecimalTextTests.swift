import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The pointer writer of integers against the standard library's decimal text.
@Suite("Decimal text")
struct DecimalTextTests {
    /// Every digit count, the powers of ten and their neighbours, the extremes, seeded values.
    static func values(seed: UInt64) -> [UInt64] {
        var values: [UInt64] = [0, 1, 9, 10, 11, 99, 100, 101, UInt64.max, UInt64.max - 1, UInt64(Int64.max), UInt64(Int64.max) + 1]
        var power: UInt64 = 1
        for _ in 0..<19 {
            power *= 10
            values += [power - 1, power, power + 1]
        }
        var rng = SplitMix64(seed: seed)
        values += (0..<5_000).map { _ in rng.next() >> UInt64(rng.int(0...63)) }
        return values
    }

    /// `put` into a buffer one byte larger than the longest text, filled with a marker.
    static func written(_ put: (UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8>) -> (String, Bool) {
        var buffer = [UInt8](repeating: 0xFF, count: DecimalText.maximumBytes + 1)
        let n = buffer.withUnsafeMutableBufferPointer { b in put(b.baseAddress!) - b.baseAddress! }
        return (String(decoding: buffer[..<n], as: UTF8.self), buffer[n...].allSatisfy { $0 == 0xFF })
    }

    @Test("unsigned integers are written as String writes them", arguments: testSeeds(2, base: 0xD161_75))
    func unsigned(seed: UInt64) {
        for value in Self.values(seed: seed) {
            let (text, untouched) = Self.written { DecimalText.put(value, at: $0) }
            #expect(text == String(value) && untouched, "seed \(seed): \(value) written as \(text)")
        }
    }

    @Test("signed integers are written as String writes them", arguments: testSeeds(2, base: 0x51_6E))
    func signed(seed: UInt64) {
        let values = Self.values(seed: seed).flatMap { [Int64(truncatingIfNeeded: $0), -Int64(truncatingIfNeeded: $0 >> 1)] } + [Int64.min, Int64.max]
        for value in values {
            let (text, untouched) = Self.written { DecimalText.put(value, at: $0) }
            #expect(text == String(value) && untouched, "seed \(seed): \(value) written as \(text)")
        }
    }
}

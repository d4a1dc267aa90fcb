import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The `FPRT` section: every fence's content fingerprint, stored so that a fence update
/// between compiled catalogs compares 8-byte words instead of hashing every vertex.
@Suite("Compiled fence files: fingerprints")
struct CompiledFenceFingerprintTests {
    typealias Files = CompiledFenceFileTests

    /// The table entry of section `id`: its byte offset in the file.
    static func entry(_ id: FenceSectionID, in bytes: [UInt8]) -> Int? {
        let count = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) })
        return (0..<count).map { 64 + 32 * $0 }.first { at in
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } == id.raw
        }
    }

    @Test("a compiled file stores each fence's fingerprint, equal to the one computed from its shape")
    func stored() throws {
        for seed in testSeeds(2) {
            let set = try FenceSet(Files.world(seed: seed, count: 120))
            #expect(set.storage.fingerprints == nil)
            try Files.roundTrip(set) { opened, bytes in
                #expect(Self.entry(FenceSectionID.fingerprints, in: bytes) != nil)
                let stored = try #require(opened.storage.fingerprints)
                #expect(stored.count == set.count)
                for slot in 0..<set.count {
                    #expect(stored[slot] == set.computedFingerprint(at: slot), "seed \(seed) slot \(slot)")
                    #expect(opened.fingerprint(at: slot) == set.fingerprint(at: slot))
                    #expect(opened.computedFingerprint(at: slot) == stored[slot])
                }
                // Equal fingerprints only for the same shape and level (the world repeats some shapes).
                let fences = Array(set.fences)
                let bySum = Dictionary(grouping: 0..<set.count) { stored[$0] }
                #expect(bySum.count > set.count / 2)
                for slots in bySum.values where slots.count > 1 {
                    for slot in slots.dropFirst() {
                        #expect(fences[slot].shape == fences[slots[0]].shape && fences[slot].level == fences[slots[0]].level)
                    }
                }
                // Written again from the opened set, the section is copied, not recomputed: same bytes.
                try Files.roundTrip(opened) { _, again in #expect(again == bytes) }
            }
        }
    }

    @Test("a file without the section (written before 0.2) opens and computes fingerprints on demand")
    func withoutSection() throws {
        var rng = SeededGenerator(seed: 11)
        let set = try FenceSet(RandomWorld.city.fences(count: 60, &rng))
        try Files.roundTrip(set) { _, bytes in
            var older = bytes
            let at = try #require(Self.entry(FenceSectionID.fingerprints, in: bytes))
            // An id no reader knows: the section is skipped, as a 0.2 file has none.
            withUnsafeBytes(of: FenceSectionID("ZZZZ").raw) { older.replaceSubrange(at..<(at + 4), with: $0) }
            Files.reseal(&older)
            let opened = try older.withUnsafeBytes { try FenceSet.open(bytes: $0, name: "f.fences") }
            #expect(opened.storage.fingerprints == nil)
            for slot in 0..<set.count { #expect(opened.fingerprint(at: slot) == set.fingerprint(at: slot)) }
            let change = FenceSet.Change(from: opened, to: set)
            #expect(change.unchanged.count == set.count && change.changed.isEmpty)
        }
    }

    @Test("an FPRT section with another count than the fences is refused as inconsistent")
    func wrongCount() throws {
        var rng = SeededGenerator(seed: 12)
        try Files.roundTrip(try FenceSet(RandomWorld.city.fences(count: 60, &rng))) { _, bytes in
            var short = bytes
            let at = try #require(Self.entry(FenceSectionID.fingerprints, in: bytes))
            let length = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self) }
            withUnsafeBytes(of: (length - 8).littleEndian) { short.replaceSubrange((at + 16)..<(at + 24), with: $0) }
            Files.reseal(&short)
            #expect(Files.fails(short, ["FPRT holds 59 entries for 60 fences"]) == nil)
        }
    }
}

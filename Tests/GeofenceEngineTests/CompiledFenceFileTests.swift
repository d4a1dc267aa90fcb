import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

@Suite("Compiled fence files")
struct CompiledFenceFileTests {
    /// XXH64 against digests from the reference implementation (libxxhash 0.8.1, through
    /// python's ctypes): the empty input, short tails, exactly one and more 32-byte rounds.
    @Test("XXH64 equals the reference implementation")
    func xxh64() {
        func h(_ bytes: [UInt8], _ seed: UInt64) -> UInt64 { bytes.withUnsafeBytes { XXH64.hash($0, seed: seed) } }
        #expect(h([], 0) == 0xEF46_DB37_51D8_E999)
        #expect(h(Array("a".utf8), 0) == 0xD24E_C4F1_A98C_6E5B)
        #expect(h(Array("abc".utf8), 0) == 0x44BC_2CF5_AD77_0999)
        #expect(h(Array("abc".utf8), 1) == 0xBEA9_CA81_9932_8908)
        #expect(h((0..<768).map { UInt8($0 % 256) }, 7) == 0xB1E1_0F6C_5294_CD6B)
        let data = (0..<1000).map { UInt8(($0 * 37) % 256) }
        let expected: [(Int, UInt64)] = [
            (0, 0x4926_B3AB_098A_4DAC), (1, 0x440E_F8F6_64A3_EB30), (3, 0x5BD7_2E8E_D7B8_0E77), (4, 0x33F9_8ED4_D3DC_114F),
            (7, 0xF5AD_EDA6_736F_AAF8), (8, 0x935E_0597_E069_F5B5), (9, 0xAF0B_76F7_8607_4DEF), (31, 0xD57B_C10A_9709_9C6A),
            (32, 0x4108_130D_318E_1E18), (33, 0x5F69_92AF_D61D_6CAD), (63, 0x37D4_CDA0_A5D3_7EDD), (64, 0xE1B5_44C6_D6BB_A0DC),
            (65, 0xC181_A3CE_3BC2_60CD), (100, 0xAA6D_108C_65C7_0B69), (1000, 0xBF5F_AC64_E1A3_648B),
        ]
        for (n, digest) in expected { #expect(h(Array(data[0..<n]), 1 << 40) == digest, "\(n) bytes") }
    }

    /// A world with every attribute: levels, libraries, ranks, dwell times, properties with
    /// escapes and nesting, holes, MultiPolygons split at ±180°, caps over a pole.
    static func world(seed: UInt64, count: Int) -> [Fence] {
        var rng = SeededGenerator(seed: seed)
        var fences = RandomWorld.city.fences(count: count, &rng)
        fences += RandomWorld.antimeridian.fences(count: count / 4, &rng).map { var f = $0; f.geofenceID += "-am"; return f }
        fences += RandomWorld.pole.fences(count: count / 8, &rng).map { var f = $0; f.geofenceID += "-pole"; return f }
        for i in fences.indices {
            fences[i].featureIndex = i
            if rng.chance(0.5) { fences[i].rank = rng.int(-3...3) }
            if rng.chance(0.3) { fences[i].dwellSeconds = rng.chance(0.2) ? 0 : rng.double(1...600) }
            if rng.chance(0.7) {
                fences[i].properties = JSONObject(members: [
                    .init(key: "name", value: .string("fence \"\(i)\" – é\n")),
                    .init(key: "n", value: .number("1.50e3")),
                    .init(key: "tags", value: .array([.bool(true), .null, .object(JSONObject(members: [.init(key: "k", value: .integer(i))]))])),
                ])
            }
        }
        return fences
    }

    /// Writes `set` to a temporary file and opens it; the folder is removed afterwards.
    static func roundTrip(_ set: FenceSet, _ body: (FenceSet, [UInt8]) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-compiled-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/set.fences"
        let size = try set.write(to: path)
        let bytes = try FileBytes.read(path)
        #expect(bytes.count == size)
        #expect(FenceSet.isCompiled(path: path))
        try body(try FenceSet.open(path: path), bytes)
    }

    @Test("a compiled set equals the set it was written from: fences, lookups, fragments, containment, nearest")
    func roundTripEquals() throws {
        for seed in testSeeds(3) {
            let set = try FenceSet(Self.world(seed: seed, count: 160))
            try Self.roundTrip(set) { opened, _ in
                #expect(opened.count == set.count && opened.repairedCount == set.repairedCount)
                #expect(Array(opened.fences) == Array(set.fences), "seed \(seed)")
                for slot in 0..<set.count {
                    #expect(opened.slot(of: set.geofenceID(at: slot)) == slot)
                    #expect(Array(opened.storage.eventFragments[2 * slot + 1]) == Array(set.storage.eventFragments[2 * slot + 1]))
                }
                #expect(opened.slot(of: "no such fence") == nil)
                let a = try ContainmentEvaluator(fenceSet: set), b = try ContainmentEvaluator(fenceSet: opened)
                var rng = SplitMix64(seed: seed)
                let fences = Array(set.fences)
                for _ in 0..<600 {
                    let (lat, lon, level) = randomFix(&rng, near: fences)
                    #expect(try a.containing(latitude: lat, longitude: lon, level: level) == b.containing(latitude: lat, longitude: lon, level: level))
                    #expect(try a.nearest(latitude: lat, longitude: lon, count: 5) == b.nearest(latitude: lat, longitude: lon, count: 5))
                }
            }
        }
    }

    @Test("an empty set and a one-fence set round-trip")
    func smallSets() throws {
        for fences in [[], [Fence(geofenceID: "only", shape: .circle(center: Coordinate(latitude: 1, longitude: 2), radius: 30))]] {
            try Self.roundTrip(try FenceSet(fences)) { opened, _ in
                #expect(Array(opened.fences) == fences)
                let e = try ContainmentEvaluator(fenceSet: opened)
                #expect(try e.containingIDs(latitude: 1, longitude: 2, level: nil) == fences.map(\.geofenceID))
            }
        }
    }

    /// Whether opening `bytes` fails with a reason containing one of `words`.
    static func fails(_ bytes: [UInt8], _ words: [String]) -> String? {
        do {
            _ = try bytes.withUnsafeBytes { try FenceSet.open(bytes: $0, name: "f.fences") }
            return "opened"
        } catch let error as FileError {
            guard error.path == "f.fences", words.contains(where: { error.reason.contains($0) }) else { return error.description }
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("truncated files are refused, naming the file and the sizes")
    func truncated() throws {
        try Self.roundTrip(try FenceSet(Self.world(seed: 9, count: 40))) { _, bytes in
            for cut in [0, 5, 8, 40, 63, 64, 100, bytes.count / 2, bytes.count - 64, bytes.count - 1] {
                let words = cut < 8 ? ["not a compiled fence file"] : ["truncated"]
                #expect(Self.fails(Array(bytes[0..<cut]), words) == nil, "cut at \(cut)")
            }
            #expect(Self.fails(bytes + [0], ["bytes added"]) == nil)
        }
    }

    @Test("a bit flipped anywhere is found", arguments: [1, 2] as [UInt64])
    func bitFlips(seed: UInt64) throws {
        try Self.roundTrip(try FenceSet(Self.world(seed: seed, count: 60))) { _, bytes in
            var rng = SplitMix64(seed: seed)
            // Every byte of the header and the table, then random bytes of the sections and padding.
            var positions = Array(0..<Swift.min(bytes.count, 64 + 36 * 32))
            positions += (0..<300).map { _ in rng.int(0...(bytes.count - 1)) }
            for position in positions {
                var damaged = bytes
                damaged[position] ^= UInt8(1) << UInt8(rng.int(0...7))
                let problem = Self.fails(damaged, ["damaged", "version", "not a compiled fence file", "truncated"])
                #expect(problem == nil, "seed \(seed): flip at byte \(position) of \(bytes.count): \(problem ?? "")")
            }
        }
    }

    @Test("another format version is refused with a clear message")
    func otherVersion() throws {
        try Self.roundTrip(try FenceSet(Self.world(seed: 3, count: 10))) { _, bytes in
            var other = bytes
            other[8] = 1
            Self.resealHeader(&other)
            #expect(Self.fails(other, ["format version 1; this build reads version \(FenceFileFormat.version)"]) == nil)
        }
    }

    /// Recomputes every digest and both hashes, as a writer would: content that breaks the
    /// layout's rules then passes the checksums and must be caught by the structure checks.
    static func reseal(_ bytes: inout [UInt8]) {
        let count = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) })
        for k in 0..<count {
            let at = 64 + 32 * k
            let (offset, length) = bytes.withUnsafeBytes {
                (Int($0.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)), Int($0.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)))
            }
            let padded = FenceFileFormat.padded(length)
            let digest = bytes.withUnsafeBytes {
                FenceFileDigest.digests([.init(payload: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + padded)]), paddedLength: padded)], threads: 1)[0]
            }
            withUnsafeBytes(of: digest.littleEndian) { bytes.replaceSubrange((at + 24)..<(at + 32), with: $0) }
        }
        let tableEnd = FenceFileFormat.padded(64 + 32 * count)
        let content = bytes.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[64..<tableEnd])) }
        withUnsafeBytes(of: content.littleEndian) { bytes.replaceSubrange(32..<40, with: $0) }
        resealHeader(&bytes)
    }

    static func resealHeader(_ bytes: inout [UInt8]) {
        var header = Array(bytes[0..<64])
        header.replaceSubrange(40..<48, with: repeatElement(0, count: 8))
        let hash = header.withUnsafeBytes { XXH64.hash($0) }
        withUnsafeBytes(of: hash.littleEndian) { bytes.replaceSubrange(40..<48, with: $0) }
    }

    /// The byte range of a section's payload.
    static func section(_ id: FenceSectionID, in bytes: [UInt8]) -> Range<Int> {
        let count = Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) })
        for k in 0..<count {
            let at = 64 + 32 * k
            let (raw, offset, length) = bytes.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: at, as: UInt32.self), Int($0.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)),
                 Int($0.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)))
            }
            if raw == id.raw { return offset..<(offset + length) }
        }
        return 0..<0
    }

    /// A cell listing edges past its polygon's list, or past the section's end, and a listed
    /// edge naming a position outside the vertices: open does not read every cell (that was
    /// most of opening a million-fence file), so the test clamps such reads. The file opens and
    /// every query stays in bounds (AddressSanitizer checks the reads under `make sanitize`).
    @Test("damaged cells and listed edges with valid checksums open, and every query stays in bounds")
    func clampedCells() throws {
        var rng = SeededGenerator(seed: 5)
        let fences = RandomWorld.city.fences(count: 80, &rng)
        try Self.roundTrip(try FenceSet(fences)) { opened, bytes in
            typealias F = FenceSectionID
            for id in [F.polygonCells, F.polygonCellEdges] {
                let range = Self.section(id, in: bytes)
                for at in [0, range.count / 2, range.count - 4] {
                    var damaged = bytes
                    for i in (range.lowerBound + at)..<(range.lowerBound + at + 4) { damaged[i] = 0xFF }
                    Self.reseal(&damaged)
                    try damaged.withUnsafeBytes { raw in
                        let set = try FenceSet.open(bytes: raw, name: "f.fences")
                        let evaluator = try ContainmentEvaluator(fenceSet: set)
                        var probe = SplitMix64(seed: UInt64(at))
                        for fence in fences.prefix(40) {
                            let box = fence.boundingBoxes[0]
                            for _ in 0..<20 {
                                _ = try evaluator.containingIDs(
                                    latitude: probe.double(box.minLatitude...box.maxLatitude),
                                    longitude: probe.double(box.minLongitude...box.maxLongitude))
                            }
                        }
                    }
                }
            }
            #expect(opened.count == fences.count)
        }
    }

    @Test("content that breaks the layout but carries valid checksums is refused as inconsistent")
    func inconsistent() throws {
        var rng = SeededGenerator(seed: 4)
        // A city only: its directory is enabled, so every directory section has content.
        try Self.roundTrip(try FenceSet(RandomWorld.city.fences(count: 80, &rng))) { opened, bytes in
            #expect(opened.directory.isEnabled)
            typealias F = FenceSectionID
            // Each damage: a section and bytes within it set to 0xFF (an offset, slot or position
            // far out of range).
            let cases: [(F, Int)] = [
                (F.idOffsets, 8), (F.propertyOffsets, 16), (F.fragmentOffsets, 8), (F.idTable, 0), (F.storageIndex, 4),
                (F.partStarts, 4), (F.vertexStarts, 8), (F.chunkRanges, 0), (F.slotChunks, 0), (F.treeRefs, 0),
                (F.treeLevels, 0), (F.cellStarts, 4), (F.cellSlots, 4), (F.meta, 8 * 15),
            ]
            // A polygon's record naming cells past the end.
            let polygon = try #require((0..<opened.count).first { PolygonGrid(opened.storage.polygonCells.records[2 * Int(opened.storage.storageIndex[$0])], opened.storage.polygonCells.records[2 * Int(opened.storage.storageIndex[$0]) + 1]) != nil })
            let cellCases: [(F, Int)] = [(F.records, (2 * Int(opened.storage.storageIndex[polygon]) + 1) * 32 + 24)]
            for (id, at) in cases + cellCases {
                var damaged = bytes
                let range = Self.section(id, in: bytes)
                #expect(range.count >= at + 4, "section \(id) too short for the test")
                for i in (range.lowerBound + at)..<(range.lowerBound + at + 4) { damaged[i] = 0xFF }
                // A run count of Int32.max (0xFFFFFFFF would read as -1, "left to GEOS").
                if id == F.slotChunks { damaged[range.lowerBound + 3] = 0; damaged.replaceSubrange((range.lowerBound + 4)..<(range.lowerBound + 8), with: [0xFF, 0xFF, 0xFF, 0x7F]) }
                if id == F.idTable {
                    // Every entry naming a slot past the end.
                    for i in stride(from: range.lowerBound, to: range.upperBound, by: 4) { damaged[i] = 0xFF }
                }
                Self.reseal(&damaged)
                #expect(Self.fails(damaged, ["inconsistent"]) == nil, "section \(id)")
            }
        }
    }
}

import Testing
import GeofenceTestSupport
@testable import GeofenceEngine

/// The packed R-tree on its own: searches and nearest against brute force over raw boxes.
@Suite("PackedRTree")
struct PackedRTreeTests {
    /// Sizes around the node size (16), where level boundaries change.
    static let sizes = [0, 1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1_000, 4_000]

    /// Random boxes: mostly small, some degenerate (points, segments), some duplicated,
    /// some touching ±180° or ±90°, a few the whole world.
    static func boxes(count: Int, _ rng: inout SeededGenerator) -> [BoundingBox] {
        var out: [BoundingBox] = []
        for _ in 0..<count {
            if !out.isEmpty && rng.chance(0.05) { out.append(out[rng.int(0...(out.count - 1))]); continue }
            if rng.chance(0.01) { out.append(.world); continue }
            let lon = rng.chance(0.1) ? (rng.chance(0.5) ? 180.0 : -180.0) : rng.double(-180...180)
            let lat = rng.chance(0.05) ? (rng.chance(0.5) ? 90.0 : -90.0) : rng.double(-90...90)
            let w = rng.chance(0.1) ? 0 : rng.logUniform(1e-6, 20)
            let h = rng.chance(0.1) ? 0 : rng.logUniform(1e-6, 20)
            let minLon = Swift.max(-180, Swift.min(lon, 180 - w)), minLat = Swift.max(-90, Swift.min(lat, 90 - h))
            out.append(BoundingBox(
                minLongitude: minLon, minLatitude: minLat,
                maxLongitude: Swift.min(180, minLon + w), maxLatitude: Swift.min(90, minLat + h)))
        }
        return out
    }

    /// Points: random, plus exact corners and edge points of the boxes (where the outward
    /// Float rounding must not lose a box).
    static func points(_ boxes: [BoundingBox], count: Int, _ rng: inout SeededGenerator) -> [Coordinate] {
        (0..<count).map { _ in
            if boxes.isEmpty || rng.chance(0.4) {
                return Coordinate(latitude: rng.double(-90...90), longitude: rng.double(-180...180))
            }
            let b = boxes[rng.int(0...(boxes.count - 1))]
            let lon = rng.chance(0.5) ? (rng.chance(0.5) ? b.minLongitude : b.maxLongitude) : rng.double(b.minLongitude...b.maxLongitude)
            let lat = rng.chance(0.5) ? (rng.chance(0.5) ? b.minLatitude : b.maxLatitude) : rng.double(b.minLatitude...b.maxLatitude)
            return Coordinate(latitude: lat, longitude: lon)
        }
    }

    /// The box grown by two Float ulps on each side: the most the stored box may exceed it.
    static func floatSlack(_ b: BoundingBox) -> BoundingBox {
        func down(_ x: Double) -> Double { Double(Float(x).nextDown.nextDown) }
        func up(_ x: Double) -> Double { Double(Float(x).nextUp.nextUp) }
        return BoundingBox(
            minLongitude: down(b.minLongitude), minLatitude: down(b.minLatitude),
            maxLongitude: up(b.maxLongitude), maxLatitude: up(b.maxLatitude))
    }

    @Test("point search finds every box holding the point, and extras only within Float rounding", arguments: [1, 2, 3] as [UInt64])
    func pointSearchMatchesBruteForce(seed: UInt64) {
        for size in Self.sizes {
            var rng = SeededGenerator(seed: seed &* 1_000_003 &+ UInt64(size))
            let boxes = Self.boxes(count: size, &rng)
            let tree = PackedRTree(boxes: boxes, values: (0..<size).map(Int32.init))
            var found: [Int32] = []
            for p in Self.points(boxes, count: 300, &rng) {
                found.removeAll(keepingCapacity: true)
                tree.search(latitude: p.latitude, longitude: p.longitude, into: &found)
                let expected = boxes.indices.filter { boxes[$0].contains(latitude: p.latitude, longitude: p.longitude) }
                let got = Set(found.map(Int.init))
                #expect(got.count == found.count, "seed \(seed) size \(size): an item reported twice at \(p)")
                #expect(Set(expected).isSubset(of: got), "seed \(seed) size \(size): missed \(Set(expected).subtracting(got)) at \(p)")
                for extra in got.subtracting(expected) {
                    #expect(Self.floatSlack(boxes[extra]).contains(latitude: p.latitude, longitude: p.longitude),
                            "seed \(seed) size \(size): item \(extra) \(boxes[extra]) reported for \(p)")
                }
            }
        }
    }

    @Test("box search finds every intersecting box", arguments: [4, 5] as [UInt64])
    func boxSearchMatchesBruteForce(seed: UInt64) {
        for size in Self.sizes {
            var rng = SeededGenerator(seed: seed &* 7_919 &+ UInt64(size))
            let boxes = Self.boxes(count: size, &rng)
            let tree = PackedRTree(boxes: boxes, values: (0..<size).map(Int32.init))
            for query in Self.boxes(count: 100, &rng) {
                var found: [Int32] = []
                tree.search(intersecting: query, into: &found)
                let expected = Set(boxes.indices.filter { boxes[$0].intersects(query) })
                let got = Set(found.map(Int.init))
                #expect(expected.isSubset(of: got), "seed \(seed) size \(size): missed \(expected.subtracting(got)) for \(query)")
                for extra in got.subtracting(expected) {
                    #expect(Self.floatSlack(boxes[extra]).intersects(query), "seed \(seed) size \(size): \(extra) for \(query)")
                }
            }
        }
    }

    @Test("nearest equals brute force, ties by value, each value once", arguments: [6, 7, 8] as [UInt64])
    func nearestMatchesBruteForce(seed: UInt64) {
        for size in Self.sizes {
            var rng = SeededGenerator(seed: seed &* 104_729 &+ UInt64(size))
            let boxes = Self.boxes(count: size, &rng)
            // Items 2k and 2k+1 share value k when `paired`: one value reached through two
            // boxes, as a fence split at the antimeridian is.
            let paired = rng.chance(0.5)
            let values = (0..<size).map { Int32(paired ? $0 / 2 : $0) }
            let tree = PackedRTree(boxes: boxes, values: values)
            for p in Self.points(boxes, count: 40, &rng) {
                // A value's exact distance: to the nearest of its boxes (what a split fence is).
                var exact: [Int32: Double] = [:]
                for (i, v) in values.enumerated() { exact[v] = Swift.min(exact[v] ?? .infinity, boxes[i].distance(to: p)) }
                let accepted = { (v: Int32) in v % 5 != 3 }
                let k = rng.int(1...20)
                let expected = exact.filter { accepted($0.key) }.map { ($0.key, $0.value) }
                    .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(k)
                var calls: [Int32] = []
                let got = tree.nearest(to: p, count: k, accept: accepted, exactDistance: { (v: Int32, bound: Double) -> Double in
                    calls.append(v)
                    #expect(bound <= exact[v]!, "seed \(seed) size \(size): bound \(bound) above the distance of \(v)")
                    return exact[v]!
                })
                #expect(got.map(\.value) == expected.map(\.0), "seed \(seed) size \(size) k \(k) at \(p)")
                #expect(got.map(\.distance) == expected.map(\.1), "seed \(seed) size \(size) k \(k) at \(p)")
                #expect(Set(calls).count == calls.count, "seed \(seed) size \(size): exactDistance called twice for a value")
            }
        }
    }

    @Test("layout: levels, memory and an empty tree")
    func layout() {
        let empty = PackedRTree(boxes: [], values: [])
        var found: [Int32] = [7]
        empty.search(latitude: 0, longitude: 0, into: &found)
        #expect(found == [7])
        #expect(empty.levelCount == 0)
        #expect(empty.nearest(to: Coordinate(latitude: 0, longitude: 0), count: 3, accept: { _ in true }, exactDistance: { _, _ in 0 }).isEmpty)
        let one = PackedRTree(boxes: [.world], values: [42])
        one.search(latitude: 90, longitude: -180, into: &found)
        #expect(found == [7, 42])
        #expect(one.levelCount == 1)
        let box = BoundingBox(minLongitude: 1, minLatitude: 1, maxLongitude: 2, maxLatitude: 2)
        for (n, levels) in [(16, 2), (17, 3), (256, 3), (257, 4)] {
            let tree = PackedRTree(boxes: Array(repeating: box, count: n), values: Array(repeating: 0, count: n))
            #expect(tree.levelCount == levels, "n \(n)")
            #expect(tree.memoryBytes >= n * 20)
        }
    }

    @Test("empty and non-finite boxes neither trap nor match")
    func degenerateInput() {
        let nan = BoundingBox(minLongitude: .nan, minLatitude: .nan, maxLongitude: .nan, maxLatitude: .nan)
        let unit = BoundingBox(minLongitude: 0, minLatitude: 0, maxLongitude: 1, maxLatitude: 1)
        let tree = PackedRTree(boxes: [.empty, nan, unit, .empty], values: [0, 1, 2, 3])
        var found: [Int32] = []
        tree.search(latitude: 0.5, longitude: 0.5, into: &found)
        #expect(found == [2])
        found = []
        tree.search(latitude: .nan, longitude: 0.5, into: &found)
        #expect(found.isEmpty)
        let near = tree.nearest(to: Coordinate(latitude: 2, longitude: 2), count: 4, accept: { _ in true }, exactDistance: { v, b in b })
        #expect(near.first?.value == 2)
    }

    @Test("Hilbert index is a bijection on a corner of the grid and starts at 0")
    func hilbert() {
        var seen = Set<UInt32>()
        for x in 0..<64 as Range<UInt32> {
            for y in 0..<64 as Range<UInt32> { seen.insert(PackedRTree.hilbert(x: x, y: y)) }
        }
        #expect(seen.count == 64 * 64)
        #expect(PackedRTree.hilbert(x: 0, y: 0) == 0)
        // Consecutive curve positions are neighbouring cells: the 4096 values of the 64×64
        // corner are 0..<4096 (the curve fills a quadrant before leaving it).
        #expect(seen.max().map(Int.init) == 64 * 64 - 1)
    }
}

/// The radix sorts against the standard library's sort.
@Suite("Radix sort")
struct RadixSortTests {
    @Test("sort and sort by the upper word equal the standard library's order", arguments: [1, 2] as [UInt64])
    func twin(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        for round in 0..<200 {
            let n = rng.int(0...3_000)
            // Few distinct values some rounds (skipped passes, ties), full range others.
            // Upper words of 0, 16, 17, 20 and 32 bits: one pass, two even ones, two uneven, three.
            let mask: UInt64 = [0xFF, 0xFFFF_0000_0000, 0x1_FFFF_0000_0000, 0xF_FFFF_0000_0000, .max][rng.int(0...4)]
            var keys = (0..<n).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) & mask }
            let spare = UnsafeMutablePointer<UInt64>.allocate(capacity: max(1, n))
            defer { spare.deallocate() }
            var sorted = keys
            sorted.withUnsafeMutableBufferPointer { RadixSort.sort($0.baseAddress ?? spare, spare: spare, count: n) }
            #expect(sorted == keys.sorted(), "seed \(seed) round \(round)")
            // By the upper word only, stably: the low words keep their order within a tie.
            keys = (0..<n).map { i in (UInt64.random(in: 0...UInt64.max, using: &rng) & mask & 0xFFFF_FFFF_0000_0000) | UInt64(i) }
            let expected = keys.enumerated().sorted { ($0.element >> 32, $0.offset) < ($1.element >> 32, $1.offset) }.map(\.element)
            var a = UnsafeMutablePointer<UInt64>.allocate(capacity: max(1, n)), b = UnsafeMutablePointer<UInt64>.allocate(capacity: max(1, n))
            defer { a.deallocate(); b.deallocate() }
            a.initialize(from: keys, count: n)
            RadixSort.byHighWord(count: n, largest: keys.map { $0 >> 32 }.max() ?? 0, keys: { a }, spare: { b }, swap: { swap(&a, &b) })
            #expect(Array(UnsafeBufferPointer(start: a, count: n)) == expected, "seed \(seed) round \(round): by the upper word")
        }
    }
}

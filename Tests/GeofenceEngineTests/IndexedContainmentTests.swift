import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// Containment through the R-tree against its slow twin, the scan, on random fence worlds.
@Suite("Indexed containment")
struct IndexedContainmentTests {
    static let worlds: [(String, RandomWorld)] = [("city", .city), ("antimeridian", .antimeridian), ("pole", .pole)]

    /// Random level and options for a query.
    static func query(_ rng: inout SeededGenerator) -> (level: Int?, options: ContainmentOptions) {
        let level: Int? = rng.chance(0.5) ? rng.int(0...2) : nil
        let options = ContainmentOptions(levelFences: !rng.chance(0.15), globalFences: !rng.chance(0.15))
        return (level, options)
    }

    @Test("containing equals containingByScan", arguments: sized(full: [11, 12, 13], quick: [11]) as [UInt64])
    func containingMatchesScan(seed: UInt64) throws {
        for (name, world) in Self.worlds {
            for size in [0, 1, 16, 17, 60, 400] {
                var rng = SeededGenerator(seed: seed &* 31 &+ UInt64(size))
                let fences = world.fences(count: size, &rng)
                let set = try FenceSet(fences)
                let evaluator = try ContainmentEvaluator(fenceSet: set)
                var buffer: [Int32] = []
                for p in world.queryPoints(count: 250, fences: fences, &rng) {
                    let (level, options) = Self.query(&rng)
                    let scan = try evaluator.containingByScan(latitude: p.latitude, longitude: p.longitude, level: level, options: options)
                    try evaluator.containing(latitude: p.latitude, longitude: p.longitude, level: level, options: options, into: &buffer)
                    #expect(buffer.map(Int.init) == scan, "seed \(seed) world \(name) size \(size) at \(p) level \(String(describing: level))")
                    let plain = try evaluator.containing(latitude: p.latitude, longitude: p.longitude, level: level, options: options)
                    #expect(plain == scan, "seed \(seed) world \(name) size \(size) at \(p)")
                }
            }
        }
    }

    @Test("fencesWithin equals fencesWithinByScan", arguments: [21, 22] as [UInt64])
    func withinMatchesScan(seed: UInt64) throws {
        for (name, world) in Self.worlds {
            for size in [0, 1, 17, 200] {
                var rng = SeededGenerator(seed: seed &* 37 &+ UInt64(size))
                let fences = world.fences(count: size, &rng)
                let set = try FenceSet(fences)
                let evaluator = try ContainmentEvaluator(fenceSet: set)
                for p in world.queryPoints(count: 120, fences: fences, &rng) {
                    let (level, options) = Self.query(&rng)
                    let maximum = rng.chance(0.2) ? 0 : rng.logUniform(1, 3_000)
                    // Per-fence buffers up to the maximum; some 0 (covers only).
                    let salt = rng.next()
                    let buffer = { (slot: Int) -> Double in
                        let h = (UInt64(slot) &* 0x9E37_79B9_7F4A_7C15 ^ salt) % 4
                        return h == 0 ? 0 : maximum * Double(h) / 3
                    }
                    let scan = try evaluator.fencesWithinByScan(
                        latitude: p.latitude, longitude: p.longitude, level: level, options: options,
                        maximumBuffer: maximum, buffer: buffer)
                    let tree = try evaluator.fencesWithin(
                        latitude: p.latitude, longitude: p.longitude, level: level, options: options,
                        maximumBuffer: maximum, buffer: buffer)
                    #expect(tree == scan, "seed \(seed) world \(name) size \(size) at \(p) buffer \(maximum)")
                }
            }
        }
    }

    @Test("a fence split at the antimeridian is reported once, on both sides")
    func antimeridianCircle() throws {
        let set = try FenceSet([
            Fence(geofenceID: "am", shape: .circle(center: Coordinate(latitude: 0, longitude: 180), radius: 5_000)),
            Fence(geofenceID: "cap", shape: .circle(center: Coordinate(latitude: 89.99, longitude: -40), radius: 3_000)),
        ])
        #expect(set.entries.boxes.count == 3)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        #expect(try evaluator.containingIDs(latitude: 0, longitude: 179.99, level: nil) == ["am"])
        #expect(try evaluator.containingIDs(latitude: 0, longitude: -179.99, level: nil) == ["am"])
        #expect(try evaluator.containingIDs(latitude: 0, longitude: 180, level: nil) == ["am"])
        #expect(try evaluator.containingIDs(latitude: 0, longitude: -180, level: nil) == ["am"])
        #expect(try evaluator.containingIDs(latitude: 89.995, longitude: 140, level: nil) == ["cap"])
        #expect(try evaluator.containingIDs(latitude: 90, longitude: 0, level: nil) == ["cap"])
    }

    @Test("the in-place sort handles long candidate lists (heapsort path)", arguments: [31, 32] as [UInt64])
    func sortRemovingDuplicates(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        for count in [0, 1, 2, 31, 32, 33, 100, 1_000] {
            var a = (0..<count).map { _ in Int32(rng.int(0...(count / 2 + 1))) }
            let expected = Array(Set(a)).sorted()
            ContainmentEvaluator.sortRemovingDuplicates(&a)
            #expect(a == expected, "seed \(seed) count \(count)")
        }
    }

    @Test("the query buffer stops growing once warm")
    func noGrowthOnceWarm() throws {
        var rng = SeededGenerator(seed: 41)
        let fences = RandomWorld.city.fences(count: 300, &rng)
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
        let points = RandomWorld.city.queryPoints(count: 200, fences: fences, &rng)
        var buffer: [Int32] = []
        for p in points { try evaluator.containing(latitude: p.latitude, longitude: p.longitude, level: 1, into: &buffer) }
        let capacity = buffer.capacity
        let address = buffer.withUnsafeBufferPointer { $0.baseAddress }
        for p in points { try evaluator.containing(latitude: p.latitude, longitude: p.longitude, level: 1, into: &buffer) }
        #expect(buffer.capacity == capacity)
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == address, "the buffer was reallocated")
    }
}

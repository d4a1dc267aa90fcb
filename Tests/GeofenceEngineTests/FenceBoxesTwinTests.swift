@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry
import GeofenceTestSupport
import Testing

@Suite("Fence boxes without arrays")
struct FenceBoxesTwinTests {
    /// The builder's boxes (one or two, no array) equal the array-returning functions:
    /// `CircleBounds.boxes` for circles, `BoundingBox.covering` of the exterior rings' boxes
    /// for polygons, over seeded worlds in a city, across the antimeridian (split
    /// MultiPolygons, circles crossing ±180°) and at a pole. Both sides share the split
    /// (`boxPair`, `coveringPair`, tested in BoundsTests); the twin is the public
    /// `Fence.boundingBoxes`, which reads the fence's own rings, so this checks the builder's
    /// reading of parts and exterior rings from the flat records.
    @Test("boundingBoxes equals the array twins")
    func twins() {
        for seed in testSeeds(3, base: 0xB0_8E5) {
            var world = SeededGenerator(seed: seed)
            var fences = RandomWorld.city.fences(count: 80, &world)
            fences += RandomWorld.antimeridian.fences(count: 80, &world)
            fences += RandomWorld.pole.fences(count: 40, &world)
            // Circles over a pole, wider than a hemisphere, and crossing the antimeridian.
            fences.append(Fence(geofenceID: "pole", shape: .circle(center: Coordinate(latitude: 89.99, longitude: 12), radius: 5_000)))
            fences.append(Fence(geofenceID: "wide", shape: .circle(center: Coordinate(latitude: 10, longitude: 170), radius: 1_000_000)))
            fences.append(Fence(geofenceID: "east", shape: .circle(center: Coordinate(latitude: -40, longitude: 179.999), radius: 900)))
            fences.append(Fence(geofenceID: "west", shape: .circle(center: Coordinate(latitude: 60, longitude: -179.999), radius: 900)))
            var records = FenceRecords()
            for fence in fences { records.append(fence) }
            var wrapped = 0
            for i in 0..<records.count {
                let (first, second) = FenceSetBuilder.boundingBoxes(records, i)
                let twin = fences[i].boundingBoxes
                #expect(twin.count == (second.isEmpty ? 1 : 2), "seed \(seed), fence \(fences[i].geofenceID)")
                #expect(twin.first == first, "seed \(seed), fence \(fences[i].geofenceID): first box")
                if twin.count == 2 {
                    #expect(twin[1] == second, "seed \(seed), fence \(fences[i].geofenceID): second box")
                    wrapped += 1
                }
            }
            #expect(wrapped > 2, "seed \(seed): some fences cross the antimeridian")
        }
    }

    /// Gathering on several threads (index entries written by ranges of slots, each range
    /// starting after the split fences before it) equals the obvious twin: every slot's boxes
    /// appended in slot order; and the Hilbert order's keys computed in parallel give the
    /// one-thread order. Enough fences for many ranges, many of them split at ±180°.
    @Test("gathered entries and the Hilbert order equal their one-thread twins")
    func gatheredEntries() {
        for seed in testSeeds(2, base: 0x6A7_4E5) {
            var world = SeededGenerator(seed: seed)
            let fences = RandomWorld.antimeridian.fences(count: 20_000, &world) + RandomWorld.city.fences(count: 16_000, &world)
            var records = FenceRecords()
            for (k, var fence) in fences.enumerated() {
                fence.geofenceID = "f\(k)"
                records.append(fence)
            }
            let slots = FenceIDOrder.resolve([(records.ids, records.featureIndexes)], recordLists: 1).slots
            var twinBoxes: [BoundingBox] = [], twinSlots: [Int32] = [], twinIDs: [UInt8] = []
            for (slot, ref) in slots.enumerated() {
                twinIDs += records.ids.slice(Int(ref.index))
                let (first, second) = FenceSetBuilder.boundingBoxes(records, Int(ref.index))
                twinBoxes.append(first)
                twinSlots.append(Int32(slot))
                if !second.isEmpty {
                    twinBoxes.append(second)
                    twinSlots.append(Int32(slot))
                }
            }
            #expect(twinBoxes.count > slots.count + 500, "seed \(seed): fences split at the antimeridian")
            for threads in [1, 3] {
                let g = FenceSetBuilder.gather([records], slots, threads: threads)
                #expect(g.entryBoxes == twinBoxes && g.entrySlots == twinSlots, "seed \(seed), \(threads) threads: entries")
                #expect(Array(g.ids.bytes.buffer) == twinIDs, "seed \(seed), \(threads) threads: ids")
                let order = PackedRTree.hilbertOrder(g.entryBoxes, threads: threads)
                #expect(order == PackedRTree.hilbertOrder(g.entryBoxes), "seed \(seed), \(threads) threads: Hilbert order")
            }
        }
    }
}

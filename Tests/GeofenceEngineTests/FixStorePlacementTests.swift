import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

@Suite("Slot store placement")
struct FixStorePlacementTests {
    @Test("a parsed slice is placed device by device, each device in line order", arguments: [false, true])
    func placeGroupsStably(keepsExtras: Bool) {
        for seed in testSeeds(8) {
            var rng = SplitMix64(seed: seed)
            let scratch = ScratchMemory()
            let store = FixStore(capacity: 1 << 14, keepsExtras: keepsExtras)!
            let n = rng.int(0...3_000), deviceCount = rng.int(1...40), first = rng.int(0...5_000)
            // Every third seed: rows that already come device by device (the copy-through case).
            let presorted = seed % 3 == 0
            var devices = (0..<n).map { _ in UInt32(rng.int(0...(deviceCount - 1))) }
            if presorted { devices.sort() }
            let staged = FixStore.Writer.staging(in: scratch, rows: n + 1, keepsExtras: keepsExtras)
            var row = FixCSVRow()
            for i in 0..<n {
                row.timestamp = Int64(i)  // the row's line order, to check stability
                row.latitude = Double(devices[i])
                row.longitude = -Double(i)
                row.accuracy = i % 3 == 0 ? .nan : Double(i % 50)
                row.level = i % 5 == 0 ? Int.min : i % 7
                staged.write(row, device: devices[i], at: i)
            }
            store.writer.place(from: staged, count: n, at: first, deviceCount: deviceCount)
            // The slow twin: a stable sort of the line numbers by device.
            let expected = (0..<n).sorted { (devices[$0], $0) < (devices[$1], $1) }
            let reader = store.reader
            for (k, i) in expected.enumerated() {
                let r = reader.record(first + k)
                let same = r.timestamp == Int64(i) && r.latitude == Double(devices[i]) && r.longitude == -Double(i)
                    && store.devices[first + k] == devices[i]
                let accuracy: Float = keepsExtras && i % 3 != 0 ? Float(i % 50) : .nan
                let level: Int32 = keepsExtras && i % 5 != 0 ? Int32(i % 7) : Int32.min
                #expect(same && r.accuracy.bitPattern == accuracy.bitPattern && r.level == level,
                        "seed \(seed): slot \(first + k) holds line \(r.timestamp), expected \(i)")
                if !same { return }
            }
        }
    }
}

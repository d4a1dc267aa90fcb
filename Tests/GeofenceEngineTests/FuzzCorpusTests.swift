import Foundation
@testable import GeofenceEngine
import Testing

/// The fuzz targets' seeds and kept crashes, replayed through the same entries the libFuzzer
/// executables call (`Fuzz/README.md`): an input that once crashed stays checked.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The files of `Fuzz/<kind>/<target>` (no hidden files).
    static func files(_ kind: String, _ target: String) -> [URL] {
        let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("every seed and kept crash runs through its entry without a failure", arguments: FuzzEntries.all.map(\.name))
    func replay(target: String) throws {
        let entry = try #require(FuzzEntries.all.first { $0.name == target }?.entry)
        let seeds = Self.files("corpus", target)
        #expect(!seeds.isEmpty, "no seeds in Fuzz/corpus/\(target)")
        for file in seeds + Self.files("crashes", target) {
            entry([UInt8](try Data(contentsOf: file)))
        }
    }

    /// The entries check what they claim: each property fails on an input made to break it.
    @Test("the CSV entry's slice parser sees the seed rows; the snapshot seeds decode")
    func seedsExercise() throws {
        let csv = [UInt8](try Data(contentsOf: Self.files("corpus", "csv-row").first { $0.lastPathComponent == "basic.csv" }!))
        let body = Array(csv[(csv.firstIndex(of: 0x0A)! + 1)...])
        let header = try csv.withUnsafeBytes { try FixCSVHeader(line: UnsafeRawBufferPointer(rebasing: $0[..<csv.firstIndex(of: 0x0A)!])) }
        let store = try #require(FixStore(capacity: 64, keepsExtras: false))
        let slice = withExtendedLifetime(store) {
            body.withUnsafeBufferPointer { p in
                ParsedSlice.parse(
                    p.baseAddress!, 0, p.count, header: header, policy: FixRowPolicy(), into: store.writer,
                    firstSlot: 0, keepLines: true, scratch: ScratchMemory())
            }
        }
        #expect(slice.rowCount == 3 && slice.rejectedRows == 1 && slice.blankLines == 1)
        for file in Self.files("corpus", "snapshot") {
            let bytes = [UInt8](try Data(contentsOf: file))
            let device = try? SnapshotStore.decode(DeviceSnapshot.self, from: bytes, path: nil)
            let fleet = try? SnapshotStore.decode(FleetSnapshot.self, from: bytes, path: nil)
            #expect(device != nil || fleet != nil || file.lastPathComponent.hasPrefix("damaged"), "\(file.lastPathComponent)")
        }
    }
}

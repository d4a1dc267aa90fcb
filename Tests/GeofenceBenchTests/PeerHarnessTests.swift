import Foundation
import Testing
@testable import geofence_bench

/// The suite's own peer harness: its defaults stay inside the clone, and the pair files of the
/// whole case (`geofence contains --format csv`, DuckDB's `COPY`) give the checksum the peers print.
@Suite("The benchmark's peer harness")
struct PeerHarnessTests {
    @Test("the peers' default folders are relative paths inside the clone")
    func defaultsStayInTheClone() throws {
        let command = try LoadBenchCommand.parse([])
        for path in [PeerRunner.defaultFolder, PeerRunner.defaultBin, PeerRunner.defaultWorld, PeerRunner.defaultVenvPython,
                     command.peersData, command.work] {
            #expect(!path.hasPrefix("/") && !path.hasPrefix(".."), "\(path) leaves the clone")
        }
        let suite = try SuiteCommand.parse([])
        #expect(suite.peers == nil && suite.peersData == nil && suite.peerRunner == nil)
    }

    @Test("both pair files give the checksum of the same pairs, whatever their order")
    func pairFilesChecksum() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pair-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The engine's CSV (row from 1, a trailing empty error field), DuckDB's (no error column).
        let engine = folder.appendingPathComponent("engine.csv").path
        let duck = folder.appendingPathComponent("duck.csv").path
        try "row,geofenceId,error\n1,7,\n3,0,\n3,12,\n".write(toFile: engine, atomically: true, encoding: .utf8)
        try "row,geofenceId\n3,12\n1,7\n3,0\n".write(toFile: duck, atomically: true, encoding: .utf8)
        var expected = PairChecksum()
        for (fix, fence) in [(0, 7), (2, 0), (2, 12)] { expected.add(fix: fix, fence: fence) }
        #expect(try PairChecksum.ofPairFile(engine) == expected)
        #expect(try PairChecksum.ofPairFile(duck) == expected)
        // A rejected row has no fence id: not a pair, so the check fails rather than skips it.
        let rejected = folder.appendingPathComponent("rejected.csv").path
        try "row,geofenceId,error\n1,,parse: bad number\n".write(toFile: rejected, atomically: true, encoding: .utf8)
        #expect(throws: BenchError.self) { try PairChecksum.ofPairFile(rejected) }
    }

    @Test("the checksum is SplitMix64's finaliser of fix << 20 | fence, summed with wrapping")
    func checksumOfKnownPairs() {
        var sum = PairChecksum()
        sum.add(fix: 0, fence: 0)
        // mix64(0) is SplitMix64's first output for seed 0.
        #expect(sum.hex == "e220a8397b1dcdaf")
        sum.add(fix: 1, fence: 2)
        #expect(sum.pairs == 2)
        #expect(sum.sum == 0xE220_A839_7B1D_CDAF &+ PairChecksum.mix64(1 << 20 | 2))
    }
}

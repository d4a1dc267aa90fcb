import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// Records of verified compiled files (`FenceSet.Verification.onceUntilChanged`): the
/// checksums are skipped only for a file unchanged since a full check.
@Suite("Verified fence file records")
struct FenceFileRecordsTests {
    /// A compiled file of a small seeded world in a fresh folder, with a records folder beside
    /// it; the folder is removed afterwards.
    static func withCompiledFile(records: Bool = false, _ body: (_ path: String, _ records: String, _ set: FenceSet) throws -> Void) throws {
        try TestFolders.with("fence-records") { folder in
            let set = try FenceSet(CompiledFenceFileTests.world(seed: 7, count: 60))
            let path = folder.path + "/set.fences", recordsFolder = folder.path + "/records/geofence"
            if records { try set.write(to: path, recordingIn: recordsFolder) } else { try set.write(to: path) }
            try body(path, recordsFolder, set)
        }
    }

    static func open(_ path: String, _ records: String) throws -> (set: FenceSet, checkedDigests: Bool) {
        try FenceSet.openReporting(path: path, verification: .onceUntilChanged(recordsIn: records))
    }

    @Test("a full check records the file; opening it again skips the checksums, and answers the same")
    func recordThenSkip() throws {
        try Self.withCompiledFile { path, records, set in
            let first = try Self.open(path, records)
            #expect(first.checkedDigests)
            #expect(FenceFileRecords(folder: records).entries().count == 1)
            let second = try Self.open(path, records)
            #expect(second.checkedDigests == false)
            #expect(Array(second.set.fences) == Array(set.fences))
            // .full ignores the records, .structure never writes them.
            #expect(try FenceSet.openReporting(path: path, verification: .full).checkedDigests)
            #expect(try FenceSet.openReporting(path: path, verification: .structure).checkedDigests == false)
            #expect(FenceFileRecords(folder: records).entries().count == 1)
        }
    }

    @Test("write(to:recordingIn:) reads the file it wrote back and records it: its first open skips the checksums")
    func writerRecords() throws {
        try Self.withCompiledFile(records: true) { path, records, _ in
            let opened = try Self.open(path, records)
            #expect(opened.checkedDigests == false)
        }
    }

    @Test("a file changed in place, its modification time set back, is checked in full again (and fails)")
    func changedInPlace() throws {
        try Self.withCompiledFile(records: true) { path, records, _ in
            // One bit of a section, past the header and table.
            let size = try #require(Platform.status(atPath: path)).size
            let before = try TestFiles.flipBitKeepingModificationTime(path, at: size / 2)
            let after = try #require(Platform.status(atPath: path))
            #expect(after.size == before.size && after.inode == before.inode && after.modified == before.modified)
            #expect(after.changed != before.changed)
            #expect {
                _ = try Self.open(path, records)
            } throws: { error in
                (error as? FileError)?.reason.contains("does not match its checksum") == true
            }
        }
    }

    @Test("a copy is another file: checked in full")
    func copyIsChecked() throws {
        try Self.withCompiledFile(records: true) { path, records, _ in
            let copy = path + ".copy"
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            #expect(try Self.open(copy, records).checkedDigests)
            #expect(try Self.open(copy, records).checkedDigests == false)
        }
    }

    @Test("a records file that is not one is ignored and replaced; the newest 256 lines are kept")
    func damagedAndFullRecords() throws {
        try Self.withCompiledFile { path, records, _ in
            let file = FenceFileRecords(folder: records)
            try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
            try Data("not a records file\n1 2 3 4 5 6\n".utf8).write(to: URL(fileURLWithPath: file.path))
            #expect(file.entries().isEmpty)
            #expect(try Self.open(path, records).checkedDigests)
            #expect(file.entries().count == 1)
            // 300 lines of other files, a line that does not parse, then this file again.
            let mine = try #require(file.entries().first)
            var lines = [FenceFileRecords.firstLine]
            for k in 0..<300 { lines.append("1 \(k) 2 3 4 5") }
            lines.append("1 2 three 4 5 6")
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file.path))
            #expect(file.entries().count == 300)
            #expect(try Self.open(path, records).checkedDigests)
            let kept = file.entries()
            #expect(kept.count == FenceFileRecords.capacity && kept.last == mine)
            #expect(kept.first?.inode == UInt64(300 - FenceFileRecords.capacity + 1))
        }
    }

    @Test("a record is made only for the file as it was checked; a records file too large, or a folder, is not read")
    func recordGuards() throws {
        try Self.withCompiledFile { path, records, _ in
            let status = try #require(Platform.status(atPath: path))
            let file = FenceFileRecords(folder: records)
            #expect(file.contains(file: path) == false)
            var entry = FenceFileRecords.Entry(status: status, contentHash: 1)
            entry.changed += 1  // changed since it was checked
            #expect(file.add(entry, file: path) == false && file.entries().isEmpty)
            #expect(try Self.open(path, records).checkedDigests && file.contains(file: path))
            // Over 64 KiB (a valid first line, then padding lines): ignored, so checked in full.
            let big = FenceFileRecords.firstLine + "\n" + file.entries().map(\.line).joined(separator: "\n") + "\n"
                + String(repeating: "#\n", count: 40_000)
            try big.write(toFile: file.path, atomically: true, encoding: .utf8)
            #expect(file.entries().isEmpty)
            #expect(try Self.open(path, records).checkedDigests)
            // A folder where the records file goes: nothing is read or written, opens still work.
            try FileManager.default.removeItem(atPath: file.path)
            try FileManager.default.createDirectory(atPath: file.path, withIntermediateDirectories: true)
            #expect(try Self.open(path, records).checkedDigests && Self.open(path, records).checkedDigests)
            #expect(file.entries().isEmpty)
        }
    }

    @Test("a records folder that cannot be made leaves opening as it was: checked in full each time")
    func unwritableFolder() throws {
        try Self.withCompiledFile { path, _, _ in
            let records = path + "/records"  // under a regular file
            let first = try Self.open(path, records), second = try Self.open(path, records)
            #expect(first.checkedDigests && second.checkedDigests)
        }
    }

    @Test("a record waits until the file's change time is two clock ticks old; whole-second times wait two seconds")
    func settleDelay() {
        let now: Int64 = 1_795_000_000_123_456_789
        let settle = FenceFileRecords.settleNanoseconds
        #expect(FenceFileRecords.settleDelay(changed: now, now: now) == settle)
        #expect(FenceFileRecords.settleDelay(changed: now - settle / 2, now: now) == settle / 2)
        #expect(FenceFileRecords.settleDelay(changed: now - settle, now: now) == 0)
        #expect(FenceFileRecords.settleDelay(changed: now - 1_000_000_000, now: now) == 0)
        #expect(FenceFileRecords.settleDelay(changed: now + 1_000_000_000, now: now) == nil)  // from the future
        let second: Int64 = 1_795_000_000_000_000_000
        #expect(FenceFileRecords.settleDelay(changed: second, now: second + 1_000_000_000) == nil)
        #expect(FenceFileRecords.settleDelay(changed: second, now: second + 2_000_000_000) == 0)
    }
}

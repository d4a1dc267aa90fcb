import Foundation
@testable import GeofenceEngine
import GeofenceTestSupport
import Testing

@Suite("Atomic file writer")
struct AtomicFileTests {
    /// A fresh folder under the system's temporary folder, removed by `body`'s caller.
    static func withFolder(_ body: (String) throws -> Void) throws {
        try TestFolders.with("geofence-atomic") { try body($0.path) }
    }

    static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("the file appears only on commit; the old one stays until then")
    func commitReplaces() throws {
        try Self.withFolder { folder in
            let path = folder + "/out.txt"
            try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
            let writer = try AtomicFileWriter(path: path)
            try writer.write(Array("new\n".utf8))
            #expect(Self.contents(path) == "old\n")
            #expect(FileManager.default.fileExists(atPath: writer.temporaryPath))
            try writer.commit()
            #expect(Self.contents(path) == "new\n")
            #expect(!FileManager.default.fileExists(atPath: writer.temporaryPath))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.txt"])
        }
    }

    @Test("abandoning, or dropping without commit, leaves the old file and no temporary file")
    func abandonKeepsOld() throws {
        try Self.withFolder { folder in
            let path = folder + "/out.txt"
            try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
            do {
                let writer = try AtomicFileWriter(path: path)
                try writer.write(Array(repeating: 0x41, count: 3 << 20))  // past the flush threshold
                #expect(writer.temporaryPath.hasPrefix(AtomicFileWriter.temporaryPrefix(for: path)))
            }
            let explicit = try AtomicFileWriter(path: path)
            try explicit.write(Array("x".utf8))
            explicit.abandon()
            #expect(Self.contents(path) == "old\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.txt"])
        }
    }

    /// Raw ranges of every size through a sink, to a file path and to a device, in order:
    /// small ones buffered, those of 64 KiB or more handed on whole (to the file's writer for
    /// a path: a sink for a path has no descriptor of its own), each after what was buffered.
    /// `count` seeded bytes, eight from each draw: drawn one at a time, the pieces' ~15 MB
    /// took most of a minute of the debug build's suite.
    static func randomBytes(_ count: Int, _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var k = 0
        while k < count {
            var word = rng.next()
            for _ in 0..<Swift.min(8, count - k) {
                bytes[k] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                k += 1
            }
        }
        return bytes
    }

    @Test("a sink takes raw ranges of any size, to a file path and to a device")
    func sinkRawRanges() throws {
        for seed in testSeeds(2, base: 0x51_4B) {
            var rng = SplitMix64(seed: seed)
            var expected: [UInt8] = []
            // Sizes on both sides of the direct-write minimum and of the buffers' megabyte.
            let edge = AtomicFileWriter.directMinimum
            let sizes = [edge - 1, edge, edge + 1, 0, 1] + (0..<12).map { _ in
                rng.chance(0.3) ? rng.int((1 << 20)...(3 << 20)) : rng.int(0...(2 * edge))
            }
            let pieces = sizes.shuffled(using: &rng).map { count in Self.randomBytes(count, &rng) }
            for piece in pieces { expected += piece }
            try Self.withFolder { folder in
                let path = folder + "/out.bin"
                let sink = try OutputSink(path: path)
                for piece in pieces { try piece.withUnsafeBytes { try sink.write($0) } }
                try sink.commit()
                #expect(FileManager.default.contents(atPath: path).map(Array.init) == expected, "seed \(seed)")
                let device = try OutputSink(path: "/dev/null")
                for piece in pieces { try piece.withUnsafeBytes { try device.write($0) } }
                try device.commit()
            }
        }
    }

    /// The writeback hint reaches the system for a file (on Linux) and is refused for a
    /// device; the file's bytes are the same either way.
    @Test("writeback hints are taken for a file and refused for a device")
    func writebackHint() throws {
        try Self.withFolder { folder in
            let path = folder + "/hinted.bin"
            let bytes = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? file.close() }
            let device = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
            defer { try? device.close() }
            #if os(Linux)
            #expect(Platform.startWriteback(file.fileDescriptor, offset: 0, count: bytes.count))
            #else
            #expect(!Platform.startWriteback(file.fileDescriptor, offset: 0, count: bytes.count))
            #endif
            #expect(!Platform.startWriteback(device.fileDescriptor, offset: 0, count: 1 << 20))
            #expect(FileManager.default.contents(atPath: path) == Data(bytes))
            // A writer asks for writeback as it goes: all but the last step's bytes by the end.
            let target = folder + "/written.bin"
            let writer = try AtomicFileWriter(path: target)
            let step = AtomicFileWriter.writebackStep
            var expected: [UInt8] = []
            for k in 0..<(5 * step / (1 << 20)) {
                let piece = [UInt8](repeating: UInt8(truncatingIfNeeded: k), count: k % 2 == 0 ? 1 << 20 : 100_000)
                expected += piece
                try piece.withUnsafeBytes { try writer.write($0) }
            }
            #if os(Linux)
            #expect(writer.writebackStarted > expected.count - 2 * step, "\(writer.writebackStarted) of \(expected.count) bytes")
            #else
            #expect(writer.writebackStarted == 0)
            #endif
            try writer.commit()
            #expect(FileManager.default.contents(atPath: target).map(Array.init) == expected)
        }
    }

    @Test("writers to one path get distinct temporary files")
    func uniqueTemporaryNames() throws {
        try Self.withFolder { folder in
            let writers = try (0..<8).map { _ in try AtomicFileWriter(path: folder + "/same") }
            #expect(Set(writers.map(\.temporaryPath)).count == 8)
            for w in writers { w.abandon() }
        }
    }

    @Test("a folder that cannot take the file is an error naming the path")
    func missingFolder() {
        #expect(throws: FileError.self) { try AtomicFileWriter(path: "/nonexistent-geofence-folder/out") }
    }
}

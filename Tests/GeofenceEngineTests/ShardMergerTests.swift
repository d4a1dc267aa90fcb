import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The streaming merge on bytes against its slow twin (``SimpleShardMerger``) over seeded
/// random shard files: ids that need escapes or are written with needless ones, a nested
/// `deviceId` inside the properties, members before `deviceId`, blank lines, CRLF, a last
/// line without a break, and blocks smaller than a device's run.
@Suite("Shard merge on bytes")
struct ShardMergerTests {
    /// A random event line for `device` (its JSON string literal as written in the file).
    static func line(_ rng: inout SplitMix64, device literal: String) -> String {
        let properties = rng.chance(0.3) ? #"{"deviceId":"zzz","k":[1,{"a":"]}"}]}"# : #"{"name":"x, \"y\""}"#
        let lead = rng.chance(0.2) ? #" { "note" : {"deviceId":"nested"} , "n":-1.5e3,"#: "{"
        return lead + #""eventType":"entrance","timestamp":\#(rng.int(0...1_000_000)),"deviceId":\#(literal),"geofenceId":"f","lat":1.5,"lng":2,"radius":50,"geofenceProperties":\#(properties)}"#
    }

    /// Device ids: plain, sharing prefixes, unicode, needing escapes.
    static func deviceIDs(_ rng: inout SplitMix64, count: Int) -> [String] {
        let pieces = ["a", "b", "ab", "é", "日本", "\"", "\\", "\n", "Z", "0", "~", "a b"]
        var ids = Set<String>()
        while ids.count < count {
            ids.insert((0..<rng.int(1...4)).map { _ in pieces[rng.int(0...(pieces.count - 1))] }.joined())
        }
        return ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The JSON literal of `id`, sometimes with a needless escape (`\u0061` for `a`).
    static func literal(_ rng: inout SplitMix64, _ id: String) -> String {
        var bytes: [UInt8] = []
        JSONWriter.writeString(id, to: &bytes)
        var text = String(decoding: bytes, as: UTF8.self)
        if rng.chance(0.2), let a = text.firstIndex(of: "a") { text.replaceSubrange(a...a, with: "\\u0061") }
        return text
    }

    static func writeShards(seed: UInt64, dir: URL) throws -> [String] {
        var rng = SplitMix64(seed: seed)
        let shards = rng.int(1...5)
        let ids = deviceIDs(&rng, count: rng.int(1...40))
        var texts = [String](repeating: "", count: shards)
        for id in ids {
            let k = rng.int(0...(shards - 1))
            for _ in 0..<rng.int(1...30) {
                let end = rng.chance(0.05) ? "\r\n" : "\n"
                texts[k] += line(&rng, device: literal(&rng, id)) + end
                if rng.chance(0.03) { texts[k] += "\n" }
            }
        }
        return try texts.enumerated().map { k, text in
            var text = text
            if rng.chance(0.3) && text.hasSuffix("\n") && !text.hasSuffix("\r\n") { text.removeLast() }
            let path = dir.appendingPathComponent("shard\(k).ndjson").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
    }

    @Test("the streaming merge equals the simple merge, byte for byte", arguments: testSeeds(sized(full: 40, quick: 8)))
    func twin(seed: UInt64) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try Self.writeShards(seed: seed, dir: dir)
        let expected = try SimpleShardMerger.merge(inputs: inputs)
        var got: [UInt8] = []
        let lines = try ShardMerger.merge(inputs: inputs) { got.append(contentsOf: $0) }
        #expect(got == expected, "seed \(seed)")
        #expect(lines == expected.filter { $0 == 0x0A }.count, "seed \(seed)")
        // Through a file, too (large ranges bypass the sink's buffer).
        let out = dir.appendingPathComponent("out.ndjson").path
        let sink = try OutputSink(path: out)
        _ = try ShardMerger.merge(inputs: inputs, output: sink)
        try sink.commit()  // a file path appears on commit (atomic outputs)
        #expect(try FileBytes.read(out) == expected, "seed \(seed)")
    }

    @Test("runs longer than a block and lines across many blocks")
    func longRuns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SplitMix64(seed: 77)
        var a = "", b = ""
        for d in 0..<4 {
            // About 5 MB per device: longer than the cursor's 4 MiB block.
            let text = (0..<24_000).map { _ in Self.line(&rng, device: "\"d\(d)\"") + "\n" }.joined()
            if d % 2 == 0 { a += text } else { b += text }
        }
        let pa = dir.appendingPathComponent("a").path, pb = dir.appendingPathComponent("b").path
        try a.write(toFile: pa, atomically: true, encoding: .utf8)
        try b.write(toFile: pb, atomically: true, encoding: .utf8)
        var got: [UInt8] = []
        _ = try ShardMerger.merge(inputs: [pa, pb]) { got.append(contentsOf: $0) }
        #expect(got == (try SimpleShardMerger.merge(inputs: [pa, pb])))
    }

    @Test("a shared device, a file out of order, a line that is no event: both refuse", arguments: [
        (["{\"deviceId\":\"a\"}\n", "{\"deviceId\":\"a\"}\n"], "appears in both"),
        (["{\"deviceId\":\"b\"}\n{\"deviceId\":\"a\"}\n"], "line 2: device ids are not in ascending order"),
        (["{\"deviceId\":\"a\"}\n\n{\"deviceId\":\"a\"}\n{\"deviceId\":\"\\u0061\"}\n{\"deviceId\":\"0\"}\n"], "line 5: device ids are not in ascending order"),
        (["{\"deviceId\":\"a\"}\n{\"device\":\"b\"}\n"], "line 2: not an event"),
        (["{\"n\":{\"deviceId\":\"b\"}}\n"], "line 1: not an event"),
        (["{\"deviceId\":7}\n"], "line 1: not an event"),
        (["[\"deviceId\",\"a\"]\n"], "line 1: not an event"),
    ])
    func refusals(texts: [String], message: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try texts.enumerated().map { k, text in
            let path = dir.appendingPathComponent("s\(k)").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        #expect(throws: (any Error).self) { try SimpleShardMerger.merge(inputs: inputs) }
        do {
            _ = try ShardMerger.merge(inputs: inputs) { _ in }
            Issue.record("accepted \(texts)")
        } catch {
            #expect("\(error)".contains(message), "\(error)")
        }
    }
}
